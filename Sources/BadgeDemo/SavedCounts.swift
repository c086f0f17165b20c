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
/// written atomically, debounced to at most two writes a second, the final state within
/// ``delay`` of the last change and on every clean exit. A file that cannot be read (missing,
/// empty, truncated, binary, too large, unknown) gives a one-line warning and the defaults; a
/// folder that cannot be written gives one warning and the app carries on. Not Sendable.
final class SavedCounts {
    /// The file.
    let path: String
    /// How long after a change (at most) the file is written, in seconds.
    static let delay = 0.5
    /// The largest state file read (the shared reader's cap for saved state).
    static let maximumFileSize = BoundedFile.Kind.state.maximumBytes

    private let clock: any BadgeClock
    private var dueTime: Double?
    private var lastWrite: Double?
    private var reportedWriteFailure = false
    /// Called with a one-line warning (the demo writes it to standard error).
    var warn: (String) -> Void = { _ in }

    /// The file for these options and this environment, or nil with `--no-state`.
    static func path(options: DemoOptions, environment: (String) -> String?) -> String? {
        if options.noState { return nil }
        if let path = options.statePath { return path }
        if let home = environment("XDG_STATE_HOME"), home.hasPrefix("/") { return home + "/badge-demo/state.json" }
        guard let home = environment("HOME"), !home.isEmpty else { return nil }
        return home + "/.local/state/badge-demo/state.json"
    }

    init(path: String, clock: any BadgeClock) {
        self.path = path
        self.clock = clock
    }

    /// The saved contents by button id; empty (after a warning) when the file cannot be used.
    func load() -> [String: BadgeContent] {
        let bytes: [UInt8]
        do {
            bytes = try BoundedFile.read(path, kind: .state)
        } catch {
            if !error.missing { warn("\(path): ignoring the saved counts (\(error))") }
            return [:]
        }
        do {
            return try Self.decode(bytes)
        } catch {
            warn("\(path): ignoring the saved counts (\(error))")
            return [:]
        }
    }

    /// Decodes `{"version": 1, "buttons": {"mail": {"kind": "count", "count": 12}, …}}`.
    static func decode(_ bytes: [UInt8]) throws(SmallFile.Failure) -> [String: BadgeContent] {
        let root: JSONValue
        do {
            root = try JSONValue.parse(bytes)
        } catch {
            throw SmallFile.Failure(reason: bytes.isEmpty ? "the file is empty" : "not JSON: \(error)")
        }
        guard root["version"]?.int == 1, case .object(let buttons)? = root["buttons"] else {
            throw SmallFile.Failure(reason: "not a version 1 state file")
        }
        var contents: [String: BadgeContent] = [:]
        for (id, entry) in buttons {
            switch entry["kind"]?.string {
            case "count":
                guard let count = entry["count"]?.int, count >= 0 else { continue }
                contents[id] = .count(count)
            case "text":
                guard let text = entry["text"]?.string else { continue }
                // Capped as the badge stores it, so nothing after this line sees more.
                contents[id] = .text(TextBounds.badgeText(text))
            case "dot": contents[id] = .dot
            case "none": contents[id] = BadgeContent.none
            default: continue
            }
        }
        return contents
    }

    /// The file's text for `toolbar`'s contents.
    static func encode(_ toolbar: Toolbar) -> [UInt8] {
        let buttons: [(String, JSONValue)] = toolbar.buttons.map { button in
            let content: JSONValue
            switch button.badge.value {
            case .none: content = .object([("kind", .string("none"))])
            case .count(let count): content = .object([("kind", .string("count")), ("count", .int(count))])
            case .text(let text): content = .object([("kind", .string("text")), ("text", .string(text))])
            case .dot: content = .object([("kind", .string("dot"))])
            }
            return (button.id, content)
        }
        return Array((JSONValue.object([("version", .int(1)), ("buttons", .object(buttons))]).serialized + "\n").utf8)
    }

    /// A badge changed: write within ``delay`` (and no sooner than ``delay`` after the last write).
    func changed() {
        guard dueTime == nil else { return }
        let now = clock.now
        dueTime = max(now + 0.05, (lastWrite ?? -.infinity) + Self.delay)
    }

    /// Seconds until the pending write is due, or nil.
    var timeUntilDue: Double? { dueTime.map { $0 - clock.now } }

    /// Writes when due (or now, with `force`, on exit).
    func writeIfDue(_ toolbar: Toolbar, force: Bool = false) {
        guard let due = dueTime, force || clock.now >= due else { return }
        dueTime = nil
        lastWrite = clock.now
        do {
            try SmallFile.writeAtomically(Self.encode(toolbar), to: path)
            reportedWriteFailure = false
        } catch {
            if !reportedWriteFailure { warn("\(path): cannot save the counts (\(error)); carrying on without") }
            reportedWriteFailure = true
        }
    }
}
