import BadgeCore
import BadgeIO
import CGlibcExtras
import Glibc

/// The unread messages of one or more Maildir folders, kept exact by inotify without rescanning.
///
/// Unread means every file in `new/` plus the files in `cur/` whose flags (after `:2,`) lack `S`
/// (seen); files flagged `T` (trashed, not yet expunged) never count. With ``newOnly`` only
/// `new/` counts, as i3status-rust's maildir block does (a message opened and left unread is then
/// no longer counted). Which folders a path means: see ``init(paths:folders:newOnly:description:open:)``.
///
/// The source watches `new/` and `cur/` of every folder, the folder itself (for `new/` or `cur/`
/// replaced) and the folder above it (for the folder removed, renamed or created later). Each
/// delivery, move or flag change updates a set of file names, so the count stays exact without
/// reading the folder again; the folders are read again (readdir, no stat per file) only after
/// an inotify queue overflow, when a watched folder is replaced, removed or created, and on
/// ``refresh()``. A missing folder gives a stale reading with an error, and is counted again as
/// soon as it appears. A count of 0 is `.count(0)` (a badge shows no bubble for it), so "no
/// unread mail" stays distinct from "no value yet" (nil). The source never has a deadline: idle,
/// it causes no wakeups.
///
/// Not Sendable: create and use it on the loop's thread.
public final class MaildirSource: BadgeSource {
    /// The paths as given (`~` allowed; glob(3) wildcards allowed).
    public let paths: [String]
    /// The folder names inside each path (empty: the path itself, or its inbox).
    public let folders: [String]
    /// Whether only `new/` counts.
    public let newOnly: Bool
    /// What activating a message runs (see ``init(paths:folders:newOnly:description:open:)``).
    public let open: [String]?

    /// The messages listed as items, newest by delivery first: at most this many headers are read.
    public static let listedMessages = BadgeItemList.maximumCount
    private let headers = MailHeaderDecoder()
    /// Each listed message's item, by its file's path (a flag change renames it: read again).
    private var itemCache: [String: BadgeItem] = [:]
    /// Every unread message at the last reading (listed or not), by its item's key: where its file
    /// is, for marking it read.
    private var unreadFiles: [String: (folder: String, name: String, inNew: Bool)] = [:]

    /// What the source says now.
    public private(set) var reading: SourceReading
    /// Called whenever ``reading`` changes.
    public var onChange: ((SourceReading) -> Void)?

    private enum Role: Equatable {
        case messages(folder: Int, inNew: Bool)
        /// The folder itself: `new/` or `cur/` made, removed or replaced.
        case folder(Int)
        /// The nearest existing folder above: these names appearing or going.
        case above(Int, names: Set<String>)
        /// A folder where new matches of a glob may appear: these names (nil: any folder).
        case lookout(names: Set<String>?)
    }

    private var inotify: Inotify?
    private var roles: [Int32: [Role]] = [:]
    private var counts: [MaildirFolderCount] = []
    private var patternProblems: [Sentence] = []
    private var started = false
    /// How many times the folders were worked out and read from scratch (start, refresh, overflow,
    /// a folder replaced), for tests.
    package private(set) var rebuildCount = 0

    /// Everything a watched folder reports that matters here.
    private static let mask = UInt32(bitPattern: IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO
                                     | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)

