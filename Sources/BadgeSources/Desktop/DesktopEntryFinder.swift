/// Finds an application's desktop file by its desktop file id, as menus and docks do: in the
/// `applications` folder of each XDG data folder (`$XDG_DATA_HOME` first, so a user's copy
/// overrides the system's), the first file wins. A file may also sit in a subfolder whose path
/// makes the id with "/" written as "-" (`org-foo-bar` at `applications/org/foo/bar.desktop`).
public struct DesktopEntryFinder: Sendable {
    /// The folders searched (each one's `applications` folder).
    public var directories: XDGDataDirectories
    /// The locale translations are chosen for (nil: untranslated).
    public var locale: String?

    /// A finder over `directories` (default: this process's environment), translating for `locale`.
    public init(directories: XDGDataDirectories = .current, locale: String? = DesktopEntry.messagesLocale) {
        self.directories = directories
        self.locale = locale
    }

    /// The path of the desktop file with id `id` ("org.telegram.desktop", ".desktop" optional).
    /// Throws ``DesktopEntryError/invalidID(_:)`` or ``DesktopEntryError/notFound(id:searched:)``.
    public func path(forID id: String) throws(DesktopEntryError) -> String {
        let bare = try Self.bareID(id)
        for folder in directories.searchOrder {
            if let found = Self.find(bare, in: folder + "/applications") { return found }
        }
        throw .notFound(id: bare, searched: directories.searchOrder)
    }

    /// The desktop entry with id `id`, read and checked: it throws as ``path(forID:)`` does, as
    /// ``DesktopEntry/init(contentsOf:id:locale:)`` does for the file found, and
    /// ``DesktopEntryError/hidden(path:)`` or ``DesktopEntryError/notInstalled(path:tryExec:)`` for
    /// an entry that counts as not installed.
    public func entry(forID id: String) throws(DesktopEntryError) -> DesktopEntry {
        let path = try path(forID: id)
        let entry = try DesktopEntry(contentsOf: path, id: try Self.bareID(id), locale: locale)
        if entry.hidden { throw .hidden(path: path) }
        if !entry.tryExecSucceeds, let tryExec = entry.tryExec { throw .notInstalled(path: path, tryExec: tryExec) }
        return entry
    }

    /// `id` without ".desktop", refused when it could name a path outside the folder.
    private static func bareID(_ id: String) throws(DesktopEntryError) -> String {
        let bare = id.hasSuffix(".desktop") ? String(id.dropLast(".desktop".count)) : id
        guard !bare.isEmpty, !bare.hasPrefix("."), !bare.hasPrefix("-"), !bare.contains("/"), !bare.contains("\0") else {
            throw .invalidID(id)
        }
        return bare
    }

    /// `folder/id.desktop`, else, for each "-" whose prefix is a subfolder, the rest of the id in it.
    private static func find(_ id: String, in folder: String) -> String? {
        let direct = folder + "/" + id + ".desktop"
        if FilePaths.exists(direct) && !FilePaths.isFolder(direct) { return direct }
        var index = id.startIndex
        while let dash = id[index...].firstIndex(of: "-") {
            let prefix = String(id[..<dash]), rest = String(id[id.index(after: dash)...])
            if !prefix.isEmpty, !rest.isEmpty, FilePaths.isFolder(folder + "/" + prefix), let found = find(rest, in: folder + "/" + prefix) {
                return found
            }
            index = id.index(after: dash)
        }
        return nil
    }
}
