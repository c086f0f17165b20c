import BadgeControl
import BadgeCore
import BadgeIO
import CGlibcExtras

/// The number of messages a notmuch query matches (`notmuch count QUERY`), counted again whenever
/// the database changes.
///
/// The source runs `notmuch count` as a child (the command source's rules: no shell, a timeout,
/// no blocking; libnotmuch is not linked) at the start, on ``refresh()``, and ``debounce`` seconds
/// after the last write to the database: it watches the Xapian folder (`DB/.notmuch/xapian`, or
/// notmuch's XDG location) with inotify for the end of every write session (see
/// `NotmuchDatabase`), as i3status-rust's notmuch block does since its PR #2205. It never polls:
/// idle, it causes no wakeups. Without a `databasePath` it asks `notmuch config get database.path`
/// first. A database that does not exist yet is waited for (its parent folder is watched).
///
/// After each count, `notmuch search --format=json --limit=200` lists the matching threads as the
/// reading's items (authors, subject, date; newest first), keyed by thread id; ``open`` is what
/// activating one runs. The count stays the messages' count.
///
/// Not Sendable: create and use it on the loop's thread.
public final class NotmuchSource: BadgeSource {
    /// The query (notmuch's search syntax: `tag:unread and not tag:spam`).
    public let query: String
    /// Seconds to wait after the last change of the database before counting.
    public let debounce: Double
    /// What activating a thread runs (no shell; `{thread}` becomes its id), or nil.
    public let open: [String]?
    private var search: ChildRun?
    /// `notmuch tag -unread` runs under way, each with whom to tell.
    private var tagRuns: [(run: ChildRun, done: (MarkReadOutcome) -> Void)] = []
    private var searchAgain = false
    private var threads: BadgeItemList?

    /// What the source says now.
    public private(set) var reading: SourceReading
    /// Called whenever ``reading`` changes.
    public var onChange: ((SourceReading) -> Void)?

    private let program: String
    private let environment: [String: String?]
    private let timeout: Double
    private let counter: CommandSource
    private var databasePath: String?
    private var lookup: ChildRun?
    private var inotify: Inotify?
    private var xapianWatch: Int32?
    private var aboveWatches: [Int32: Set<String>] = [:]
    private var watchProblem: Sentence?
    private var countAt: Double?
    private var started = false

    /// The events of the Xapian folder that matter (see `NotmuchDatabase`), and its own removal.
    private static let xapianMask = UInt32(bitPattern: IN_CLOSE_WRITE | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)
    /// A folder above a Xapian folder that does not exist (yet): the next folder down appearing.
    private static let aboveMask = UInt32(bitPattern: IN_CREATE | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)

    /// A source for `query`.
    ///
    /// - Parameters:
    ///   - query: notmuch search terms, passed after `--` as one argument.
    ///   - databasePath: the mail root (notmuch's `database.path`); nil to ask notmuch.
    ///   - program: the notmuch program (looked up on PATH).
    ///   - debounce: seconds after the last database change before counting.
    ///   - timeout: seconds a notmuch run may take.
    ///   - environment: variables for notmuch on top of this process's (`NOTMUCH_CONFIG`,
    ///     `NOTMUCH_PROFILE`); also used to find the database.
    ///   - open: what activating a listed thread runs (`{thread}` is replaced), or nil.
    public init(query: String, databasePath: String? = nil, program: String = "notmuch", debounce: Double = 0.1,
                timeout: Double = 10, environment: [String: String] = [:], open: [String]? = nil) {
        self.query = query
        self.open = open
        self.databasePath = databasePath
        self.program = program
        self.debounce = max(0, debounce)
        self.timeout = timeout
        self.environment = environment.mapValues { Optional($0) }
        counter = CommandSource(arguments: [program, "count", "--", query], timeout: timeout, environment: environment,
                                description: "notmuch count \(query)")
        reading = SourceReading(said: Sentence("notmuch count %s", .text(query)))
        counter.onChange = { [weak self] _ in
            self?.searchThreads()
            self?.publish()
        }
    }

    /// The Xapian folder watched, once known and present.
    public private(set) var watchedFolder: String?

    /// The inotify descriptor and those of a notmuch run in progress.
    public var descriptors: [Int32] {
        var result = counter.descriptors + (lookup?.descriptors ?? []) + (search?.descriptors ?? []) + tagRuns.flatMap(\.run.descriptors)
        if let fd = inotify?.descriptor, fd >= 0 { result.append(fd) }
        return result
    }

    /// Seconds until a debounced count or a run's time limit; nil when idle.
    public var timeUntilDue: Double? {
        let debounced = countAt.map { $0 - SystemTime.monotonic }
        return ([counter.timeUntilDue, lookup?.timeUntilDue, search?.timeUntilDue, debounced] + tagRuns.map(\.run.timeUntilDue))
            .compactMap { $0 }.min()
    }

