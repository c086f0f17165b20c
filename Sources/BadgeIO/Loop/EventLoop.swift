import BadgeCore
import Glibc

/// A poll() loop over named sources: descriptors to watch, work to do before sleeping, and
/// deadlines. Idle means zero wakeups: with no deadline due, it sleeps in poll() until a descriptor
/// is ready.
///
/// Each turn runs every preparation (in the order added; one that reports more work makes the turn
/// start again without sleeping), then sleeps until a source is ready or the earliest deadline
/// passes, then hands each ready source its readiness. BadgeX11's `ToolbarHost` attaches itself with
/// `attach(to:)`; an application adds its own sources beside it.
///
/// Not Sendable: it runs on the thread that owns the handles its sources use.
public final class EventLoop {
    /// What a source waits for.
    public struct Interest: OptionSet, Hashable, Sendable {
        /// The descriptor has data to read (or hung up).
        public static let readable = Interest(rawValue: 1)
        /// The descriptor accepts writes.
        public static let writable = Interest(rawValue: 2)
        /// The raw bits.
        public let rawValue: Int
        /// Creates an interest from its raw bits.
        public init(rawValue: Int) { self.rawValue = rawValue }
    }

    /// What poll() reported for a source.
    public struct Readiness: Hashable, Sendable {
        /// Data can be read.
        public var readable: Bool
        /// A write would not block.
        public var writable: Bool
        /// The descriptor hung up or failed (POLLHUP, POLLERR, POLLNVAL).
        public var failed: Bool

        /// Creates a readiness (for a loop of your own that services BadgeKit's sources).
        public init(readable: Bool, writable: Bool, failed: Bool) {
            self.readable = readable
            self.writable = writable
            self.failed = failed
        }
    }

    /// A descriptor to watch, by name ("x11", "control-input").
    public struct Source {
        /// A name for messages and tests.
        public var name: String
        /// The descriptor, or nil while there is none (then it is not watched).
        public var descriptor: () -> Int32?
        /// What to wait for now; empty: not watched this turn.
        public var interest: () -> Interest
        /// Called when poll() reports the descriptor.
        public var handle: (Readiness) throws -> Void

        /// Creates a source.
        public init(name: String, descriptor: @escaping () -> Int32?, interest: @escaping () -> Interest,
                    handle: @escaping (Readiness) throws -> Void) {
            self.name = name
            self.descriptor = descriptor
            self.interest = interest
            self.handle = handle
        }
    }

    private struct Preparation {
        let name: String
        let body: () throws -> Bool
    }

    private struct Deadline {
        let name: String
        let next: () -> Double?
    }

    private var sources: [Source] = []
    private var preparations: [Preparation] = []
    private var deadlines: [Deadline] = []
    private var stopped = false
    private var pollSet: [pollfd] = []
    private var polled: [Int] = []
    /// Creates an empty loop.
    public init() {}

    /// The names of the sources, preparations and deadlines, in order (for tests and messages).
    public var names: (sources: [String], preparations: [String], deadlines: [String]) {
        (sources.map(\.name), preparations.map(\.name), deadlines.map(\.name))
    }

    /// Watches a descriptor.
    public func add(_ source: Source) {
        sources.append(source)
    }

    /// Runs `body` before every sleep; it returns true when it left work that needs another turn
    /// before sleeping (for example events already queued inside XCB).
    public func addPreparation(named name: String, _ body: @escaping () throws -> Bool) {
        preparations.append(Preparation(name: name, body: body))
    }

    /// Wakes the loop after the number of seconds `next` returns, or never while it returns nil.
    /// Zero or less (a deadline in the past) wakes it at once.
    public func addDeadline(named name: String, _ next: @escaping () -> Double?) {
        deadlines.append(Deadline(name: name, next: next))
    }

    /// Makes ``run()`` return after the current turn.
    public func stop() {
        stopped = true
    }

    /// True once ``stop()`` was called (until the next ``run()``).
    public var isStopped: Bool { stopped }

    /// Runs turns until ``stop()``; rethrows the first error a source or preparation throws.
    public func run() throws {
        stopped = false
        while !stopped {
            try runOnce(until: nil)
        }
    }

    /// Runs one turn, sleeping at most `limit` seconds (nil: no limit of its own). Zero or a
    /// negative limit makes the turn poll without sleeping.
    public func runOnce(until limit: Double?) throws {
        var again = true
        var rounds = 0
        while again, !stopped {
            again = false
            for preparation in preparations {
                if try preparation.body() { again = true }
                if stopped { return }
            }
            rounds += 1
            // Work keeps arriving: poll without sleeping rather than starve the descriptors.
            if rounds >= 64 { break }
        }
        if stopped { return }
        var wake = limit
        for deadline in deadlines {
            if let time = deadline.next(), time.isFinite { wake = min(wake ?? time, time) }
        }
        pollSet.removeAll(keepingCapacity: true)
        polled.removeAll(keepingCapacity: true)
        for (index, source) in sources.enumerated() {
            let interest = source.interest()
            guard !interest.isEmpty, let fd = source.descriptor(), fd >= 0 else { continue }
            var events: Int16 = 0
            if interest.contains(.readable) { events |= Int16(POLLIN) }
            if interest.contains(.writable) { events |= Int16(POLLOUT) }
            pollSet.append(pollfd(fd: fd, events: events, revents: 0))
            polled.append(index)
        }
        let timeout = again ? 0 : Self.timeoutMilliseconds(after: wake)
        let ready = poll(&pollSet, nfds_t(pollSet.count), timeout)
        if ready < 0 {
            if errno == EINTR { return }
            throw SystemError("the event loop", reason: "poll failed: \(String(cString: strerror(errno)))")
        }
        guard ready > 0 else { return }
        for (slot, index) in polled.enumerated() where pollSet[slot].revents != 0 {
            let revents = pollSet[slot].revents
            let readiness = Readiness(readable: revents & Int16(POLLIN) != 0, writable: revents & Int16(POLLOUT) != 0,
                                      failed: revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0)
            try sources[index].handle(readiness)
            if stopped { return }
        }
    }

    /// The poll() timeout for a wake-up `seconds` from now: -1 (sleep until a descriptor is ready)
    /// without one, 0 for one already due, else the milliseconds until it, rounded up so the loop
    /// never wakes early and spins.
    public static func timeoutMilliseconds(after seconds: Double?) -> Int32 {
        guard let remaining = seconds, !remaining.isNaN else { return -1 }
        guard remaining > 0 else { return 0 }
        guard remaining.isFinite else { return -1 }
        return Int32(min(3_600_000, (remaining * 1000).rounded(.up)))
    }
}
