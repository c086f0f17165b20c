import BadgeCore
import CAtspi
import CDBusLoader
import Glibc

/// The AT-SPI2 bridge: a private connection to the accessibility bus (a ``BusConnection``, libdbus
/// loaded with dlopen), registered with the registry through `Socket.Embed`, answering screen
/// readers from the latest ``AccessibleTree`` and sending the events that differ from the previous
/// one, only those some listener registered for.
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

    private let bus: BusConnection
    private var dbus: BadgeDBus { bus.dbus }
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
    /// How many events were sent.
    package private(set) var sentEvents = 0

    /// The current tree (taken at ``update()``).
    package var snapshot: () -> AccessibleTree
    /// Runs before each call is answered and after each action, so that the answer comes from what
    /// is on screen now: the host calls ``update()`` there when anything changed since it last did.
    package var beforeQuery: () -> Void = {}
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
        guard let bus = BusConnection(address: address, dbus: dbus, failure: { reason in
            failure("cannot reach the accessibility bus at \(address): \(reason); screen readers will not see the toolbar")
        }) else { return nil }
        self.bus = bus
        self.snapshot = snapshot
        tree = snapshot()
        service = AccessibilityService(tree: tree, busName: "")
        service.locale = locale
        service.toolkit.version = toolkitVersion
        bus.listen { [weak self] in self?.handle($0) }
        // Hello by hand, so the connection never blocks waiting for its name.
        bus.call(Self.busService, path: Self.busPath, interface: Self.busService, member: "Hello") { [weak self] values in
            guard let self else { return }
            guard let name = values?.first?.stringValue else {
                self.bus.close()
                return self.onRegistration(false)
            }
            self.busName = name
            self.service.busName = name
            self.watchRegistry()
            self.register()
        }
    }

    /// The loop source "accessibility".
    package var source: EventLoop.Source {
        bus.source(named: "accessibility", onDisconnect: { [weak self] in
            self?.isEmbedded = false
            self?.onRegistration(false)
        })
    }

    /// Takes a new snapshot and sends the events for what changed (when someone listens).
    package func update() {
        let new = snapshot()
        guard new != tree else { return }
        let events = AccessibleEvent.changes(from: tree, to: new)
        tree = new
        service.tree = new
        guard isEmbedded, !listeners.isEmpty else { return }
        for event in events where listeners.sends(event.name) { emit(event) }
    }

    // MARK: Incoming

    private func handle(_ message: OpaquePointer) {
        switch dbus.message_get_type(message) {
        case DBUS_MESSAGE_TYPE_METHOD_CALL: answer(message)
        case DBUS_MESSAGE_TYPE_SIGNAL: signal(message)
        default: break
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
        beforeQuery()
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
            beforeQuery()
            values = [.bool(true)]
        case .focus(let button):
            onFocus(button)
            beforeQuery()
            values = [.bool(true)]
        case .setApplicationID(let id):
            service.applicationID = id
        }
        send(reply: dbus.message_new_method_return(message), to: message, values: values)
    }

    private func send(reply: OpaquePointer?, to call: OpaquePointer, values: [DBusValue]) {
        guard let reply else { return }
        defer { dbus.message_unref(reply) }
        guard dbus.message_get_no_reply(call) == 0, let connection = bus.connection,
              dbus.connection_get_outgoing_size(connection) < Self.replyLimit, dbus.append(values, to: reply) else { return }
        _ = dbus.connection_send(connection, reply, nil)
    }

    // MARK: Outgoing

    /// Watches the registry's listener announcements and its coming and going.
    private func watchRegistry() {
        guard let connection = bus.connection else { return }
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
        bus.call(ATSPI_DBUS_NAME_REGISTRY, path: ATSPI_DBUS_PATH_ROOT, interface: ATSPI_DBUS_INTERFACE_SOCKET, member: "Embed",
                 arguments: [.structure([.string(busName), .objectPath(AccessibleTree.applicationPath)])]) { [weak self] values in
            guard let self else { return }
            self.embedIsPending = false
            // An error: no registry now; a new one is followed when it appears.
            guard let values else { return }
            if let desktop = values.first, desktop.signature == "(so)" { self.service.desktop = desktop }
            self.isEmbedded = true
            self.onRegistration(true)
        }
        bus.call(ATSPI_DBUS_NAME_REGISTRY, path: ATSPI_DBUS_PATH_REGISTRY, interface: ATSPI_DBUS_INTERFACE_REGISTRY,
                 member: "GetRegisteredEvents") { [weak self] values in
            guard let self, case .array(_, let items)? = values?.first else { return }
            self.listeners.replace(with: items.compactMap { item in
                guard case .structure(let fields) = item, fields.count == 2,
                      let bus = fields[0].stringValue, let pattern = fields[1].stringValue else { return nil }
                return (bus, pattern)
            })
        }
    }

    private func emit(_ event: AccessibleEvent) {
        guard let connection = bus.connection, dbus.connection_get_outgoing_size(connection) < Self.outgoingLimit,
              let message = dbus.message_new_signal(event.path, event.interface, event.member) else { return }
        defer { dbus.message_unref(message) }
        var value = event.value
        // A children change names the child: sent as a reference on this bus.
        if case .objectPath(let path) = value { value = service.reference(path) }
        let body: [DBusValue] = [.string(event.detail), .int32(event.detail1), .int32(event.detail2), .variant(value),
                                 DBusValue.dictionary([])]
        guard dbus.append(body, to: message), dbus.connection_send(connection, message, nil) != 0 else { return }
        sentEvents += 1
    }
}