    /// Counts, and watches the database (asking notmuch where it is first, if needed).
    public func start() {
        guard !started else { return }
        started = true
        inotify = Inotify()
        counter.start()
        if databasePath == nil {
            lookup = ChildRun(arguments: [program, "config", "get", "database.path"], environment: environment,
                              timeLimit: timeout, outputLimit: 64 * 1024)
            finishLookupIfDone()
        } else {
            arm()
        }
    }

    /// Reads a notmuch run's output, or the database's changes.
    public func handle(readable descriptor: Int32) {
        if let inotify, descriptor == inotify.descriptor {
            readEvents()
        } else if let lookup, lookup.descriptors.contains(descriptor) {
            lookup.handle(readable: descriptor)
            finishLookupIfDone()
        } else if let search, search.descriptors.contains(descriptor) {
            search.handle(readable: descriptor)
            finishSearchIfDone()
        } else if let tag = tagRuns.first(where: { $0.run.descriptors.contains(descriptor) }) {
            tag.run.handle(readable: descriptor)
            finishTagRuns()
        } else {
            counter.handle(readable: descriptor)
        }
    }

    /// Counts once the database has been quiet for ``debounce`` seconds; checks runs' time limits.
    public func handleDeadline() {
        if let lookup {
            lookup.handleDeadline()
            finishLookupIfDone()
        }
        if let due = counter.timeUntilDue, due <= 0 { counter.handleDeadline() }
        if let search, let due = search.timeUntilDue, due <= 0 {
            search.handleDeadline()
            finishSearchIfDone()
        }
        for tag in tagRuns {
            if let due = tag.run.timeUntilDue, due <= 0 { tag.run.handleDeadline() }
        }
        finishTagRuns()
        if let countAt, countAt <= SystemTime.monotonic {
            self.countAt = nil
            counter.refresh()
        }
    }

    /// Counts now (and watches again, should the database have appeared).
    public func refresh() {
        guard started else { return start() }
        if databasePath != nil { arm() }
        countAt = nil
        counter.refresh()
    }

    /// Marks the threads with these keys (thread ids) read: `notmuch tag -unread -- thread:ID or …`,
    /// run as a child with the source's time limit (no shell); nil marks the threads listed at the
    /// last reading (never one that came after). The database's change is then counted as any is.
    public func markRead(_ keys: [String]?, done: @escaping (MarkReadOutcome) -> Void) {
        let ids = keys ?? (threads?.items.map(\.key) ?? [])
        guard !ids.isEmpty else { return done(.marked) }
        // Thread ids are notmuch's own (hex digits): anything else would change the query's meaning.
        if let bad = ids.first(where: { $0.isEmpty || $0.utf8.count > 64 || !$0.unicodeScalars.allSatisfy { $0.properties.isASCIIHexDigit } }) {
            return done(.failed("no notmuch thread \(bad.prefix(64)) (a thread id is hex digits)"))
        }
        let terms = ids.map { "thread:\($0)" }.joined(separator: " or ")
        let run = ChildRun(arguments: [program, "tag", "-unread", "--", terms], environment: environment, timeLimit: timeout,
                           outputLimit: 64 * 1024)
        tagRuns.append((run, done))
        finishTagRuns()
    }

    private func finishTagRuns() {
        var finished: [(outcome: ChildOutcome, done: (MarkReadOutcome) -> Void)] = []
        tagRuns.removeAll { tag in
            guard let outcome = tag.run.outcome else { return false }
            finished.append((outcome, tag.done))
            return true
        }
        for (outcome, done) in finished {
            if outcome.succeeded {
                // Counted again now, not after the database's debounce.
                countAt = SystemTime.monotonic
                done(.marked)
            } else if let failure = outcome.spawnFailure {
                done(.failed("cannot run \(program) tag: \(failure)"))
            } else if case .timedOut(let limit)? = outcome.cutoff {
                done(.failed("notmuch tag -unread took longer than \(Int(limit)) s and was stopped"))
            } else {
                let status = outcome.exitStatus.map { "exit status \($0)" } ?? outcome.signal.map { "signal \($0)" } ?? "a cutoff"
                done(.failed("notmuch tag -unread failed (\(status))" + (outcome.lastErrorLine.map { ": \($0)" } ?? "")))
            }
        }
    }

    /// Stops watching and ends a notmuch run in progress.
    public func stop() {
        for tag in tagRuns { tag.run.cancel(); tag.done(.failed("the notmuch source stopped")) }
        tagRuns = []
        counter.stop()
        lookup = nil
        search?.cancel()
        search = nil
        inotify?.close()
        inotify = nil
        xapianWatch = nil
        aboveWatches = [:]
        watchedFolder = nil
        countAt = nil
        started = false
    }

