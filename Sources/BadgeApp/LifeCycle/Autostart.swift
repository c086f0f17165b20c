import BadgeCore
import BadgeDrawing
import Glibc

/// `badge-demo --autostart[=on|off]`: whether the session starts the app from its XDG autostart
/// entry, and the usual way to turn that off: a copy of the entry in the user's
/// `$XDG_CONFIG_HOME/autostart` with `Hidden=true`, which overrides the system one
/// (`$XDG_CONFIG_DIRS/autostart`, default `/etc/xdg/autostart`).
enum Autostart {
    /// What `--autostart` was asked to do.
    enum Action: Equatable, Sendable {
        case report, off, on
    }

    /// The entry's file name in every autostart folder.
    static let fileName = "badge-demo.desktop"

    /// One autostart entry as found at a path.
    enum Entry: Equatable, Sendable {
        /// No file there.
        case missing
        /// A desktop entry with `Hidden=true`: the session skips it.
        case hidden
        /// A desktop entry without `Hidden=true`: the session starts it.
        case shown
        /// Something that is not a readable regular file (a symlink, a folder, too big): `kind` says what.
        case other(kind: String)
    }

    /// Where the entries are and what they say.
    struct Status: Equatable, Sendable {
        /// The user's copy's path (`$XDG_CONFIG_HOME/autostart/badge-demo.desktop`).
        var userPath: String
        /// The user's copy.
        var user: Entry
        /// The first system entry found (`$XDG_CONFIG_DIRS`, in order), or nil.
        var systemPath: String?
        /// The system entry (``Entry/missing`` when none was found).
        var system: Entry

        /// True when the session starts badge-demo: the user's copy decides when there is one,
        /// else the system entry.
        var starts: Bool {
            switch user {
            case .hidden: return false
            case .shown: return true
            case .other: return false
            case .missing: return system == .shown
            }
        }

        /// True when the user's copy is an override `--autostart=on` may remove.
        var userCopyIsHiddenOverride: Bool { user == .hidden }
    }

    /// The user's autostart folder: `$XDG_CONFIG_HOME/autostart`, or `$HOME/.config/autostart`
    /// (an empty or relative `XDG_CONFIG_HOME` is ignored, as the basedir spec says); nil without either.
    static func userFolder(environment: (String) -> String?) -> String? {
        if let home = environment("XDG_CONFIG_HOME"), home.hasPrefix("/") { return home + "/autostart" }
        guard let home = environment("HOME"), home.hasPrefix("/") else { return nil }
        return home + "/.config/autostart"
    }

    /// The system autostart folders, in order: `$XDG_CONFIG_DIRS` (absolute entries only), else `/etc/xdg`.
    static func systemFolders(environment: (String) -> String?) -> [String] {
        let dirs = (environment("XDG_CONFIG_DIRS") ?? "").split(separator: ":").map(String.init).filter { $0.hasPrefix("/") }
        return (dirs.isEmpty ? ["/etc/xdg"] : dirs).map { $0 + "/autostart" }
    }

    /// Whether desktop-entry text has `Hidden=true` in its `[Desktop Entry]` group.
    static func isHidden(_ text: String) -> Bool {
        var inMainGroup = false
        for rawLine in text.split(whereSeparator: \.isNewline) {
            let line = rawLine.trimmingSpaces
            if line.hasPrefix("[") {
                inMainGroup = line == "[Desktop Entry]"
                continue
            }
            guard inMainGroup, let equals = line.firstIndex(of: "=") else { continue }
            if line[..<equals].trimmingSpaces == "Hidden" { return line[line.index(after: equals)...].trimmingSpaces == "true" }
        }
        return false
    }

    /// The status from the files (the user's copy is looked at without following a symlink).
    static func status(userFolder: String, systemFolders: [String]) -> Status {
        let userPath = userFolder + "/" + fileName
        var status = Status(userPath: userPath, user: look(at: userPath), systemPath: nil, system: .missing)
        for folder in systemFolders {
            let path = folder + "/" + fileName
            let entry = look(at: path, followingLinks: true)
            if entry != .missing {
                status.systemPath = path
                status.system = entry
                break
            }
        }
        return status
    }

