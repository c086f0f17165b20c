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

    /// The path of the desktop file with id `id`, in any form ``DesktopFileID`` reads
    /// ("org.telegram.desktop", "org.telegram.desktop.desktop", "application://org.telegram.desktop.desktop").
    /// Throws ``DesktopEntryError/invalidID(_:)`` or ``DesktopEntryError/notFound(id:searched:)``.
    public func path(forID id: String) throws(DesktopEntryError) -> String {
        try located(id).path
    }

    /// The desktop entry with id `id`, read and checked: it throws as ``path(forID:)`` does, as
    /// ``DesktopEntry/init(contentsOf:id:locale:)`` does for the file found, and
    /// ``DesktopEntryError/hidden(path:)`` or ``DesktopEntryError/notInstalled(path:tryExec:)`` for
    /// an entry that counts as not installed.
    public func entry(forID id: String) throws(DesktopEntryError) -> DesktopEntry {
        let (path, found) = try located(id)
        let entry = try DesktopEntry(contentsOf: path, id: found, locale: locale)
        if entry.hidden { throw .hidden(path: path) }
        if !entry.tryExecSucceeds, let tryExec = entry.tryExec { throw .notInstalled(path: path, tryExec: tryExec) }
        return entry
    }

    /// The file for the first of `id`'s candidates that has one, and that candidate.
    private func located(_ id: String) throws(DesktopEntryError) -> (path: String, id: String) {
        guard let parsed = DesktopFileID(id) else { throw .invalidID(id) }
        for candidate in parsed.candidates {
            for folder in directories.searchOrder {
                if let found = Self.find(candidate, in: folder + "/applications") { return (found, candidate) }
            }
        }
        throw .notFound(id: parsed.fileNames.joined(separator: " or "), searched: directories.searchOrder)
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
