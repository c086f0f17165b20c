import BadgeCore
import BadgeDrawing
import BadgeX11
import Glibc
import BadgeControl

/// The badges' contents kept across restarts and crashes, as iOS keeps app badges: a small JSON
/// file (`--state FILE`, else `$XDG_STATE_HOME/badge-demo/state.json`, else
/// `~/.local/state/badge-demo/state.json`; `--no-state` turns it off).
///
/// Restored at start for the buttons that still exist (`--count` and the control channel win);
/// written atomically (``AtomicFileWriter``), debounced to at most two writes a second, the final
/// state within ``delay`` of the last change, and at every clean exit whenever what is shown
/// differs from the file. A file that cannot be read (missing, empty, truncated, binary, too
/// large, unknown) gives a one-line warning and the defaults.
///
/// A symlinked path is written through to its target; `/dev/null` (or a path leading to it)
/// saves nothing; a folder, FIFO or other device is refused. A write that fails (a full disk, a
/// folder that is a file) is tried again after 1 s, 2 s, 4 s … up to every 60 s until it works:
/// one warning per streak of failures, and a line when saving works again.
///
/// Processes sharing the file take turns under an `flock` on `FILE.lock` and merge
/// (``SavedCountsMerge``): each writes only the buttons it changed since its last save, so the
/// change saved last wins per button and no one's counts are lost. Not Sendable.
final class SavedCounts {
    /// The file.
    let path: String
    /// How long after a change (at most) the file is written, in seconds.
    static let delay = 0.5
    /// The largest state file read (the shared reader's cap for saved state).
    static let maximumFileSize = BoundedFile.Kind.state.maximumBytes

    /// How long a write waits at exit for another process's turn with the file, in seconds.
    static let exitLockWait = 2.0
    /// How soon a write tries again when another process has the file's lock, in seconds.
    static let busyRetry = 0.1
    /// How long another process may keep the lock before it counts as a failure (warned), in seconds.
    static let busyPatience = 5.0

    private let clock: any BadgeClock
    private var dueTime: Double?
    private var lastWrite: Double?
    private var backoff = RetryBackoff()
    /// When the lock was first found busy, in this run of busy attempts.
    private var busySince: Double?
    /// The buttons changed here since the last save: the ones this process writes (``SavedCountsMerge``).
    private var changedButtons = Set<String>()
    /// Called with a one-line warning (the demo writes it to standard error).
    var warn: (String) -> Void = { _ in }

    /// The file for these options and this environment, or nil with `--no-state`.
    /// The profile's file (``InstanceProfile/stateFileName``) unless `--state` names one.
    static func path(options: AppOptions, environment: (String) -> String?) -> String? {
        if options.noState { return nil }
        if let path = options.statePath { return path }
        return folder(environment: environment).map { $0 + "/" + InstanceProfile(name: options.profile ?? "default").stateFileName }
    }

    /// The folder of the default state files: `$XDG_STATE_HOME/badge-demo`, else
    /// `~/.local/state/badge-demo`; nil without either variable.
    static func folder(environment: (String) -> String?) -> String? {
        if let home = environment("XDG_STATE_HOME"), home.hasPrefix("/") { return home + "/badge-demo" }
        guard let home = environment("HOME"), !home.isEmpty else { return nil }
        return home + "/.local/state/badge-demo"
    }

    init(path: String, clock: any BadgeClock) {
        self.path = path
        self.clock = clock
    }

    /// One button as the file keeps it: what it showed, and where that came from (`"from"`:
    /// "demo", "config" or a source's kind; nil when set by hand or by a producer).
    struct Entry: Equatable, Sendable {
        var content: BadgeContent
        var from: String?
        /// The bus connection that said a launcher count (`"sender": ":1.42"`): at the next start
        /// the count goes as soon as that connection is found gone, never a ghost of an app that quit.
        var sender: String? = nil
    }

    /// What the file held when it was read at start (``loadEntries()``), by button id.
    private(set) var restored: [String: Entry] = [:]

    /// The saved contents by button id; empty (after a warning) when the file cannot be used.
    func load() -> [String: BadgeContent] { loadEntries().mapValues(\.content) }