    /// The entry at `path`: lstat first (a symlink in the user's folder is not read through), then
    /// a bounded read.
    static func look(at path: String, followingLinks: Bool = false) -> Entry {
        var info = stat()
        let found = followingLinks ? stat(path, &info) : lstat(path, &info)
        guard found == 0 else { return errno == ENOENT ? .missing : .other(kind: String(cString: strerror(errno))) }
        switch info.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFLNK: return .other(kind: "a symbolic link")
        case S_IFDIR: return .other(kind: "a folder")
        default: return .other(kind: "not a regular file")
        }
        do {
            let bytes = try BoundedFile.read(path, limit: 64 << 10)
            return isHidden(String(decoding: bytes, as: UTF8.self)) ? .hidden : .shown
        } catch {
            return .other(kind: error.reason)
        }
    }

    /// The user's copy that turns the entry off.
    static let hiddenOverride = """
        [Desktop Entry]
        Type=Application
        Name=Badge Demo
        Comment=Written by badge-demo --autostart=off: the session does not start badge-demo (badge-demo --autostart=on removes this file)
        Exec=badge-demo
        Hidden=true

        """

    /// The report's lines: whether the session starts badge-demo, from where, and how to change it.
    static func report(_ status: Status) -> [Sentence] {
        var lines: [Sentence] = []
        switch (status.user, status.systemPath) {
        case (.hidden, _):
            lines.append(Sentence("autostart: off, %s has Hidden=true", .text(status.userPath)))
        case (.shown, _):
            lines.append(Sentence("autostart: on, from your own copy %s", .text(status.userPath)))
        case (.other(let kind), _):
            lines.append(Sentence("autostart: off, %1$s is not a desktop entry the session reads (%2$s)", .text(status.userPath), .text(kind)))
        case (.missing, let path?):
            lines.append(status.starts
                ? Sentence("autostart: on, from %s", .text(path))
                : Sentence("autostart: off, %s has Hidden=true", .text(path)))
        case (.missing, nil):
            lines.append(Sentence("autostart: off, no autostart entry is installed"))
        }
        if status.starts {
            lines.append(Sentence("to turn it off: badge-demo --autostart=off (writes %s with Hidden=true)", .text(status.userPath)))
        } else if status.userCopyIsHiddenOverride {
            lines.append(Sentence("to turn it on: badge-demo --autostart=on (removes %s)", .text(status.userPath)))
        }
        lines.append(Sentence("the systemd user unit is the other way to start it (docs/session.md, use one of the two): systemctl --user enable badge-demo.service, or disable to stop it"))
        return lines
    }

    /// Runs `--autostart`: the report on standard output (after the change, for on and off);
    /// returns the exit status (1 when a change was refused or failed).
    static func run(_ action: Action, environment: (String) -> String?) -> ExitStatus {
        guard let folder = userFolder(environment: environment) else {
            StandardError.say(Sentence("--autostart needs XDG_CONFIG_HOME or HOME to find your autostart folder"))
            return .badArguments
        }
        let systems = systemFolders(environment: environment)
        var status = Self.status(userFolder: folder, systemFolders: systems)
        var result = ExitStatus.closed
        switch action {
        case .report:
            break
        case .off:
            switch status.user {
            case .missing:
                do {
                    try AtomicFileWriter.makeFolders(folder)
                    try AtomicFileWriter.replace(status.userPath, with: Array(hiddenOverride.utf8))
                    StandardError.write(Sentence("wrote %s with Hidden=true", .text(status.userPath)).localized, to: 1)
                } catch {
                    StandardError.say(Sentence("could not write %1$s: %2$s", .text(status.userPath), .text(error.description)))
                    result = .badArguments
                }
            case .hidden:
                break
            case .shown, .other:
                StandardError.say(Sentence("%s is your own autostart entry, not one badge-demo wrote: left as it is (add the line Hidden=true to it, or remove it)", .text(status.userPath)))
                result = .badArguments
            }
        case .on:
            switch status.user {
            case .hidden:
                if unlink(status.userPath) == 0 {
                    StandardError.write(Sentence("removed %s", .text(status.userPath)).localized, to: 1)
                } else {
                    StandardError.say(Sentence("could not remove %1$s: %2$s", .text(status.userPath), .text(String(cString: strerror(errno)))))
                    result = .badArguments
                }
            case .missing, .shown:
                break
            case .other:
                StandardError.say(Sentence("%s is your own autostart entry, not one badge-demo wrote: left as it is (add the line Hidden=true to it, or remove it)", .text(status.userPath)))
                result = .badArguments
            }
        }
        status = Self.status(userFolder: folder, systemFolders: systems)
        for line in report(status) { StandardError.write(line.localized, to: 1) }
        return result
    }
}

private extension StringProtocol {
    var trimmingSpaces: String {
        String(drop(while: { $0 == " " || $0 == "\t" }).reversed().drop(while: { $0 == " " || $0 == "\t" || $0 == "\r" }).reversed())
    }
}
