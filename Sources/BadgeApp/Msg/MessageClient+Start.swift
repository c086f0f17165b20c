import BadgeCore
import BadgeIO
import Glibc

/// `msg --start`: when no instance listens on the default profile's socket, asks the session bus
/// to start the app's bus name (D-Bus activation: the service file io.github.badgekit.BadgeDemo.service,
/// through systemd's badge-demo.service where that is installed), then waits for the socket. Every
/// step has a deadline; nothing starting is exit 1 with the reason.
extension MessageClient {
    /// How long the bus may take to start the app: the app owns its name once its window is up
    /// and its socket listens (dbus-daemon's own activation limit is 25 s).
    static let startTimeout = 25.0
    /// How long the socket may take to accept after the bus said the name is owned.
    static let socketAfterStartTimeout = 5.0

    /// Nil when an instance listens on `path` (already, or once started), or the status and
    /// message to end `msg` with.
    static func startIfNeeded(socket path: String) -> (Status, Sentence)? {
        if isListening(path) { return nil }
        guard let text = Environment.value("DBUS_SESSION_BUS_ADDRESS") else {
            return (.noInstance, Sentence("no instance runs, and --start cannot start one: DBUS_SESSION_BUS_ADDRESS is not set"))
        }
        let address: DBusAddress
        do {
            address = try DBusAddress(text)
        } catch {
            return (.noInstance, Sentence("no instance runs, and --start cannot start one: DBUS_SESSION_BUS_ADDRESS cannot be used (%s)", .text("\(error)")))
        }
        let name = BadgeApplication.defaultBusName
        let bus = BusConnection(address: address, label: "the session bus")
        defer { bus.close() }
        var answer: [DBusValue]??
        var lost: String?
        bus.whenLost { lost = $0 }
        bus.whenReady { _ in
            bus.call("org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                     member: "StartServiceByName", arguments: [.string(name), .uint32(0)]) { answer = .some($0) }
        }
        let deadline = SystemTime.monotonic + startTimeout
        while answer == nil, lost == nil {
            let left = deadline - SystemTime.monotonic
            guard left > 0 else {
                return (.noInstance, Sentence("asked the session bus to start %1$s, but nothing owned it within %2$s s", .text(name), .number(Int(startTimeout))))
            }
            serviceOnce(bus, wait: min(left, bus.timeUntilDeadline ?? left))
        }
        guard let reply = answer, let values = reply, case .uint32(let result)? = values.first, result == 1 || result == 2 else {
            let reason = lost.map { Sentence("the session bus: %s", .text($0)) }
                ?? Sentence("the session bus cannot start %s (no D-Bus service file for it, or the app failed to start; docs/session.md)", .text(name))
            return (.noInstance, Sentence("no instance runs, and --start failed: %s", .sentence(reason)))
        }
        // The name is owned (1: started now, 2: ran already); the socket listens by then, or soon.
        var pause = firstPause
        let socketDeadline = SystemTime.monotonic + socketAfterStartTimeout
        while !isListening(path) {
            guard SystemTime.monotonic < socketDeadline else {
                return (.noInstance, Sentence("%1$s started, but nothing listened on %2$s within %3$s s (another profile's instance owns the name?)",
                                              .text(name), .text(path), .number(Int(socketAfterStartTimeout))))
            }
            waitForSocket(at: path, pause: &pause, limit: socketDeadline - SystemTime.monotonic)
        }
        return nil
    }

    /// Polls the bus connection once, for at most `wait` seconds, and lets it act on what came.
    private static func serviceOnce(_ bus: BusConnection, wait: Double) {
        let interest = bus.interest
        var entry = pollfd(fd: bus.fileDescriptor ?? -1,
                           events: Int16((interest.contains(.readable) ? POLLIN : 0) | (interest.contains(.writable) ? POLLOUT : 0)),
                           revents: 0)
        let milliseconds = Int32(max(0, min(wait, 60)) * 1000) + 1
        if poll(&entry, 1, milliseconds) > 0 {
            let events = Int32(entry.revents)
            bus.service(EventLoop.Readiness(readable: events & POLLIN != 0, writable: events & POLLOUT != 0,
                                            failed: events & (POLLHUP | POLLERR | POLLNVAL) != 0))
        }
        bus.handleDeadlines()
    }
}
