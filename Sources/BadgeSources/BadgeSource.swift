/// Something that tells a badge what to show (a Maildir folder, a command, a notmuch query), driven
/// by one event loop through descriptors and deadlines.
///
/// A source never blocks and never starts a thread: the loop polls ``descriptors`` for
/// readability, calls ``handle(readable:)`` for each one that is ready, and calls
/// ``handleDeadline()`` once ``timeUntilDue`` has passed. Idle, a source has no deadline, so the
/// loop has no wakeups. Sources are not Sendable: create and use one on the loop's thread only.
public protocol BadgeSource: AnyObject {
    /// What the source says now.
    var reading: SourceReading { get }
    /// Called on the loop's thread whenever ``reading`` changes, the first reading taken by ``start()``
    /// included (never for a reading equal to the last).
    var onChange: ((SourceReading) -> Void)? { get set }
    /// Takes the first reading right away, before any event (a command is started), and sets up
    /// the watches. Calling it again while started does nothing.
    func start()
    /// The descriptors to poll for readability now; they may change after any call on the source.
    var descriptors: [Int32] { get }
    /// Reads what `descriptor` (one of ``descriptors``) has ready, without blocking.
    func handle(readable descriptor: Int32)
    /// The descriptors (among ``descriptors``) to poll for room to write now: a connect under way,
    /// output that did not fit. Empty by default.
    var writableDescriptors: [Int32] { get }
    /// Writes what waits on `descriptor` (one of ``writableDescriptors``), without blocking.
    func handle(writable descriptor: Int32)
    /// Seconds until ``handleDeadline()`` is due (0 or less: now); nil when the source waits only
    /// for its descriptors.
    var timeUntilDue: Double? { get }
    /// Does what was due: a debounced recount, the next run, a timeout.
    func handleDeadline()
    /// Reads again now, on demand (a command that is running finishes first, then runs again).
    func refresh()
    /// Stops watching and ends any child process; ``descriptors`` is empty afterwards.
    func stop()
    /// Marks the items with `keys` read (all it counted at its last reading for nil); `done` says
    /// how it went. A source that cannot says so (the default).
    func markRead(_ keys: [String]?, done: @escaping (MarkReadOutcome) -> Void)
}

extension BadgeSource {
    /// No descriptor waits for room to write.
    public var writableDescriptors: [Int32] { [] }
    /// Nothing to write.
    public func handle(writable descriptor: Int32) {}
}

extension BadgeSource {
    /// Marks the items with `keys` read; with nil, every item the source counted at its last
    /// reading (never one that came after it). `done` is called once, on the loop's thread, maybe
    /// before this returns. By default a source cannot: `done` says so.
    public func markRead(_ keys: [String]?, done: @escaping (MarkReadOutcome) -> Void) {
        done(.failed("\(reading.description) cannot mark anything read"))
    }
}
