import BadgeCore
import BadgeControl
import BadgeSources

/// One account of several on a button: its name for people and its source.
struct SourcePart: Sendable, Equatable {
    var name: String
    var config: SourceConfig
}

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
///     {"id": "mail", "source": {"imap": {"host": "imap.example.org", "user": "me", "folders": ["INBOX"],
///                                        "password": {"command": ["pass", "show", "mail"]}}}}
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
    /// An IMAP account (`"imap"`), its password from a command or the Secret Service, never from the file.
    case imap(account: IMAPAccount, password: IMAPPassword, timing: IMAPTiming, open: [String]?)
    /// Several accounts on one button (`"imap": [{…}, {…}]`), summed, each with its own
    /// connection, state and reason (``SumSource``).
    indirect case sum([SourcePart])

    /// The kind's name in `state` ("maildir", "notifications" …).
    var kind: String {
        switch self {
        case .maildir: return "maildir"
        case .notmuch: return "notmuch"
        case .notifications: return "notifications"
        case .launcher, .launchers: return "launcher"
        case .command: return "command"
        case .imap: return "imap"
        case .sum: return "sum"
        }
    }

    /// The longest interval and timeout accepted, in seconds (a day).
    static let longestInterval = 86_400.0

    /// Reads `"source"` at `at` (naming the field in errors).
    static func parse(_ value: JSONValue, at: String, fields: ConfigFields,
                      fail: (String, Sentence) -> ToolbarConfig.Error) throws(ToolbarConfig.Error) -> SourceConfig {
        guard case .object = value else { throw fail(at, Sentence("expected an object")) }
        let kinds = ["maildir", "notmuch", "notifications", "launcher", "command", "imap"].filter { value[$0] != nil && value[$0] != .null }
        guard kinds.count == 1, let kind = kinds.first else {
            throw fail(at, Sentence("must name one of maildir, notmuch, notifications, launcher, command or imap"))
        }
        // Unknown keys are warnings (ToolbarConfig.keys), not errors.
        func strings(_ field: String) throws(ToolbarConfig.Error) -> [String]? {
            try SourceConfig.strings(value[field], at: "\(at).\(field)", fail: fail)
        }
        switch kind {
        case "maildir":
            guard let paths = try strings("maildir"), !paths.isEmpty, paths.count <= 64 else { throw fail("\(at).maildir", Sentence("expected 1 to 64 paths")) }
            return .maildir(paths: paths, folders: try strings("folders") ?? [],
                            newOnly: try fields.bool(value["newOnly"], "\(at).newOnly") ?? false, open: try strings("open"))
        case "notmuch":
            guard let query = try fields.string(value["notmuch"], "\(at).notmuch"), !query.isEmpty else { throw fail("\(at).notmuch", Sentence("expected a query")) }
            return .notmuch(query: query, open: try strings("open"))
        case "notifications":
            if case .bool(let on)? = value["notifications"] {
                guard on else { throw fail("\(at).notifications", Sentence("true, or an object with \"apps\"")) }
                return .notifications(applications: [])
            }
            guard case .object? = value["notifications"] else { throw fail("\(at).notifications", Sentence("true, or an object with \"apps\"")) }
            let apps: [String]
            switch value["notifications"]?["apps"] {
            case nil, .null?: apps = []
            case .array(let items)?:
                apps = items.compactMap { if case .string(let s) = $0, !s.isEmpty { return s } else { return nil } }
                guard apps.count == items.count else { throw fail("\(at).notifications.apps", Sentence("expected non-empty strings")) }
            default: throw fail("\(at).notifications.apps", Sentence("expected an array of strings"))
            }
            return .notifications(applications: apps)
        case "imap" where value["imap"]?.array != nil:
            // Several accounts: each its own "imap" object (with an optional "name"); `open` beside applies to all.
            guard let accounts = value["imap"]?.array, (1...8).contains(accounts.count) else {
                throw fail("\(at).imap", Sentence("expected 1 to 8 accounts"))
            }
            let open = try strings("open")
            var parts: [SourcePart] = []
            for (index, account) in accounts.enumerated() {
                let place = "\(at).imap[\(index)]"
                // An account's own `open` (inside it, warned about) is taken when none is beside.
                var own = open
                if own == nil { own = try SourceConfig.strings(account["open"], at: "\(place).open", fail: fail) }
                let config = try parseIMAP(account, at: place, fields: fields, fail: fail, open: own)
                guard case .imap(let parsed, _, _, _) = config else { continue }
                let name = try fields.string(account["name"], "\(place).name") ?? "\(parsed.user)@\(parsed.host)"
                guard !name.isEmpty, !parts.contains(where: { $0.name == name }) else {
                    throw fail("\(place).name", Sentence("each account needs a name of its own (\"work\", \"home\")"))
                }
                parts.append(SourcePart(name: name, config: config))
            }
            return .sum(parts)
        case "imap":
            // `open` belongs beside "imap", as beside "maildir" and "notmuch"; one written inside
            // "imap" (as the docs once showed it) is taken too, with a warning (ToolbarConfig.keys).
            var open = try strings("open")
            if open == nil, case .object? = value["imap"], value["imap"]?["open"] != nil {
                open = try SourceConfig.strings(value["imap"]?["open"], at: "\(at).imap.open", fail: fail)
            }
            return try parseIMAP(value["imap"] ?? .null, at: "\(at).imap", fields: fields, fail: fail, open: open)
        case "launcher":
            if value["launcher"] == .string("*") { return .launchers }
            guard let id = try fields.string(value["launcher"], "\(at).launcher"), DesktopFileID(id) != nil else {
                throw fail("\(at).launcher", Sentence(
                    "expected a desktop id such as \"org.telegram.desktop\" (or its file name, or the application:// URI its broadcasts carry), or \"*\" for every application"))
            }
            return .launcher(desktopID: id)
        default:
            let arguments: [String]
            if case .string(let line)? = value["command"] {
                guard !line.isEmpty else { throw fail("\(at).command", Sentence("must not be empty")) }
                arguments = ["/bin/sh", "-c", line]
            } else {
                guard let list = try strings("command"), !list.isEmpty else { throw fail("\(at).command", Sentence("expected a command")) }
                arguments = list
            }
            let interval = try fields.number(value["interval"], "\(at).interval")
            if let interval, !(interval >= 1 && interval <= longestInterval) {
                throw fail("\(at).interval", Sentence("must be from 1 to %1$s seconds, not %2$s", .text("\(Int(longestInterval))"), .text("\(interval)")))
            }
            let timeout = try fields.number(value["timeout"], "\(at).timeout") ?? 10
            guard timeout > 0, timeout <= longestInterval else { throw fail("\(at).timeout", Sentence("must be more than 0 and at most a day")) }
            return .command(arguments: arguments, interval: interval, timeout: timeout)
        }
    }

    /// A string or an array of non-empty strings (`member` nil or null: nil), naming `at` in errors.
    private static func strings(_ member: JSONValue?, at: String, fail: (String, Sentence) -> ToolbarConfig.Error) throws(ToolbarConfig.Error) -> [String]? {
        switch member {
        case nil, .null?: return nil
        case .string(let one)?: return [one]
        case .array(let items)?:
            var list: [String] = []
            for item in items {
                guard case .string(let text) = item, !text.isEmpty else { throw fail(at, Sentence("expected non-empty strings")) }
                list.append(text)
            }
            return list
        default: throw fail(at, Sentence("expected a string or an array of strings"))
        }
    }

    /// Reads `"imap"`: host, user, folders, port, security, caFile, password, keepalive, timeout.
    private static func parseIMAP(_ value: JSONValue, at: String, fields: ConfigFields,
                                  fail: (String, Sentence) -> ToolbarConfig.Error, open: [String]?) throws(ToolbarConfig.Error) -> SourceConfig {
        guard case .object = value else { throw fail(at, Sentence("expected an object with host, user and password")) }
        guard let host = try fields.string(value["host"], "\(at).host"), !host.isEmpty, !host.contains(where: \.isWhitespace) else {
            throw fail("\(at).host", Sentence("expected the server's host name, such as \"imap.example.org\""))
        }
        guard let user = try fields.string(value["user"], "\(at).user"), !user.isEmpty else { throw fail("\(at).user", Sentence("expected the login name")) }
        var folders: [String] = []
        switch value["folders"] {
        case nil, .null?: folders = ["INBOX"]
        case .string(let one)?: folders = [one]
        case .array(let items)?:
            for item in items {
                guard case .string(let name) = item, !name.isEmpty else { throw fail("\(at).folders", Sentence("expected folder names")) }
                folders.append(name)
            }
            guard !folders.isEmpty, folders.count <= 32 else { throw fail("\(at).folders", Sentence("expected 1 to 32 folder names")) }
        default: throw fail("\(at).folders", Sentence("expected a folder name or an array of them"))
        }
        let securityName = try fields.string(value["security"], "\(at).security") ?? "tls"
        guard let security = IMAPAccount.Security(rawValue: securityName) else {
            throw fail("\(at).security", Sentence("expected \"tls\" (port 993), \"starttls\" (port 143) or \"none\" (loopback only)"))
        }
        if security == .cleartext && !IMAPAccount.isLoopback(host) {
            throw fail("\(at).security", Sentence("\"none\" sends the password in clear, so it is allowed only for a host on loopback, not %s", .text(host)))
        }
        let port = try fields.integer(value["port"], "\(at).port")
        if let port, !(1...65535).contains(port) { throw fail("\(at).port", Sentence("must be from 1 to 65535")) }
        let caFile = try fields.string(value["caFile"], "\(at).caFile")
        let authName = try fields.string(value["auth"], "\(at).auth") ?? "password"
        guard let mechanism = IMAPAccount.Mechanism(rawValue: authName) else {
            throw fail("\(at).auth", Sentence("expected \"password\" (the default), \"xoauth2\" or \"oauthbearer\" (an OAuth2 token from the password command)"))
        }
        let password: IMAPPassword
        switch value["password"] {
        case .object?:
            switch value["password"]?["command"] {
            case .array(let items)?:
                let words = items.compactMap { if case .string(let word) = $0, !word.isEmpty { return word } else { return nil } }
                guard words.count == items.count, !words.isEmpty else { throw fail("\(at).password.command", Sentence("expected a program and its arguments")) }
                password = .command(words)
            case .string(let line)?:
                let words = line.split(whereSeparator: \.isWhitespace).map(String.init)
                guard !words.isEmpty else { throw fail("\(at).password.command", Sentence("expected a program and its arguments")) }
                password = .command(words)
            default:
                guard case .object(let entries)? = value["password"]?["secretService"] else {
                    throw fail("\(at).password", Sentence("expected {\"command\": [\"pass\", \"show\", \"mail\"]} or {\"secretService\": {\"service\": \"imap\", \"user\": \"me\"}}"))
                }
                var attributes: [String: String] = [:]
                for (key, entry) in entries {
                    guard case .string(let text) = entry, !key.isEmpty else { throw fail("\(at).password.secretService.\(key)", Sentence("expected a string")) }
                    attributes[key] = text
                }
                guard !attributes.isEmpty, attributes.count <= 16 else {
                    throw fail("\(at).password.secretService", Sentence("expected 1 to 16 attributes, as secret-tool stores them"))
                }
                password = .secretService(attributes)
            }
        case .string?:
            throw fail("\(at).password", Sentence("a password never goes in the config file; give {\"command\": [\"pass\", \"show\", \"mail\"]}"))
        default:
            throw fail("\(at).password", Sentence("expected {\"command\": [\"pass\", \"show\", \"mail\"]}: a program that prints the password"))
        }
        let keepalive = try fields.number(value["keepalive"], "\(at).keepalive")
        if let keepalive, !(keepalive >= 1 && keepalive <= 28 * 60) { throw fail("\(at).keepalive", Sentence("must be from 1 to 1680 seconds (28 min)")) }
        let timeout = try fields.number(value["timeout"], "\(at).timeout")
        if let timeout, !(timeout > 0 && timeout <= 300) { throw fail("\(at).timeout", Sentence("must be more than 0 and at most 300 seconds")) }
        var timing = IMAPTiming()
        if let keepalive { timing.keepalive = keepalive }
        if let timeout { timing.reply = timeout; timing.greeting = max(timing.greeting, timeout) }
        let account = IMAPAccount(host: host, port: port, security: security, user: user, folders: folders, caFile: caFile, mechanism: mechanism)
        return .imap(account: account, password: password, timing: timing, open: open)
    }
}
