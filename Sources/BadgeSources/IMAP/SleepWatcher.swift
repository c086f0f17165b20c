import BadgeIO
import Glibc

/// Tells when the machine is about to sleep and when it woke: logind's `PrepareForSleep(b)` on
/// the system bus (true before, false after), heard only from the connection that owns
/// `org.freedesktop.login1` (the subscription's sender, whose owner the connection follows), so
/// no other client can fake a suspend. Without a system bus, or when it goes away, it gives up
/// quietly (no retries, no wakeups): the IMAP source then finds a suspend from the clocks.
///
/// Not Sendable: the loop's thread.
package final class SleepWatcher {
    /// Called with true before a suspend and false after the resume.
    package var onSleep: ((Bool) -> Void)?
    private var connection: BusSourceConnection?

    private static let name = "org.freedesktop.login1"

    /// Watches the system bus at `address`; by default `DBUS_SYSTEM_BUS_ADDRESS`, else
    /// /run/dbus/system_bus_socket when it exists; nothing when neither is there.
    package init(address: String? = nil) {
        let fallback = "/run/dbus/system_bus_socket"
        guard let chosen = address ?? Environment.value("DBUS_SYSTEM_BUS_ADDRESS")
                ?? (access(fallback, F_OK) == 0 ? "unix:path=\(fallback)" : nil),
              let made = try? BusSourceConnection(address: chosen, label: "the system bus (logind)") else { return }
        connection = made
        let bus = made.bus
        // Only login1's owner is heard: a PrepareForSleep from anyone else never matches.
        bus.subscribe(.signal("org.freedesktop.login1.Manager", "PrepareForSleep", sender: Self.name)) { [weak self] message in
            if let going = message.body.first?.boolValue { self?.onSleep?(going) }
        }
        bus.whenLost { [weak self] _ in self?.giveUp() }
    }

    deinit { connection?.close() }

    /// True while it listens (a system bus was found and has not gone away).
    package var isWatching: Bool { connection != nil }

    /// The descriptors to poll.
    package var descriptors: [Int32] { connection?.descriptors ?? [] }
    /// Seconds until the bus needs a turn.
    package var timeUntilDue: Double? { connection?.timeUntilDue }
    /// Reads what came.
    package func handleReadable() { connection?.handleReadable() }
    /// Lets the bus act on its deadlines.
    package func handleDeadline() { connection?.handleDeadline() }

    /// Stops listening.
    package func stop() { giveUp() }

    private func giveUp() {
        let closing = connection
        connection = nil
        closing?.close()
    }
}