    /// A source for `paths`:
    /// - a path that is a Maildir (has `cur/`, `new/` and `tmp/`) is that folder;
    /// - a path that holds Maildirs (mbsync or offlineimap's `~/Mail` with `INBOX/`; a Maildir++
    ///   root with `.Folder/`s) means its inbox (`INBOX`, `Inbox`, `inbox`, or the Maildir++ root
    ///   itself), or the `folders` named (`Work` is `Work/` or `.Work/`);
    /// - glob(3) wildcards (`~/Mail/*/`) mean every matching folder that is one of the above,
    ///   looked up again when a folder appears in the folder that holds the first wildcard (or a
///   match becomes a Maildir), when a counted folder goes, and on ``refresh()``.
    ///
    /// - Parameters:
    ///   - paths: the folders, trees or glob patterns (`~` allowed).
    ///   - folders: folder names inside each path; empty for the path itself or its inbox.
    ///   - newOnly: count `new/` only.
    ///   - description: how to name the source to people; by default the paths (with `~`).
    ///   - open: what activating a message in the peek runs (no shell): the program and its
    ///     arguments, where `{path}` becomes the message file's path and `{message-id}` its
    ///     Message-ID (`["neomutt", "-f", "{path}"]`); nil: a message does nothing.
    public init(paths: [String], folders: [String] = [], newOnly: Bool = false, description: String? = nil,
                open: [String]? = nil) {
        self.paths = paths
        self.folders = folders
        self.newOnly = newOnly
        self.open = open
        var shown = paths.map { FilePaths.abbreviatingHome(FilePaths.trimmingSlashes(FilePaths.expandingTilde($0))) }.joined(separator: ", ")
        if !folders.isEmpty { shown += " (" + folders.joined(separator: ", ") + ")" }
        if newOnly { shown += ", new only" }
        reading = SourceReading(description: description ?? shown)
    }

    /// A source for one path; see ``init(paths:folders:newOnly:description:open:)``.
    public convenience init(path: String, folders: [String] = [], newOnly: Bool = false) {
        self.init(paths: [path], folders: folders, newOnly: newOnly)
    }

    /// The inotify descriptor (none before ``start()`` or when inotify failed).
    public var descriptors: [Int32] {
        guard let fd = inotify?.descriptor, fd >= 0 else { return [] }
        return [fd]
    }

    /// Never: the source waits only for inotify.
    public var timeUntilDue: Double? { nil }

    /// The folders counted now (absolute paths), for diagnostics and tests.
    public var folderPaths: [String] { counts.map(\.path) }

    /// Sets up the watches and counts every folder.
    public func start() {
        guard !started else { return }
        started = true
        inotify = Inotify()
        rebuild()
    }

    /// Applies the queued events; reads the folders again after an overflow or when a watched
    /// folder was replaced, removed or created.
    public func handle(readable descriptor: Int32) {
        guard let inotify, descriptor == inotify.descriptor else { return }
        var mustRebuild = false
        for event in inotify.readEvents() {
            if event.isOverflow { mustRebuild = true; continue }
            for role in roles[event.watch] ?? [] {
                mustRebuild = apply(event, to: role) || mustRebuild
            }
        }
        if mustRebuild { rebuild() } else { publish() }
    }

    /// Nothing is ever due.
    public func handleDeadline() {}

    /// Works out the folders again and reads them.
    public func refresh() {
        guard started else { return start() }
        rebuild()
    }

    /// Drops the watches.
    public func stop() {
        inotify?.close()
        inotify = nil
        roles = [:]
        started = false
    }

    /// Updates the count for one event; true when the folders must be worked out and read again.
    private func apply(_ event: InotifyEvent, to role: Role) -> Bool {
        let structural = event.has(IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED | IN_UNMOUNT)
        switch role {
        case .messages(let index, let inNew):
            if structural { return true }
            if event.has(IN_ISDIR) { return false }
            if event.has(IN_DELETE | IN_MOVED_FROM) { counts[index].disappeared(event.name, inNew: inNew) }
            if event.has(IN_CREATE | IN_MOVED_TO) { counts[index].appeared(event.name, inNew: inNew) }
            return false
        case .folder:
            return structural || event.name == "new" || event.name == "cur"
        case .above(_, let names):
            return structural || names.contains(event.name)
        case .lookout(let names):
            guard let names else { return structural || event.has(IN_ISDIR) }
            return structural || names.contains(event.name)
        }
    }

