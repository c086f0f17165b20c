import BadgeIO
import BadgeSources
import Glibc

/// The sources tests' driver: one `poll()` over the descriptors and deadlines of the sources under
/// test, which counts what was ready, so a test can say "nothing woke it". Programs drive sources
/// with BadgeIO's `EventLoop` and a `SourceGroup` (the library's only way); this is test support.
///
/// Not Sendable: the thread that runs it is the sources' loop thread.
final class SourceLoop {
    /// The sources driven, in the order added.
    private(set) var sources: [any BadgeSource] = []

    /// A loop over `sources` (none started yet).
    init(sources: [any BadgeSource] = []) {
        self.sources = sources
    }

    /// Adds a source (``start()`` or ``BadgeSource/start()`` starts it).
    func add(_ source: any BadgeSource) {
        sources.append(source)
    }

    /// Starts every source: each takes its first reading.
    func start() {
        for source in sources { source.start() }
    }

    /// Stops every source.
    func stop() {
        for source in sources { source.stop() }
    }

    /// Seconds until the earliest source deadline (0 when one is already due); nil when no source
    /// has one, which is when an idle loop has no wakeups.
    var timeUntilDue: Double? {
        sources.compactMap(\.timeUntilDue).min().map { max(0, $0) }
    }

    /// Waits in `poll()` at most `timeout` seconds (nil: as long as it takes) or until the earliest
    /// deadline, then hands each ready descriptor to its source and runs the deadlines that are
    /// due. Returns how many descriptors were ready (0 after a timeout or a deadline).
    @discardableResult
    func runOnce(timeout: Double?) -> Int {
        let owners = sources.flatMap { source in source.descriptors.map { (descriptor: $0, source: source) } }
        var entries = owners.map { owner in
            pollfd(fd: owner.descriptor, events: Int16(POLLIN) | (owner.source.writableDescriptors.contains(owner.descriptor) ? Int16(POLLOUT) : 0),
                   revents: 0)
        }
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
            if entry.revents & Int16(POLLOUT) != 0, owner.source.writableDescriptors.contains(owner.descriptor) {
                owner.source.handle(writable: owner.descriptor)
            }
            if entry.revents & ~Int16(POLLOUT) != 0, owner.source.descriptors.contains(owner.descriptor) {
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
    func run(atMost seconds: Double, until condition: () -> Bool) -> Bool {
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
