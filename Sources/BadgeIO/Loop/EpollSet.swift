import CGlibcExtras
import Glibc

/// A set of descriptors behind one epoll descriptor: what lets many descriptors (the control
/// socket's clients, the sources', the launched programs' pidfds) be one source of an
/// ``EventLoop``, which polls ``descriptor``. Level-triggered; every descriptor is watched for the
/// events given and reported by its own number. Closes the epoll descriptor when it goes.
///
/// Not Sendable: the loop's thread only.
package final class EpollSet {
    /// The epoll descriptor, for the loop to poll (readable when a member is ready).
    package let descriptor: Int32
    private var events = [epoll_event](repeating: epoll_event(), count: 64)

    /// A call the kernel refused: which, and its `errno`.
    package struct Failure: Error, Equatable, CustomStringConvertible {
        /// "epoll_create1" or "epoll_wait".
        package let call: String
        /// The `errno` (EMFILE, ENFILE, ENOMEM, …).
        package let code: Int32
        /// "epoll_create1 failed: Too many open files".
        package var description: String { "\(call) failed: \(String(cString: strerror(code)))" }
    }

    /// Asks the kernel for an epoll descriptor.
    /// - Throws: ``Failure`` with the `errno` of `epoll_create1` (EMFILE, ENFILE, ENOMEM).
    package init() throws(Failure) {
        let made = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard made >= 0 else { throw Failure(call: "epoll_create1", code: errno) }
        descriptor = made
    }

    deinit { close(descriptor) }

    /// Readable input (and hang-up and errors, which epoll always reports).
    package static let readable = UInt32(EPOLLIN.rawValue)
    /// Room to write only (input waits).
    package static let writable = UInt32(EPOLLOUT.rawValue)
    /// Readable input and room to write.
    package static let readableOrWritable = UInt32(EPOLLIN.rawValue | EPOLLOUT.rawValue)

    /// Watches `member` for `events`; false (with `errno`) when the kernel refuses, EEXIST when it
    /// is there already.
    @discardableResult
    package func add(_ member: Int32, events: UInt32 = EpollSet.readable) -> Bool {
        control(EPOLL_CTL_ADD, member, events)
    }

    /// Watches `member`, already in the set, for `events` instead.
    @discardableResult
    package func modify(_ member: Int32, events: UInt32) -> Bool {
        control(EPOLL_CTL_MOD, member, events)
    }

    /// Stops watching `member` (a descriptor that was closed has left the set already).
    package func remove(_ member: Int32) {
        epoll_ctl(descriptor, EPOLL_CTL_DEL, member, nil)
    }

    /// The members ready now, with what they are ready for; never waits. Throws ``Failure`` for an
    /// `errno` of `epoll_wait` other than EINTR.
    package func ready() throws(Failure) -> [(member: Int32, events: UInt32)] {
        let count = epoll_wait(descriptor, &events, Int32(events.count), 0)
        if count < 0 {
            if errno == EINTR { return [] }
            throw Failure(call: "epoll_wait", code: errno)
        }
        return events[0..<Int(count)].map { ($0.data.fd, $0.events) }
    }

    /// Whether `events` (from ``ready()``) say the member can be read, or hung up or failed (a
    /// read then tells which).
    package static func isReadable(_ events: UInt32) -> Bool {
        events & UInt32(EPOLLIN.rawValue | EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0
    }

    /// Whether `events` (from ``ready()``) say the member can be written.
    package static func isWritable(_ events: UInt32) -> Bool {
        events & UInt32(EPOLLOUT.rawValue) != 0
    }

    private func control(_ operation: Int32, _ member: Int32, _ events: UInt32) -> Bool {
        var event = epoll_event()
        event.events = events
        event.data.fd = member
        return epoll_ctl(descriptor, operation, member, &event) == 0
    }
}