    /// Works out the folders, watches them, reads them, and publishes the reading.
    private func rebuild() {
        rebuildCount += 1
        let found = MaildirLocator.targets(paths: paths, folders: folders)
        patternProblems = found.problems
        var newRoles: [Int32: [Role]] = [:]
        var watchProblems: [Sentence] = []
        func watch(_ path: String, as role: Role) -> Bool {
            guard let inotify else { return false }
            switch inotify.watch(path, mask: Self.mask) {
            case .success(let wd):
                newRoles[wd, default: []].append(role)
                return true
            case .failure(let failure):
                if failure.code != ENOENT && failure.code != ENOTDIR {
                    watchProblems.append(Sentence("cannot watch %1$s: %2$s", .text(FilePaths.abbreviatingHome(failure.path)), .text(failure.reason)))
                }
                return false
            }
        }
        counts = found.targets.enumerated().map { index, target in
            var count = MaildirFolderCount(path: target.path, problem: target.problem)
            if let (above, next) = FilePaths.nearestExistingAncestor(of: target.path) {
                _ = watch(above, as: .above(index, names: target.awaitedNames.union([next])))
            }
            guard target.problem == nil else { return count }
            // Watch before reading, so nothing between the two is missed (an event for what the
            // reading already saw changes nothing: the counts are sets).
            _ = watch(target.path, as: .folder(index))
            let watchedNew = watch(target.path + "/new", as: .messages(folder: index, inNew: true))
            let watchedCur = watch(target.path + "/cur", as: .messages(folder: index, inNew: false))
            if !watchedNew || !watchedCur {
                count.problem = Sentence("%s has no new/ or cur/ folder", .text(FilePaths.abbreviatingHome(target.path)))
                return count
            }
            count.rescan()
            return count
        }
        for lookout in found.lookouts {
            _ = watch(lookout.path, as: .lookout(names: lookout.names))
        }
        if let inotify {
            for wd in roles.keys where newRoles[wd] == nil { inotify.unwatch(wd) }
            if let failure = inotify.failure { watchProblems.append(Sentence(verbatim: failure)) }
        }
        roles = newRoles
        patternProblems += watchProblems
        publish()
    }

    /// Recomputes the reading from the counts; calls ``onChange`` when it differs.
    private func publish() {
        let problems = patternProblems + counts.compactMap(\.problem)
        let present = counts.filter { $0.problem == nil }
        var next = reading
        if !present.isEmpty {
            next.content = .count(present.reduce(0) { $0 + $1.count(newOnly: newOnly) })
        }
        if !present.isEmpty { next.items = listedItems(present) }
        if let first = problems.first {
            next.fail(problems.dropFirst().reduce(first) { Sentence("%1$s; %2$s", .sentence($0), .sentence($1)) })
        } else {
            next.error = nil
        }
        next.isStale = !problems.isEmpty
        if next.content != reading.content || (reading.isStale && !next.isStale) || (next.updated == nil && !present.isEmpty) {
            if !present.isEmpty { next.updated = SystemTime.realtime }
        }
        guard next != reading else { return }
        reading = next
        onChange?(next)
    }

    /// The newest unread messages as items (From, Subject, Date of each; headers read once per
    /// file), the rest counted as unlisted.
    private func listedItems(_ folders: [MaildirFolderCount]) -> BadgeItemList {
        var unread: [(path: String, name: String, folder: String, delivered: Double)] = []
        var files: [String: (folder: String, name: String, inNew: Bool)] = [:]
        for folder in folders {
            let named = FilePaths.split(FilePaths.trimmingSlashes(folder.path)).name
            let origin = named.hasPrefix(".") ? String(named.dropFirst()) : named
            for name in folder.unreadNew {
                unread.append((folder.path + "/new/" + name, name, origin, Self.deliveryTime(name)))
                files[Self.key(of: name)] = (folder.path, name, true)
            }
            if !newOnly {
                for name in folder.unreadCur {
                    unread.append((folder.path + "/cur/" + name, name, origin, Self.deliveryTime(name)))
                    files[Self.key(of: name)] = (folder.path, name, false)
                }
            }
        }
        unreadFiles = files
        unread.sort { $0.delivered != $1.delivered ? $0.delivered > $1.delivered : $0.name > $1.name }
        var items: [BadgeItem] = []
        var kept: [String: BadgeItem] = [:]
        for message in unread.prefix(Self.listedMessages) {
            let item = itemCache[message.path] ?? makeItem(path: message.path, name: message.name, folder: message.folder,
                                                            delivered: message.delivered)
            kept[message.path] = item
            items.append(item)
        }
        itemCache = kept
        // Newest first by Date, then by delivery for the same second.
        return BadgeItemList(newestFirst: items, unlisted: unread.count - items.count)
    }

