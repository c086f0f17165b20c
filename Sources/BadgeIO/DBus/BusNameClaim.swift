/// Asks for a well-known name on a bus, without queueing (`DO_NOT_QUEUE`), every time the bus greets
/// the connection, and follows who has it: when the name is taken, it is asked for again as soon as its
/// owner lets go (`NameOwnerChanged`), so a second instance takes over from a first that quits.
///
/// Nothing waits: the request and the bus's signals come through the event loop; no timer runs.
/// Not Sendable: event-loop thread only.
package final class BusNameClaim {
    /// Where the claim stands.
    package enum Status: Equatable, Sendable {
        /// The bus is not there now (connecting, or lost and tried again), or the answer is awaited.
        case waiting(String)
        /// This connection owns the name.
        case owned
        /// Another connection owns it; it is asked for again when that one lets go.
        case taken
        /// The bus refused it (its policy); asked for again only after a reconnection.
        case refused(String)
    }

    /// `RequestName`'s flag: fail rather than wait in the queue.
    static let doNotQueue: UInt32 = 0x4
    /// `RequestName`'s answers: the primary owner now, or already.
    static let primaryOwner: UInt32 = 1, alreadyOwner: UInt32 = 4
    private static let busName = "org.freedesktop.DBus", busPath = "/org/freedesktop/DBus"

    /// The name.
    package let name: String
    /// Where the claim stands now.
    package private(set) var status: Status {
        didSet { if status != oldValue { onChange(status) } }
    }
    /// Told every change of ``status``.
    package var onChange: (Status) -> Void = { _ in }

    private let bus: BusConnection
    private var requestIsPending = false

    /// Claims `name` on `bus` (now, if it is ready; otherwise once it is).
    package init(name: String, bus: BusConnection) {
        self.name = name
        self.bus = bus
        status = .waiting(bus.status)
        for member in ["NameOwnerChanged", "NameAcquired", "NameLost"] {
            // NameAcquired and NameLost come to this connection alone, asked for or not.
            bus.subscribe(.signal(Self.busName, member, sender: Self.busName, arguments: [0: name]),
                          askingTheBus: member == "NameOwnerChanged") { [weak self] message in self?.signal(message) }
        }
        bus.whenLost { [weak self] reason in
            self?.requestIsPending = false
            self?.status = .waiting(reason)
        }
        bus.whenReady { [weak self] _ in self?.request() }
    }

    private func request() {
        guard !requestIsPending else { return }
        requestIsPending = true
        if case .owned = status {} else { status = .waiting("asking the bus for the name") }
        bus.call(Self.busName, path: Self.busPath, interface: Self.busName, member: "RequestName",
                 arguments: [.string(name), .uint32(Self.doNotQueue)]) { [weak self] values in
            guard let self, self.requestIsPending else { return }
            self.requestIsPending = false
            guard let values else {
                if self.bus.isReady { self.status = .refused("the bus refused the name (its policy does not let this user own it)") }
                return
            }
            guard case .uint32(let answer)? = values.first else {
                self.status = .refused("the bus answered RequestName with (\(DBusValue.signature(of: values)))")
                return
            }
            self.status = answer == Self.primaryOwner || answer == Self.alreadyOwner ? .owned : .taken
        }
    }

    private func signal(_ message: DBusMessage) {
        guard message.kind == .signal, message.sender == Self.busName, message.interface == Self.busName,
              message.body.first?.stringValue == name else { return }
        switch message.member {
        case "NameOwnerChanged":
            guard message.body.count == 3, let owner = message.body[2].stringValue else { return }
            if owner.isEmpty, status == .taken {
                request()
            } else if !owner.isEmpty, let unique = bus.uniqueName {
                status = owner == unique ? .owned : .taken
            }
        case "NameAcquired": status = .owned
        case "NameLost": if status == .owned { status = .taken }
        default: break
        }
    }
}
