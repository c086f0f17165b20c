import BadgeCore
import BadgeControl
import BadgeSources

/// Where a button's count comes from (`"source"` in the config file), and what a click on it does
/// (`"click"`):
///
///     {"id": "mail", "source": {"maildir": "~/Maildir", "folders": ["INBOX"], "newOnly": false,
///                               "open": ["neomutt", "-f", "{path}"]}}
///     {"id": "bell", "source": {"notifications": true}}      // or {"notifications": {"apps": ["thunderbird"]}}
///     {"id": "chat", "source": {"launcher": "org.telegram.desktop"}}
///     {"id": "apps", "source": {"launcher": "*"}}            // every application's count, one item each
///     {"id": "tag",  "source": {"notmuch": "tag:unread and tag:inbox", "open": ["alot", "search", "thread:{thread}"]}}
///     {"id": "ci",   "source": {"command": ["ci-status", "--count"], "interval": 60, "timeout": 10}}
///
/// A command given as one string runs through `/bin/sh -c`. `~/` starts paths in the home folder.
/// `"open"` is what activating a listed message (or thread) in the peek runs, without a shell:
/// `{path}` and `{message-id}` (Maildir) or `{thread}` (notmuch) are replaced.
enum SourceConfig: Sendable, Equatable {
    case maildir(paths: [String], folders: [String], newOnly: Bool, open: [String]? = nil)
    case notmuch(query: String, open: [String]? = nil)
    case notifications(applications: [String])
    case launcher(desktopID: String)
    /// Every application's launcher count (`"launcher": "*"`).
    case launchers
    case command(arguments: [String], interval: Double?, timeout: Double)

    /// The kind's name in `state` ("maildir", "notifications" …).
    var kind: String {
        switch self {
        case .maildir: return "maildir"
        case .notmuch: return "notmuch"
        case .notifications: return "notifications"
        case .launcher, .launchers: return "launcher"
        case .command: return "command"
        }
    }

    /// The longest interval and timeout accepted, in seconds (a day).
    static let longestInterval = 86_400.0

    /// Reads `"source"` at `at` (naming the field in errors).
    static func parse(_ value: JSONValue, at: String, fields: ConfigFields,
                      fail: (String, String) -> ToolbarConfig.Error) throws(ToolbarConfig.Error) -> SourceConfig {
        guard case .object = value else { throw fail(at, "expected an object") }
        let kinds = ["maildir", "notmuch", "notifications", "launcher", "command"].filter { value[$0] != nil && value[$0] != .null }
        guard kinds.count == 1, let kind = kinds.first else {
            throw fail(at, "must name one of maildir, notmuch, notifications, launcher or command")
        }
        // Unknown keys are warnings (ToolbarConfig.keys), not errors.
        func strings(_ field: String) throws(ToolbarConfig.Error) -> [String]? {
            switch value[field] {
            case nil, .null?: return nil
            case .string(let one)?: return [one]
            case .array(let items)?:
                var list: [String] = []
                for item in items {
                    guard case .string(let text) = item, !text.isEmpty else { throw fail("\(at).\(field)", "expected non-empty strings") }
                    list.append(text)
                }
                return list
            default: throw fail("\(at).\(field)", "expected a string or an array of strings")
            }
        }
        switch kind {
        case "maildir":
            guard let paths = try strings("maildir"), !paths.isEmpty, paths.count <= 64 else { throw fail("\(at).maildir", "expected 1 to 64 paths") }
            return .maildir(paths: paths, folders: try strings("folders") ?? [],
                            newOnly: try fields.bool(value["newOnly"], "\(at).newOnly") ?? false, open: try strings("open"))
        case "notmuch":
            guard let query = try fields.string(value["notmuch"], "\(at).notmuch"), !query.isEmpty else { throw fail("\(at).notmuch", "expected a query") }
            return .notmuch(query: query, open: try strings("open"))
        case "notifications":
            if case .bool(let on)? = value["notifications"] {
                guard on else { throw fail("\(at).notifications", "true, or an object with \"apps\"") }
                return .notifications(applications: [])
            }
            guard case .object? = value["notifications"] else { throw fail("\(at).notifications", "true, or an object with \"apps\"") }
            let apps: [String]
            switch value["notifications"]?["apps"] {
            case nil, .null?: apps = []
            case .array(let items)?:
                apps = items.compactMap { if case .string(let s) = $0, !s.isEmpty { return s } else { return nil } }
                guard apps.count == items.count else { throw fail("\(at).notifications.apps", "expected non-empty strings") }
            default: throw fail("\(at).notifications.apps", "expected an array of strings")
            }
            return .notifications(applications: apps)
        case "launcher":
            if value["launcher"] == .string("*") { return .launchers }
            guard let id = try fields.string(value["launcher"], "\(at).launcher"), DesktopFileID(id) != nil else {
                throw fail("\(at).launcher", "expected a desktop id such as \"org.telegram.desktop\" (or its file name, "
                    + "or the application:// URI its broadcasts carry), or \"*\" for every application")
            }
            return .launcher(desktopID: id)
        default:
            let arguments: [String]
            if case .string(let line)? = value["command"] {
                guard !line.isEmpty else { throw fail("\(at).command", "must not be empty") }
                arguments = ["/bin/sh", "-c", line]
            } else {
                guard let list = try strings("command"), !list.isEmpty else { throw fail("\(at).command", "expected a command") }
                arguments = list
            }
            let interval = try fields.number(value["interval"], "\(at).interval")
            if let interval, !(interval >= 1 && interval <= longestInterval) {
                throw fail("\(at).interval", "must be from 1 to \(Int(longestInterval)) seconds, not \(interval)")
            }
            let timeout = try fields.number(value["timeout"], "\(at).timeout") ?? 10
            guard timeout > 0, timeout <= longestInterval else { throw fail("\(at).timeout", "must be more than 0 and at most a day") }
            return .command(arguments: arguments, interval: interval, timeout: timeout)
        }
    }
}