    private func makeItem(path: String, name: String, folder: String, delivered: Double) -> BadgeItem {
        let summary = (try? headers.summary(ofFile: path).get()) ?? MailSummary()
        let key = Self.key(of: name)
        let action = open.map { words in
            BadgeItemAction.run(words.map {
                $0.replacingAll("{path}", with: path).replacingAll("{message-id}", with: summary.messageID ?? "")
            })
        }
        return BadgeItem(key: key, title: summary.from ?? "(unknown sender)", detail: summary.subject ?? "(no subject)",
                         time: summary.date ?? (delivered > 0 ? delivered : nil), origin: folder, iconName: "mail", action: action,
                         accessibleDescription: nil)
    }

    /// A message's item key: its file name without the info part (`:2,FLAGS`), which flag changes rename.
    static func key(of name: String) -> String {
        String(name.split(separator: ":", maxSplits: 1).first ?? Substring(name))
    }

    /// Marks the messages with these keys read (every unread message of the last reading for nil)
    /// as mail clients do: each file renamed, atomically, to `cur/KEY:2,FLAGS` with `S` added to
    /// the flags it had (kept, in ASCII order, as maildir(5) asks), from `new/` or within `cur/`.
    /// inotify then tells the count. `done` is called before this returns.
    public func markRead(_ keys: [String]?, done: @escaping (MarkReadOutcome) -> Void) {
        let chosen = keys ?? Array(unreadFiles.keys)
        var failures: [String] = []
        var marked = 0
        for key in chosen {
            guard let file = unreadFiles[key] else {
                failures.append("no unread message \(key.prefix(80)) in \(reading.description)")
                continue
            }
            let target = file.folder + "/cur/" + Self.seenName(file.name)
            let from = file.folder + (file.inNew ? "/new/" : "/cur/") + file.name
            if rename(from, target) == 0 {
                marked += 1
                unreadFiles[key] = nil
            } else {
                let code = errno
                failures.append("cannot rename \(FilePaths.abbreviatingHome(from)) to mark it read: \(String(cString: strerror(code)))")
            }
        }
        guard let first = failures.first else { return done(.marked) }
        done(.failed(failures.count == 1 ? first : "\(first) (and \(failures.count - 1) more; \(marked) marked)"))
    }

    /// `name` as a seen message's file name: its key, `:2,` and its flags with `S`, in ASCII order.
    static func seenName(_ name: String) -> String {
        let letters = Set(MaildirFlags.flags(of: name).unicodeScalars.filter { $0.isASCII && $0.properties.isAlphabetic }).union(["S"])
        return key(of: name) + ":2," + String(String.UnicodeScalarView(letters.sorted { $0.value < $1.value }))
    }

    /// The delivery time a Maildir file name starts with (`1767225600.M…`), or 0.
    static func deliveryTime(_ name: String) -> Double {
        Double(name.prefix { $0.isASCII && $0.isNumber }) ?? 0
    }
}

extension String {
    /// The string with every `target` replaced by `replacement`.
    func replacingAll(_ target: String, with replacement: String) -> String {
        guard !target.isEmpty, contains(target) else { return self }
        return components(separatedByString: target).joined(separator: replacement)
    }

    private func components(separatedByString separator: String) -> [String] {
        var parts: [String] = []
        var rest = Substring(self)
        while let range = rest.range(ofText: separator) {
            parts.append(String(rest[..<range.lowerBound]))
            rest = rest[range.upperBound...]
        }
        parts.append(String(rest))
        return parts
    }
}

extension Substring {
    /// The first range of `text`, without Foundation.
    fileprivate func range(ofText text: String) -> Range<Substring.Index>? {
        var index = startIndex
        while index < endIndex {
            if self[index...].hasPrefix(text) {
                return index..<(self.index(index, offsetBy: text.count, limitedBy: endIndex) ?? endIndex)
            }
            index = self.index(after: index)
        }
        return nil
    }
}
