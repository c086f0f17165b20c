import BadgeCore
import CAtspi
import CDBusLoader
import Glibc

/// The AT-SPI2 bridge: a private connection to the accessibility bus (libdbus, loaded with
/// dlopen), registered with the registry through `Socket.Embed`, answering screen readers from
/// the latest ``AccessibleTree`` and sending the events that differ from the previous one, only
/// those some listener registered for.
///
/// Nothing waits on the bus: the greeting, the registration and every reply and signal are queued
/// and written as the socket allows. A registry that restarts is followed (its new owner gets the
/// application again); a bus that goes away ends the bridge quietly. Not Sendable: event-loop thread only.
package final class AccessibilityBridge {
    /// How much may wait to be written before events are dropped (a bus that does not read).
    package static let outgoingLimit = 1 << 20
    /// How much may wait before replies are dropped too (the caller's call then times out).
    package static let replyLimit = 8 << 20

    private static let busService = "org.freedesktop.DBus", busPath = "/org/freedesktop/DBus"

    private let dbus: BadgeDBus
    private var connection: OpaquePointer?
    private var helloSerial: UInt32 = 0, embedSerial: UInt32 = 0, eventsSerial: UInt32 = 0
    /// The latest snapshot (events are what differs from it).
    private var tree: AccessibleTree
    /// What queries are answered from.
    private var service: AccessibilityService
    /// Who listens for what.
    package private(set) var listeners = AccessibilityListeners()
    /// The bus name, once the bus said hello.
    package private(set) var busName: String?
    /// True once the registry answered Embed (and again after it restarted).
    package private(set) var isEmbedded = false
    /// True while an Embed waits for its answer (the registry may be starting for it).
    private var embedIsPending = false
    /// How many events were sent, and dropped because the bus did not read.
    package private(set) var sentEvents = 0, droppedMessages = 0

    /// The current tree (rebuilt before each query and refresh).
    package var snapshot: () -> AccessibleTree
    /// The window's top-left pixel on the screen (asked at a query for screen coordinates).
    package var windowOrigin: () -> (x: Int, y: Int) = { (0, 0) }
    /// A screen reader performed an action on a button.
    package var onAction: (Int, BadgeAction) -> Void = { _, _ in }
    /// A screen reader moved the focus to a button.
    package var onFocus: (Int) -> Void = { _ in }
    /// Registration with the registry succeeded (true) or the bus went away (false).
    package var onRegistration: (Bool) -> Void = { _ in }

    /// Connects to the accessibility bus at `address` and says hello; nil when the address cannot be
    /// reached (with the reason in `failure`).
    package init?(address: String, dbus: BadgeDBus, locale: String, toolkitVersion: String,
                  snapshot: @escaping () -> AccessibleTree, failure: (String) -> Void) {
        self.dbus = dbus
        self.snapshot = snapshot
        var error = BadgeDBusError()
        dbus.error_init(&error)
        guard let connection = dbus.connection_open_private(address, &error) else {
            failure("cannot reach the accessibility bus at \(address): \(BadgeDBus.text(error.message)); screen readers will not see the toolbar")
            dbus.error_free(&error)
            return nil
        }
        dbus.error_free(&error)
        dbus.connection_set_exit_on_disconnect(connection, 0)
        self.connection = connection
        tree = snapshot()
        service = AccessibilityService(tree: tree, busName: "")
        service.locale = locale
        service.toolkit.version = toolkitVersion
        // Hello by hand, so the connection never blocks waiting for its name.
        helloSerial = call(Self.busService, Self.busPath, Self.busService, "Hello", [])
    }

    deinit { close() }

    /// The loop source "accessibility".
    package var source: EventLoop.Source {
        EventLoop.Source(
            name: "accessibility",
            descriptor: { [weak self] in self?.fileDescriptor },
            interest: { [weak self] in
                guard let self, let connection = self.connection else { return [] }
                return self.dbus.connection_has_messages_to_send(connection) != 0 ? [.readable, .writable] : .readable
            },
            handle: { [weak self] _ in self?.serviceBus() })
    }

    /// True while the bridge is connected.
    package var isConnected: Bool { connection != nil }

    private var fileDescriptor: Int32? {
        guard let connection else { return nil }
        var fd: Int32 = -1
        return dbus.connection_get_unix_fd(connection, &fd) != 0 && fd >= 0 ? fd : nil
    }

    /// Reads and writes what the socket allows and handles what came in.
    package func serviceBus() {
        guard let connection else { return }
        guard dbus.connection_read_write(connection, 0) != 0 else {
            close()
            return
        }
        var refreshed = false
        while let connection = self.connection, let message = dbus.connection_pop_message(connection) {
            if !refreshed, dbus.message_get_type(message) == DBUS_MESSAGE_TYPE_METHOD_CALL {
                // Queries see what is on screen now, without waiting for the next refresh.
                update(sendingEvents: true)
                refreshed = true
            }
            handle(message)
            dbus.message_unref(message)
        }
    }

    /// Takes a new snapshot and sends the events for what changed (when someone listens).
    package func update(sendingEvents: Bool = true) {
        let new = snapshot()
        guard new != tree else { return }
        let events = AccessibleEvent.changes(from: tree, to: new)
        tree = new
        service.tree = new
        guard sendingEvents, isEmbedded, !listeners.isEmpty else { return }
        for event in events where listeners.sends(event.name) { emit(event) }
    }

    // MARK: Incoming

    private func handle(_ message: OpaquePointer) {
        switch dbus.message_get_type(message) {
        case DBUS_MESSAGE_TYPE_METHOD_CALL:
            answer(message)
        case DBUS_MESSAGE_TYPE_METHOD_RETURN:
            returned(message, serial: dbus.message_get_reply_serial(message))
        case DBUS_MESSAGE_TYPE_ERROR:
            let serial = dbus.message_get_reply_serial(message)
            if serial == embedSerial {
                // No registry now: a new one is followed when it appears.
                isEmbedded = false
                embedIsPending = false
            }
            if serial == helloSerial { close() }
        case DBUS_MESSAGE_TYPE_SIGNAL:
            signal(message)
        default:
            break
        }
    }

    private func returned(_ message: OpaquePointer, serial: UInt32) {
        let values = dbus.arguments(of: message) ?? []
        if serial == helloSerial, let name = values.first?.stringValue {
            busName = name
            service.busName = name
            watchRegistry()
            register()
        } else if serial == embedSerial {
            embedIsPending = false
            if let desktop = values.first, desktop.signature == "(so)" { service.desktop = desktop }
            isEmbedded = true
            onRegistration(true)
        } else if serial == eventsSerial, case .array(_, let items)? = values.first {
            listeners.replace(with: items.compactMap { item in
                guard case .structure(let fields) = item, fields.count == 2,
                      let bus = fields[0].stringValue, let pattern = fields[1].stringValue else { return nil }
                return (bus, pattern)
            })
        }
    }

    private func signal(_ message: OpaquePointer) {
        let values = dbus.arguments(of: message) ?? []
        let strings = values.compactMap(\.stringValue)
        if dbus.message_is_signal(message, ATSPI_DBUS_INTERFACE_REGISTRY, "EventListenerRegistered") != 0, strings.count >= 2 {
            listeners.add(bus: strings[0], pattern: strings[1])
        } else if dbus.message_is_signal(message, ATSPI_DBUS_INTERFACE_REGISTRY, "EventListenerDeregistered") != 0, strings.count >= 2 {
            listeners.remove(bus: strings[0], pattern: strings[1])
        } else if dbus.message_is_signal(message, Self.busService, "NameOwnerChanged") != 0, strings.count == 3 {
            if strings[0] == ATSPI_DBUS_NAME_REGISTRY {
                if strings[2].isEmpty {
                    // The registry stopped: no one hears events until a new one says who listens.
                    isEmbedded = false
                    listeners = AccessibilityListeners()
                } else if !isEmbedded, !embedIsPending {
                    // A new registry (not the one our first Embed started): it gets the application again.
                    register()
                }
            } else if strings[2].isEmpty {
                listeners.removeAll(bus: strings[0])
            }
        }
    }

    private func answer(_ message: OpaquePointer) {
        let arguments = dbus.arguments(of: message)
        let request = AccessibilityService.Request(
            path: BadgeDBus.text(dbus.message_get_path(message)), interface: BadgeDBus.text(dbus.message_get_interface(message)),
            member: BadgeDBus.text(dbus.message_get_member(message)), signature: BadgeDBus.text(dbus.message_get_signature(message)),
            arguments: arguments ?? [])
        // Only screen coordinates need the window's place (asked of the X server once after a move).
        if request.interface == ATSPI_DBUS_INTERFACE_COMPONENT || request.interface.isEmpty { service.windowOrigin = windowOrigin() }
        let reply: AccessibilityService.Reply
        if arguments == nil {
            // A type the bridge never reads (a file descriptor, say): no method of its takes one.
            reply = .error(name: DBUS_ERROR_INVALID_ARGS, message: "arguments of type (\(request.signature)) are not understood")
        } else {
            reply = service.answer(request)
        }
        var values: [DBusValue] = []
        switch reply {
        case .values(let answer): values = answer
        case .error(let name, let text):
            send(reply: dbus.message_new_error(message, name, text), to: message, values: [])
            return
        case .perform(let button, let action):
            onAction(button, action)
            update()
            values = [.bool(true)]
        case .focus(let button):
            onFocus(button)
            update()
            values = [.bool(true)]
        case .setApplicationID(let id):
            service.applicationID = id
        }
        send(reply: dbus.message_new_method_return(message), to: message, values: values)
    }

    private func send(reply: OpaquePointer?, to call: OpaquePointer, values: [DBusValue]) {
        guard let reply else { return }
        defer { dbus.message_unref(reply) }
        guard dbus.message_get_no_reply(call) == 0, let connection else { return }
        guard dbus.connection_get_outgoing_size(connection) < Self.replyLimit, dbus.append(values, to: reply) else {
            droppedMessages += 1
            return
        }
        _ = dbus.connection_send(connection, reply, nil)
    }

    // MARK: Outgoing

    /// Watches the registry's listener announcements and its coming and going.
    private func watchRegistry() {
        guard let connection else { return }
        let rules = [
            "type='signal',interface='\(ATSPI_DBUS_INTERFACE_REGISTRY)',member='EventListenerRegistered'",
            "type='signal',interface='\(ATSPI_DBUS_INTERFACE_REGISTRY)',member='EventListenerDeregistered'",
            "type='signal',sender='\(Self.busService)',interface='\(Self.busService)',member='NameOwnerChanged'",
        ]
        // Without an error argument a match is sent without waiting for the bus's answer.
        for rule in rules { dbus.bus_add_match(connection, rule, nil) }
    }

    /// Embeds the application in the registry's desktop and asks who listens.
    private func register() {
        guard let busName else { return }
        embedIsPending = true
        embedSerial = call(ATSPI_DBUS_NAME_REGISTRY, ATSPI_DBUS_PATH_ROOT, ATSPI_DBUS_INTERFACE_SOCKET, "Embed",
                           [.structure([.string(busName), .objectPath(AccessibleTree.applicationPath)])])
        eventsSerial = call(ATSPI_DBUS_NAME_REGISTRY, ATSPI_DBUS_PATH_REGISTRY, ATSPI_DBUS_INTERFACE_REGISTRY,
                            "GetRegisteredEvents", [])
    }

    private func call(_ destination: String, _ path: String, _ interface: String, _ member: String, _ values: [DBusValue]) -> UInt32 {
        guard let connection, let message = dbus.message_new_method_call(destination, path, interface, member) else { return 0 }
        defer { dbus.message_unref(message) }
        var serial: UInt32 = 0
        guard dbus.append(values, to: message), dbus.connection_send(connection, message, &serial) != 0 else { return 0 }
        return serial
    }

    private func emit(_ event: AccessibleEvent) {
        guard let connection else { return }
        guard dbus.connection_get_outgoing_size(connection) < Self.outgoingLimit else {
            droppedMessages += 1
            return
        }
        guard let message = dbus.message_new_signal(event.path, event.interface, event.member) else { return }
        defer { dbus.message_unref(message) }
        var value = event.value
        if case .objectPath(let path) = value { value = service.reference(path) }
        let body: [DBusValue] = [.string(event.detail), .int32(event.detail1), .int32(event.detail2), .variant(value),
                                 DBusValue.dictionary([])]
        guard dbus.append(body, to: message), dbus.connection_send(connection, message, nil) != 0 else { return }
        sentEvents += 1
    }

    private func close() {
        guard let connection else { return }
        dbus.connection_close(connection)
        dbus.connection_unref(connection)
        self.connection = nil
        isEmbedded = false
        onRegistration(false)
    }
}