    private func finishLookupIfDone() {
        guard let outcome = lookup?.outcome else { return }
        lookup = nil
        let path = String(decoding: outcome.output, as: UTF8.self).trimmingWhitespace()
        if outcome.succeeded, path.hasPrefix("/") || path.hasPrefix("~/") {
            databasePath = path
            arm()
        } else {
            let why = outcome.spawnFailure.map { Sentence(verbatim: "\($0)") } ?? outcome.lastErrorLine.map { Sentence("notmuch says: %s", .text($0)) }
                ?? Sentence("`notmuch config get database.path` gave no path")
            watchProblem = Sentence("cannot find the notmuch database, so changes are not seen (counts only on refresh): %s", .sentence(why))
            publish()
        }
    }

    /// Watches the Xapian folder, or the nearest existing folder above it until it appears.
    private func arm() {
        guard let inotify, let databasePath else { return }
        let candidates = NotmuchDatabase.xapianCandidates(databasePath: databasePath, environment: environment)
        let present = candidates.first(where: FilePaths.isFolder)
        let old = Set(aboveWatches.keys).union(xapianWatch.map { [$0] } ?? [])
        xapianWatch = nil
        aboveWatches = [:]
        watchedFolder = nil
        watchProblem = nil
        var kept = Set<Int32>()
        if let present {
            switch inotify.watch(present, mask: Self.xapianMask) {
            case .success(let wd):
                xapianWatch = wd
                kept.insert(wd)
                watchedFolder = present
            case .failure(let failure):
                watchProblem = Sentence("cannot watch %1$s (%2$s): changes are not seen", .text(FilePaths.abbreviatingHome(failure.path)), .text(failure.reason))
            }
        } else {
            let shown = FilePaths.abbreviatingHome(candidates.first ?? databasePath)
            watchProblem = Sentence("no notmuch database at %s yet (run `notmuch new`)", .text(shown))
        }
        // The folder above the Xapian folder: `notmuch compact` replaces it; a new database creates it.
        for candidate in present.map({ [$0] }) ?? candidates {
            guard let (above, next) = FilePaths.nearestExistingAncestor(of: candidate) else { continue }
            if case .success(let wd) = inotify.watch(above, mask: Self.aboveMask) {
                aboveWatches[wd, default: []].insert(next)
                kept.insert(wd)
            }
        }
        for wd in old where !kept.contains(wd) { inotify.unwatch(wd) }
        publish()
    }

    private func readEvents() {
        guard let inotify else { return }
        var changed = false, rearm = false
        for event in inotify.readEvents() {
            if event.isOverflow {
                changed = true
            } else if event.watch == xapianWatch {
                if event.has(IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED) {
                    rearm = true
                } else if NotmuchDatabase.signalNames.contains(event.name) {
                    changed = true
                }
            } else if let names = aboveWatches[event.watch] {
                if event.has(IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED) || names.contains(event.name) { rearm = true }
            }
        }
        if rearm {
            arm()
            changed = true
        }
        if changed { countAt = SystemTime.monotonic + debounce }
    }

    /// Lists the threads after a count (again once the run in progress ends).
    private func searchThreads() {
        guard counter.reading.content != nil, !counter.reading.isStale else { return }
        if search != nil {
            searchAgain = true
            return
        }
        search = ChildRun(arguments: [program, "search", "--format=json", "--limit=\(BadgeItemList.maximumCount)", "--", query],
                          environment: environment, timeLimit: timeout, outputLimit: 4 * 1024 * 1024)
        finishSearchIfDone()
    }

    private func finishSearchIfDone() {
        guard let outcome = search?.outcome else { return }
        search = nil
        // A failed listing keeps the count; the threads stay as they were.
        if outcome.succeeded, let list = try? Self.threads(fromJSON: outcome.output, open: open) { threads = list }
        if searchAgain {
            searchAgain = false
            searchThreads()
        }
        publish()
    }

    /// The threads of `notmuch search --format=json` as items: authors, subject, date.
    package static func threads(fromJSON bytes: [UInt8], open: [String]?) throws -> BadgeItemList {
        guard case .array(let entries) = try JSONValue.parse(bytes) else { return BadgeItemList() }
        var items: [BadgeItem] = []
        for entry in entries {
            guard let thread = entry["thread"]?.string else { continue }
            let action = open.map { words in BadgeItemAction.run(words.map { $0.replacingAll("{thread}", with: thread) }) }
            items.append(BadgeItem(key: thread, title: entry["authors"]?.string ?? "(unknown)",
                                   detail: entry["subject"]?.string, time: entry["timestamp"]?.double, origin: "notmuch",
                                   iconName: "mail", action: action))
        }
        // notmuch lists the newest first; threads of the same second keep its order.
        return BadgeItemList(newestFirst: items)
    }

    private func publish() {
        var next = counter.reading
        next.items = next.content == nil ? nil : threads
        next.description = reading.description
        next.descriptionSentence = reading.descriptionSentence
        if let watchProblem {
            next.fail(next.errorToSay.map { Sentence("%1$s; %2$s", .sentence($0), .sentence(watchProblem)) } ?? watchProblem)
            next.isStale = true
        }
        guard next != reading else { return }
        reading = next
        onChange?(next)
    }
}