    /// The saved entries by button id; empty (after a warning) when the file cannot be used.
    func loadEntries() -> [String: Entry] {
        // `--state /dev/null`: nothing to read, and nothing to say about it.
        if case .discard? = try? StateFileTarget.resolve(path) { return [:] }
        let bytes: [UInt8]
        do {
            bytes = try Self.readFile(path)
        } catch {
            if !error.missing { warn(Self.ignoring(path, error, leftAlone: true).localized) }
            return [:]
        }
        do {
            restored = try Self.decodeEntries(bytes)
            return restored
        } catch {
            warn(Self.ignoring(path, error, leftAlone: !bytes.isEmpty).localized)
            return [:]
        }
    }

    /// What a warning about a file the app will not read adds: it is never written over either.
    private static func ignoring(_ path: String, _ error: some Error, leftAlone: Bool) -> Sentence {
        let why = (error as? SmallFile.Failure)?.sentence ?? (error as? BoundedFile.Failure)?.sentence ?? Sentence(verbatim: "\(error)")
        return leftAlone
            ? Sentence("%1$s: ignoring the saved counts (%2$s); the file is left as it is, and the counts are not saved until it is moved away",
                       .text(path), .sentence(why))
            : Sentence("%1$s: ignoring the saved counts (%2$s)", .text(path), .sentence(why))
    }

    /// The bytes of the state file at `path` (the one place this type reads a file).
    private static func readFile(_ path: String) throws(BoundedFile.Failure) -> [UInt8] {
        try BoundedFile.read(path, kind: .state)
    }

    /// Decodes `{"version": 1, "buttons": {"mail": {"kind": "count", "count": 12}, …}}`.
    static func decode(_ bytes: [UInt8]) throws(SmallFile.Failure) -> [String: BadgeContent] {
        try decodeEntries(bytes).mapValues(\.content)
    }

    /// Decodes the file with each entry's `"from"`.
    static func decodeEntries(_ bytes: [UInt8]) throws(SmallFile.Failure) -> [String: Entry] {
        let root: JSONValue
        do {
            root = try JSONValue.parse(bytes)
        } catch {
            throw SmallFile.Failure(reason: bytes.isEmpty ? Sentence("the file is empty") : Sentence("not JSON: %s", .sentence(error.sentence)))
        }
        guard root["version"]?.int == 1, case .object(let buttons)? = root["buttons"] else {
            throw SmallFile.Failure(reason: Sentence("not a version 1 state file"))
        }
        var contents: [String: Entry] = [:]
        for (id, entry) in buttons {
            let content: BadgeContent
            switch entry["kind"]?.string {
            case "count":
                guard let count = entry["count"]?.int, count >= 0 else { continue }
                content = .count(count)
            case "text":
                guard let text = entry["text"]?.string else { continue }
                // Capped as the badge stores it, so nothing after this line sees more.
                content = .text(TextBounds.badgeText(text))
            case "dot": content = .dot
            case "none": content = BadgeContent.none
            default: continue
            }
            let from = entry["from"]?.string.flatMap { $0.isEmpty || $0.utf8.count > 64 ? nil : $0 }
            let sender = entry["sender"]?.string.flatMap { $0.hasPrefix(":") && $0.utf8.count <= 64 ? $0 : nil }
            contents[id] = Entry(content: content, from: from, sender: sender)
        }
        return contents
    }

    /// The file's text for `toolbar`'s contents.
    static func encode(_ toolbar: Toolbar) -> [UInt8] {
        encode(toolbar.buttons.map { ($0.id, $0.badge.value) })
    }

    /// The file's text for these buttons' contents, in this order.
    static func encode(_ contents: [(id: String, content: BadgeContent)]) -> [UInt8] {
        encode(entries: contents.map { ($0.id, Entry(content: $0.content, from: nil)) })
    }

    /// The file's text for these entries, in this order.
    static func encode(entries: [(id: String, entry: Entry)]) -> [UInt8] {
        let buttons: [(String, JSONValue)] = entries.map { id, entry in
            var fields: [(String, JSONValue)]
            switch entry.content {
            case .none: fields = [("kind", .string("none"))]
            case .count(let count): fields = [("kind", .string("count")), ("count", .int(count))]
            case .text(let text): fields = [("kind", .string("text")), ("text", .string(text))]
            case .dot: fields = [("kind", .string("dot"))]
            }
            if let from = entry.from { fields.append(("from", .string(from))) }
            if let sender = entry.sender { fields.append(("sender", .string(sender))) }
            return (id, .object(fields))
        }
        return Array((JSONValue.object([("version", .int(1)), ("buttons", .object(buttons))]).serialized + "\n").utf8)
    }

