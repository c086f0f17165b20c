import BadgeIO
import Glibc

/// An application's desktop file (`org.telegram.desktop.desktop`), read for a toolbar button that
/// stands for that application: its label (``name``, translated), its icon (``icon``, a theme name
/// or a path, see ``IconThemeLookup``), the windows it makes (``windowClasses``), and how to start
/// it (``arguments()``).
///
/// Only the `[Desktop Entry]` group is read, by the Desktop Entry specification: `Key[locale]`
/// variants matched against a locale such as `LC_MESSAGES`' "de_DE.UTF-8", the string escapes
/// (`\s \n \t \r \\`), booleans. A file is read through a bounded reader: a regular file of at
/// most ``maximumBytes``, valid UTF-8.
public struct DesktopEntry: Sendable, Equatable {
    /// The largest desktop file read: 256 KiB.
    public static let maximumBytes = 256 << 10

    /// The desktop file id ("org.telegram.desktop", without ".desktop").
    public var id: String
    /// The file it was read from.
    public var path: String
    /// `Type`: "Application", "Link" or "Directory".
    public var type: String
    /// `Name`, in the locale's best variant.
    public var name: String
    /// `Icon`, in the locale's best variant: an icon theme name, or an absolute path; nil when absent or empty.
    public var icon: String?
    /// `StartupWMClass`: the WM_CLASS its windows have, when it says.
    public var startupWMClass: String?
    /// `Exec`, unescaped but not split (see ``arguments()``).
    public var exec: String?
    /// `TryExec`: a program that must be installed for the entry to count.
    public var tryExec: String?
    /// `Path`: the folder to start it in.
    public var workingDirectory: String?
    /// `Hidden`: the user deleted the entry.
    public var hidden: Bool
    /// `NoDisplay`: the entry is not shown in menus (it can still be started).
    public var noDisplay: Bool
    /// `Terminal`: it must run in a terminal (``arguments()`` does not provide one).
    public var terminal: Bool

    /// Parses a desktop file's bytes. `id` and `path` name it; `locale` (an `LC_MESSAGES` value,
    /// nil for none) chooses the translations. Throws ``DesktopEntryError/invalid(path:reason:)``
    /// for bytes that are not UTF-8, no `[Desktop Entry]` group, a line that is neither a group
    /// nor `Key=value`, a bad boolean, or no `Type` or `Name`.
    public init(parsing bytes: [UInt8], id: String, path: String, locale: String?) throws(DesktopEntryError) {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw .invalid(path: path, reason: "it is not UTF-8 text")
        }
        let file: DesktopKeyFile
        do {
            file = try DesktopKeyFile(parsing: text)
            hidden = try file.boolean("Hidden") ?? false
            noDisplay = try file.boolean("NoDisplay") ?? false
            terminal = try file.boolean("Terminal") ?? false
        } catch {
            throw .invalid(path: path, reason: error.description)
        }
        guard let type = file.string("Type"), !type.isEmpty else { throw .invalid(path: path, reason: "it has no Type") }
        guard let name = file.localized("Name", locale: locale), !name.isEmpty else {
            throw .invalid(path: path, reason: "it has no Name")
        }
        func nonEmpty(_ value: String?) -> String? { value.flatMap { $0.isEmpty ? nil : $0 } }
        self.id = id
        self.path = path
        self.type = type
        self.name = name
        icon = nonEmpty(file.localized("Icon", locale: locale))
        startupWMClass = nonEmpty(file.string("StartupWMClass"))
        exec = nonEmpty(file.string("Exec"))
        tryExec = nonEmpty(file.string("TryExec"))
        workingDirectory = nonEmpty(file.string("Path"))
    }

    /// Reads and parses the desktop file at `path` (at most ``maximumBytes``, a regular file).
    /// `id` nil takes the file's name without ".desktop".
    public init(contentsOf path: String, id: String? = nil, locale: String? = DesktopEntry.messagesLocale) throws(DesktopEntryError) {
        let bytes: [UInt8]
        do {
            bytes = try BoundedRead.bytes(of: path, limit: Self.maximumBytes)
        } catch {
            throw .unreadable(path: path, reason: error.description)
        }
        var name = FilePaths.split(path).name
        if name.hasSuffix(".desktop") { name.removeLast(".desktop".count) }
        try self.init(parsing: bytes, id: id ?? name, path: path, locale: locale)
    }

    /// The locale translations are chosen for: `LC_ALL`, else `LC_MESSAGES`, else `LANG` (nil when none is set).
    public static var messagesLocale: String? {
        Environment.value("LC_ALL") ?? Environment.value("LC_MESSAGES") ?? Environment.value("LANG")
    }

    /// The argument vector that starts the application without a shell: `Exec` split by the
    /// specification's quoting rules, with no files to open (`%f %F %u %U` dropped, `%i` the
    /// icon, `%c` the name, `%k` the path, `%%` a `%`). Throws
    /// ``DesktopEntryError/cannotLaunch(path:reason:)`` when the entry is not an application, has
    /// no `Exec`, or its `Exec` has an unclosed quote or an unknown field code.
    public func arguments() throws(DesktopEntryError) -> [String] {
        guard type == "Application" else { throw .cannotLaunch(path: path, reason: "it is a \(type), not an Application") }
        guard let exec else { throw .cannotLaunch(path: path, reason: "it has no Exec") }
        do {
            return try ExecLine.arguments(exec, context: ExecLine.Context(icon: icon, name: name, path: path))
        } catch {
            throw .cannotLaunch(path: path, reason: error.description)
        }
    }

    /// The WM_CLASS names its windows are expected to have, to find them on the screen:
    /// ``startupWMClass`` when it says; otherwise the id and the name of the program `Exec`
    /// starts (Thunderbird's windows are "thunderbird"), as docks guess.
    public var windowClasses: [String] {
        if let startupWMClass { return [startupWMClass] }
        var names = [id]
        if let program = (try? arguments())?.first.map({ FilePaths.split($0).name }), !program.isEmpty,
           program.lowercased() != id.lowercased() {
            names.append(program)
        }
        return names
    }

    /// True when ``tryExec`` is absent, or names an executable file (an absolute path, or a name
    /// found in `$PATH`).
    public var tryExecSucceeds: Bool {
        guard let tryExec else { return true }
        if tryExec.contains("/") { return tryExec.hasPrefix("/") && access(tryExec, X_OK) == 0 && !FilePaths.isFolder(tryExec) }
        let folders = (Environment.value("PATH") ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":")
        return folders.contains { folder in
            let candidate = String(folder) + "/" + tryExec
            return access(candidate, X_OK) == 0 && !FilePaths.isFolder(candidate)
        }
    }
}
