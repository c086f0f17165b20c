import BadgeIO
import Glibc

/// A minimal single-threaded driver for sources: one `poll()` over the descriptors and deadlines
/// of every source, for tests and small programs. Applications with an event loop of their own
/// adapt each source to it instead (the same four members: ``BadgeSource/descriptors``,
/// ``BadgeSource/handle(readable:)``, ``BadgeSource/timeUntilDue``, ``BadgeSource/handleDeadline()``).
///
/// Not Sendable: the thread that runs it is the sources' loop thread.
public final class SourceLoop {
    /// The sources driven, in the order added.
    public private(set) var sources: [any BadgeSource] = []

    /// A loop over `sources` (none started yet).
    public init(sources: [any BadgeSource] = []) {
        self.sources = sources
    }

    /// Adds a source (``start()`` or ``BadgeSource/start()`` starts it).
    public func add(_ source: any BadgeSource) {
        sources.append(source)
    }

    /// Starts every source: each takes its first reading.
    public func start() {
        for source in sources { source.start() }
    }

    /// Stops every source.
    public func stop() {
        for source in sources { source.stop() }
    }

    /// Seconds until the earliest source deadline (0 when one is already due); nil when no source
    /// has one, which is when an idle loop has no wakeups.
    public var timeUntilDue: Double? {
        sources.compactMap(\.timeUntilDue).min().map { max(0, $0) }
    }

    /// Waits in `poll()` at most `timeout` seconds (nil: as long as it takes) or until the earliest
    /// deadline, then hands each ready descriptor to its source and runs the deadlines that are
    /// due. Returns how many descriptors were ready (0 after a timeout or a deadline).
    @discardableResult
    public func runOnce(timeout: Double?) -> Int {
        let owners = sources.flatMap { source in source.descriptors.map { (descriptor: $0, source: source) } }
        var entries = owners.map { pollfd(fd: $0.descriptor, events: Int16(POLLIN), revents: 0) }
        let wait = [timeout, timeUntilDue].compactMap { $0 }.min()
        let milliseconds = wait.map { Int32(min(Double(Int32.max), max(0, ($0 * 1000).rounded(.up)))) } ?? -1
        var ready = entries.withUnsafeMutableBufferPointer { buffer in
            poll(buffer.baseAddress, nfds_t(buffer.count), milliseconds)
        }
        if ready < 0 {
            ready = 0  // EINTR: the caller loops anyway
        }
        for (index, entry) in entries.enumerated() where entry.revents != 0 {
            let owner = owners[index]
            // A source that has already dropped this descriptor (another one's handling closed it) skips it.
            if owner.source.descriptors.contains(owner.descriptor) {
                owner.source.handle(readable: owner.descriptor)
            }
        }
        for source in sources {
            if let due = source.timeUntilDue, due <= 0 { source.handleDeadline() }
        }
        return Int(ready)
    }

    /// Runs ``runOnce(timeout:)`` until `condition` holds or `seconds` have passed; returns whether
    /// the condition held (checked before the first wait too).
    public func run(atMost seconds: Double, until condition: () -> Bool) -> Bool {
        let end = monotonicSeconds() + seconds
        while !condition() {
            let left = end - monotonicSeconds()
            if left <= 0 { return false }
            runOnce(timeout: left)
        }
        return true
    }

    private func monotonicSeconds() -> Double { SystemTime.monotonic }
}