    /// The badge of button `id` differs from the file without a write being due yet (a `--count`
    /// flag at start): written with the next save, or at exit.
    func differs(_ id: String) {
        changedButtons.insert(id)
    }

    /// The badge of button `id` changed (or, without one, the toolbar did): write within ``delay``
    /// (and no sooner than ``delay`` after the last write; a retry after a failure keeps its time).
    func changed(_ id: String? = nil) {
        if let id { changedButtons.insert(id) }
        guard dueTime == nil else { return }
        let now = clock.now
        dueTime = max(now + 0.05, (lastWrite ?? -.infinity) + Self.delay)
    }

    /// Seconds until the pending write is due, or nil.
    var timeUntilDue: Double? { dueTime.map { $0 - clock.now } }

    /// Writes when due; with `force` (at exit) now, and only when what is shown differs from the
    /// file. A failure is tried again with ``RetryBackoff`` (the loop's deadline "state" wakes it).
    /// `origin` gives each button's `"from"` (``BadgeOrigins``), `sender` the bus connection behind
    /// a launcher count.
    func writeIfDue(_ toolbar: Toolbar, force: Bool = false, origin: (String) -> String? = { _ in nil },
                    sender: (String) -> String? = { _ in nil }) {
        guard force || dueTime.map({ clock.now >= $0 }) == true else { return }
        let now = clock.now
        dueTime = nil
        lastWrite = now
        do {
            try save(toolbar.buttons.map { ($0.id, Entry(content: $0.badge.value, from: origin($0.id), sender: sender($0.id))) },
                     lockWait: force ? Self.exitLockWait : 0)
            busySince = nil
            if backoff.succeeded() { warn(Sentence("%s: the counts are saved again", .text(path)).localized) }
        } catch {
            if force {
                warn(Sentence("%1$s: the counts shown at exit are not saved (%2$s)", .text(path), .sentence(error.sentence)).localized)
                return
            }
            if case .busy = error, now - (busySince ?? now) < Self.busyPatience {
                // Another instance is writing the same file: its turn lasts milliseconds.
                if busySince == nil { busySince = now }
                dueTime = now + Self.busyRetry
                return
            }
            busySince = nil
            let retry = backoff.failed()
            if retry.isFirst {
                warn(Sentence("%1$s: cannot save the counts (%2$s); trying again in %3$s s, then less often (every %4$s s at most)",
                              .text(path), .sentence(error.sentence), .number(Int(retry.delay)), .number(Int(backoff.longest))).localized)
            }
            dueTime = now + retry.delay
        }
    }

    /// Writes `shown` merged into the file as it is now, under the file's lock (waiting up to
    /// `lockWait` seconds for it); nothing when the file already holds exactly that.
    private func save(_ shown: [(id: String, entry: Entry)], lockWait: Double) throws(StateWriteError) {
        guard case .file(let file) = try StateFileTarget.resolve(path) else {
            changedButtons = []
            return  // the null device: saving nothing succeeds
        }
        try AtomicFileWriter.makeFolders(StateFileTarget.folder(of: file))
        let lock = try StateFileLock(path: file + ".lock", wait: lockWait)
        // What is there already must be a state file (or nothing, or empty): a file the app refused
        // to read (a dotfiles link pointing at the wrong file, a file of the user's) is never
        // written over.
        var bytes: [UInt8] = []
        do {
            bytes = try Self.readFile(file)
        } catch where !error.missing {
            throw .notAStateFile(path: file, reason: "\(error)")
        } catch {}
        var inFile: [String: Entry]?
        if !bytes.isEmpty {
            do {
                inFile = try Self.decodeEntries(bytes)
            } catch {
                throw .notAStateFile(path: file, reason: error.reason)
            }
        }
        let merged = SavedCountsMerge.merge(shown: shown.map { ($0.id, $0.entry) }, changed: changedButtons, inFile: inFile ?? [:])
        if inFile != Dictionary(merged, uniquingKeysWith: { first, _ in first }) {
            AtomicFileWriter.removeLeftovers(of: file)
            try AtomicFileWriter.replace(file, with: Self.encode(entries: merged.map { ($0.id, $0.content) }))
        }
        withExtendedLifetime(lock) {}
        changedButtons = []
    }
}
