import BadgeIO
import BadgeCore
import CAtspi
import CDBusProtocol
import Glibc

/// The AT-SPI2 bridge: a connection to the accessibility bus (a `BusConnection`), registered with the registry through `Socket.Embed`, answering screen
/// readers from the latest ``AccessibleTree`` and sending the events that differ from the previous
/// one, only those some listener registered for.
///
/// Nothing waits on the bus: the greeting, the registration and every reply and signal are queued
/// and written as the socket allows. A registry that restarts is followed (its new owner gets the
/// application again); a bus that goes away or stops answering is connected to again (with the
/// connection's pauses) and the application registered anew. Not Sendable: event-loop thread only.
package final class AccessibilityBridge {
    /// How much may wait to be written before events are dropped (a bus that does not read).
    package static let outgoingLimit = 1 << 20
    /// How much may wait before replies are dropped too (the caller's call then times out).
    package static let replyLimit = 8 << 20

    private static let busService = "org.freedesktop.DBus", busPath = "/org/freedesktop/DBus"

    /// The connection to the accessibility bus.
    package let bus: BusConnection
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
    /// Each part's window's top-left pixel on the screen, by part (asked at a query for screen
    /// coordinates).
    package var windowOrigins: () -> [Int: (x: Int, y: Int)] = { [:] }
    /// A screen reader performed an action on a button: the part (host), the button, the action.
    package var onAction: (Int, Int, BadgeAction) -> Void = { _, _, _ in }
    /// A screen reader activated a row of an open peek: the part (host) and the row.
    package var onPeekActivate: (_ part: Int, _ row: Int, _ secondary: Bool) -> Void = { _, _, _ in }
    /// A screen reader moved the focus to a button: the part (host) and the button.
    package var onFocus: (Int, Int) -> Void = { _, _ in }
    /// Registration with the registry succeeded (true) or the bus went away (false).
    package var onRegistration: (Bool) -> Void = { _ in }

    /// Connects to the accessibility bus at `address` (without waiting); registers with the
    /// registry every time the bus greets the connection.
    package init(address: DBusAddress, locale: String, toolkitVersion: String, snapshot: @escaping () -> AccessibleTree) {
        bus = BusConnection(address: address, label: "the accessibility bus")
        self.snapshot = snapshot
        tree = snapshot()
        service = AccessibilityService(tree: tree, busName: "")
        service.locale = locale
        service.toolkit.version = toolkitVersion
        bus.handleCalls { [weak self] in self?.answer($0) }
        for rule in [
            DBusMatchRule.signal(ATSPI_DBUS_INTERFACE_REGISTRY, "EventListenerRegistered"),
            DBusMatchRule.signal(ATSPI_DBUS_INTERFACE_REGISTRY, "EventListenerDeregistered"),
            // Every peer that leaves: its listeners go with it (the accessibility bus is this bridge's own).
            DBusMatchRule.signal(Self.busService, "NameOwnerChanged", sender: Self.busService),
        ] { bus.subscribe(rule) { [weak self] in self?.signal($0) } }
        bus.whenReady { [weak self] name in
            guard let self else { return }
            self.busName = name
            self.service.busName = name
            self.listeners = AccessibilityListeners()
            self.register()
        }
        bus.whenLost { [weak self] _ in
            guard let self else { return }
            self.isEmbedded = false
            self.embedIsPending = false
            self.busName = nil
            self.onRegistration(false)
        }
    }

    /// The loop source "accessibility".
    package var source: EventLoop.Source { bus.source(named: "accessibility") }

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

    private func signal(_ message: DBusMessage) {
        let strings = message.body.compactMap(\.stringValue)
        if message.isSignal(ATSPI_DBUS_INTERFACE_REGISTRY, "EventListenerRegistered"), strings.count >= 2 {
            listeners.add(bus: strings[0], pattern: strings[1])
        } else if message.isSignal(ATSPI_DBUS_INTERFACE_REGISTRY, "EventListenerDeregistered"), strings.count >= 2 {
            listeners.remove(bus: strings[0], pattern: strings[1])
        } else if message.isSignal(Self.busService, "NameOwnerChanged"), strings.count == 3 {
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

    private func answer(_ message: DBusMessage) {
        let request = DBusRequest(message)
        beforeQuery()
        // Only screen coordinates need the window's place (asked of the X server once after a move).
        if request.interface == ATSPI_DBUS_INTERFACE_COMPONENT || request.interface.isEmpty { service.windowOrigins = windowOrigins() }
        let reply: AccessibilityService.Reply
        if message.bodyError != nil {
            // A type the bridge never reads (a file descriptor, say): no method of its takes one.
            let failure = DBusFailure.unreadableArguments(request.signature)
            reply = .error(name: failure.name, message: failure.message)
        } else {
            reply = service.answer(request)
        }
        var values: [DBusValue] = []
        switch reply {
        case .values(let answer): values = answer
        case .error(let name, let text):
            send(.error(to: message, name: name, text: text), answering: message)
            return
        case .perform(let button, let action, let part):
            onAction(part, button, action)
            beforeQuery()
            values = [.bool(true)]
        case .focus(let button, let part):
            onFocus(part, button)
            beforeQuery()
            values = [.bool(true)]
        case .activatePeekRow(let row, let part, let secondary):
            onPeekActivate(part, row, secondary)
            beforeQuery()
            values = [.bool(true)]
        case .setApplicationID(let id):
            service.applicationID = id
        }
        send(.methodReturn(to: message, values: values), answering: message)
    }

    private func send(_ reply: DBusMessage, answering call: DBusMessage) {
        bus.answer(call, with: reply, limit: Self.replyLimit)
    }

    // MARK: Outgoing

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
        guard bus.isReady, bus.outgoingSize < Self.outgoingLimit else { return }
        var value = event.value
        // A children change names the child: sent as a reference on this bus.
        if case .objectPath(let path) = value { value = service.reference(path) }
        let body: [DBusValue] = [.string(event.detail), .int32(event.detail1), .int32(event.detail2), .variant(value),
                                 DBusValue.dictionary([])]
        guard bus.send(.signal(path: event.path, interface: event.interface, member: event.member, arguments: body)) != nil else { return }
        sentEvents += 1
    }
}
