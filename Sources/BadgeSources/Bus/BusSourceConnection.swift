import BadgeCore
import BadgeIO
import Glibc

/// A source's own connection to a bus (the session bus, given by its address), driven through the
/// ``BadgeSource`` contract: its descriptor when it is readable or has bytes waiting to be written,
/// its deadlines (a call's timeout, the next attempt after a failure), and nothing else when idle.
/// Not Sendable: the loop's thread only.
package final class BusSourceConnection {
    /// The connection.
    package let bus: BusConnection
    /// False when the connection is someone else's (shared): they poll and close it.
    private let owned: Bool

    /// Connects (without blocking) to the bus at `address`.
    /// - Throws: ``SourceSetupError`` when the address cannot be used.
    package init(address: String, label: String) throws(SourceSetupError) {
        do {
            bus = BusConnection(address: try DBusAddress(address), label: label)
            owned = true
        } catch {
            throw SourceSetupError("\(label): the bus address \(InputEcho.quoted(address, limit: 80)) cannot be used (\(error))")
        }
    }

    /// Uses `bus`, which its owner polls and closes (the application's session bus).
    package init(sharing bus: BusConnection) {
        self.bus = bus
        owned = false
    }

    /// The descriptor, when the connection has one and is the source's own.
    package var descriptors: [Int32] { owned ? bus.fileDescriptor.map { [$0] } ?? [] : [] }

    /// Seconds until the connection needs a turn: now while bytes wait to be written (the socket
    /// was full), else its own deadline.
    package var timeUntilDue: Double? {
        guard owned else { return nil }
        if bus.interest.contains(.writable) { return 0.005 }
        return bus.timeUntilDeadline
    }

    /// Reads and writes what the socket allows.
    package func handleReadable() {
        guard owned else { return }
        bus.service(EventLoop.Readiness(readable: true, writable: true, failed: false))
    }

    /// Acts on deadlines, and writes what waits once the socket really has room (asked of the
    /// kernel without waiting: the contract polls for readability only).
    package func handleDeadline() {
        guard owned else { return }
        if let fd = bus.fileDescriptor, bus.interest.contains(.writable) {
            var entry = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            if poll(&entry, 1, 0) > 0 {
                bus.service(EventLoop.Readiness(readable: false, writable: entry.revents & Int16(POLLOUT) != 0,
                                                failed: entry.revents & Int16(POLLERR | POLLHUP) != 0))
            }
        }
        bus.handleDeadlines()
    }

    /// Closes the connection.
    package func close() { if owned { bus.close() } }
}

/// A source that cannot be set up (an unusable bus address, a bad desktop id), with the reason.
public struct SourceSetupError: Error, Equatable, Sendable, CustomStringConvertible {
    /// One line for the user.
    public let description: String

    /// Creates an error with its message.
    public init(_ description: String) { self.description = description }
}
