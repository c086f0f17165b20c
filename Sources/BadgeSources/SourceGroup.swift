import BadgeIO
import CGlibcExtras
import Glibc

/// Sources on a BadgeIO `EventLoop`: one loop source (an epoll descriptor holding every
/// source's descriptors, kept in step before each wait), one deadline (the earliest source's) and
/// one preparation (the sources that are due get their turn). Idle sources cost the loop nothing.
///
/// Not Sendable: the loop's thread only.
public final class SourceGroup {
    /// The sources, in the order added.
    public private(set) var sources: [any BadgeSource] = []
    private let epoll: EpollSet
    /// Each watched descriptor, with the index of the source it belongs to and the events watched.
    private var watched: [Int32: (index: Int, events: UInt32)] = [:]
    /// The sources' descriptors (readable, then writable), in order, when the set was last made to match them.
    private var lastDescriptors: [Int32] = []

    /// Creates an empty group.
    /// - Throws: ``SourceSetupError`` when the kernel gives no epoll descriptor.
    public init() throws(SourceSetupError) {
        do { epoll = try EpollSet() } catch { throw SourceSetupError("the sources' epoll descriptor: \(error)") }
    }

    deinit {
        for source in sources { source.stop() }
    }

    /// Adds `source` and starts it (its first reading comes at once).
    public func add(_ source: any BadgeSource) {
        sources.append(source)
        source.start()
        synchronize()
    }

    /// Stops and removes `source`.
    public func remove(_ source: any BadgeSource) {
        source.stop()
        sources.removeAll { $0 === source }
        synchronize()
    }

    /// Adds the group to `loop` (named "sources").
    public func attach(to loop: EventLoop) {
        loop.add(EventLoop.Source(name: "sources", descriptor: { [weak self] in self?.epoll.descriptor }, interest: { .readable },
                                  handle: { [weak self] _ in self?.dispatch() }))
        loop.addDeadline(named: "sources") { [weak self] in self?.timeUntilDue }
        loop.addPreparation(named: "sources") { [weak self] in
            guard let self else { return false }
            // A source's descriptors also change outside its turns (a connection it opens in answer
            // to a reply on a bus someone else polls): compared every turn, the epoll set touched
            // only when they differ.
            if self.runDue() || self.currentDescriptors() != self.lastDescriptors { self.synchronize() }
            return false
        }
    }

    /// Seconds until the earliest source is due; nil when none has a deadline.
    public var timeUntilDue: Double? {
        sources.compactMap(\.timeUntilDue).min()
    }

    /// Gives each due source its turn; true when one had it.
    @discardableResult
    public func runDue() -> Bool {
        var ran = false
        for source in sources {
            if let due = source.timeUntilDue, due <= 0 {
                source.handleDeadline()
                ran = true
            }
        }
        return ran
    }

    /// Reads `source` (one of the group's) again now, and watches what it opens for that.
    public func refresh(_ source: any BadgeSource) {
        source.refresh()
        synchronize()
    }

    /// Hands each ready descriptor to its source.
    private func dispatch() {
        // A failed wait (it cannot, short of a bug) is tried again at the next readiness.
        for (descriptor, events) in (try? epoll.ready()) ?? [] {
            guard let index = watched[descriptor]?.index, index < sources.count else { continue }
            if EpollSet.isWritable(events) { sources[index].handle(writable: descriptor) }
            if EpollSet.isReadable(events) { sources[index].handle(readable: descriptor) }
        }
        synchronize()
    }

    private func currentDescriptors() -> [Int32] {
        sources.flatMap { $0.descriptors + [-2] + $0.writableDescriptors }
    }

    /// Makes the epoll set hold exactly the sources' descriptors now.
    private func synchronize() {
        lastDescriptors = currentDescriptors()
        var wanted: [Int32: (index: Int, events: UInt32)] = [:]
        for (index, source) in sources.enumerated() {
            for descriptor in source.descriptors where descriptor >= 0 { wanted[descriptor] = (index, EpollSet.readable) }
            for descriptor in source.writableDescriptors where descriptor >= 0 {
                wanted[descriptor] = (index, (wanted[descriptor]?.events ?? 0) | EpollSet.writable)
            }
        }
        for (descriptor, _) in watched where wanted[descriptor] == nil {
            epoll.remove(descriptor)
        }
        // Every wanted descriptor is added again (EEXIST when it is there): one closed and
        // reopened under the same number left the set when it was closed. One whose events
        // changed is modified.
        for (descriptor, entry) in wanted where !epoll.add(descriptor, events: entry.events) {
            if errno == EEXIST, watched[descriptor]?.events != entry.events { epoll.modify(descriptor, events: entry.events) }
        }
        watched = wanted
    }
}
