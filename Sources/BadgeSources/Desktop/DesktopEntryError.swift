import BadgeCore

/// Why a desktop entry could not be found, read or used; its ``description`` is one line that
/// names the file or the id, for a config warning or a tooltip.
public enum DesktopEntryError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The id is not one a desktop file can have (empty, or with a "/" or a leading ".").
    case invalidID(String)
    /// No file of the names `id` gives ("org.telegram.desktop.desktop or org.telegram.desktop") in any
    /// of the folders searched (their `applications` folders).
    case notFound(id: String, searched: [String])
    /// The file exists but could not be read (not a regular file, larger than the cap, no permission).
    case unreadable(path: String, reason: String)
    /// The file is not a valid desktop entry (no `[Desktop Entry]` group, no `Name`, a bad line).
    case invalid(path: String, reason: String)
    /// The entry says `Hidden=true`: the user deleted it, so it counts as not installed.
    case hidden(path: String)
    /// The entry's `TryExec` program is not installed.
    case notInstalled(path: String, tryExec: String)
    /// The entry cannot be started: not an application, no `Exec`, or an `Exec` that cannot be split.
    case cannotLaunch(path: String, reason: String)

    /// The reason, in one line.
    public var description: String {
        switch self {
        case .invalidID(let id):
            "\(InputEcho.quoted(id, limit: 80)) is not a desktop file id (a name like org.example.App, without \"/\")"
        case .notFound(let id, let searched):
            "no \(id) in " + searched.map { $0 + "/applications" }.joined(separator: ", ")
        case .unreadable(let path, let reason):
            "cannot read \(path): \(reason)"
        case .invalid(let path, let reason):
            "\(path) is not a valid desktop file: \(reason)"
        case .hidden(let path):
            "\(path) says Hidden=true (the application was removed)"
        case .notInstalled(let path, let tryExec):
            "\(path): its program \(tryExec) (TryExec) is not installed"
        case .cannotLaunch(let path, let reason):
            "cannot start \(path): \(reason)"
        }
    }
}
