import BadgeIO
import Glibc

/// Finds the file of a desktop file's `Icon` by a simplified freedesktop.org icon theme lookup,
/// enough for application icons: an absolute path is used as it is; a name is looked for in the
/// `icons` folder of each XDG data folder (and `~/.icons` first), in each of ``themes`` and then
/// "hicolor" (the theme every application installs into): `scalable/apps/NAME.svg` first (it
/// draws sharp at any size), then the sized folders `NNxNN/apps/NAME.png` or `.svg`, the size
/// closest to the one wanted, preferring one at least that large (a larger image scales down
/// well, a smaller one blurs); last, the `pixmaps` folders (`NAME.png`, `NAME.svg`; XPM is not
/// read). The themes' `index.theme` files are not read: no inherited themes beyond hicolor, no
/// context folders but `apps`, no `@2` scaled folders, no symbolic variants.
public struct IconThemeLookup: Sendable {
    /// The icon folders searched, in order (`~/.icons`, then each data folder's `icons`).
    public var iconFolders: [String]
    /// The user's icon themes to look in before hicolor ("Adwaita", "Papirus"), most specific first.
    public var themes: [String]
    /// The folders of unthemed icons, looked in last.
    public var pixmapFolders: [String]

    /// A lookup in `~/.icons` and the `icons` folders of `directories` (default: this process's
    /// environment), in `themes` then hicolor, then `/usr/share/pixmaps`.
    public init(directories: XDGDataDirectories = .current, themes: [String] = []) {
        let legacy = FilePaths.home.map { [$0 + "/.icons"] } ?? []
        self.init(iconFolders: legacy + directories.searchOrder.map { $0 + "/icons" }, themes: themes,
                  pixmapFolders: ["/usr/share/pixmaps"])
    }

    /// A lookup in exactly these folders (for tests, and programs with their own layout).
    public init(iconFolders: [String], themes: [String], pixmapFolders: [String]) {
        self.iconFolders = iconFolders
        self.themes = themes
        self.pixmapFolders = pixmapFolders
    }

    /// The file for `icon` (a desktop file's `Icon` value) drawn at `pixels` a side, or nil when
    /// none is found (or the value is empty, or a relative path).
    public func path(forIcon icon: String, pixels: Int) -> String? {
        if icon.hasPrefix("/") { return Self.isFile(icon) ? icon : nil }
        guard !icon.isEmpty, !icon.contains("/"), !icon.hasPrefix(".") else { return nil }
        var name = icon
        for suffix in [".png", ".svg", ".xpm"] where name.hasSuffix(suffix) {
            name.removeLast(suffix.count)  // the specification says without, some files write it
        }
        var seen = Set<String>()
        for theme in (themes + ["hicolor"]) where seen.insert(theme).inserted && !theme.contains("/") && !theme.hasPrefix(".") {
            if let found = lookUp(name, theme: theme, pixels: pixels) { return found }
        }
        for folder in pixmapFolders {
            for candidate in ["\(folder)/\(name).png", "\(folder)/\(name).svg"] where Self.isFile(candidate) { return candidate }
        }
        return nil
    }

    /// `name` in `theme` across the icon folders: scalable first, then the best sized file.
    private func lookUp(_ name: String, theme: String, pixels: Int) -> String? {
        let themeFolders = iconFolders.map { $0 + "/" + theme }.filter(FilePaths.isFolder)
        for folder in themeFolders {
            let scalable = "\(folder)/scalable/apps/\(name).svg"
            if Self.isFile(scalable) { return scalable }
        }
        var sized: [(size: Int, path: String)] = []
        for folder in themeFolders {
            for size in Self.sizeFolders(in: folder) {
                for type in ["png", "svg"] {
                    let candidate = "\(folder)/\(size)x\(size)/apps/\(name).\(type)"
                    if Self.isFile(candidate) { sized.append((size, candidate)); break }
                }
            }
        }
        // The smallest at least `pixels`, else the largest; the first folder wins a tie.
        let larger = sized.filter { $0.size >= pixels }
        let best = larger.min { $0.size < $1.size } ?? sized.max { $0.size < $1.size }
        return best?.path
    }

    /// The sizes of a theme's `NNxNN` folders (square ones only), in folder order.
    private static func sizeFolders(in theme: String) -> [Int] {
        guard let stream = opendir(theme) else { return [] }
        defer { closedir(stream) }
        var sizes: [Int] = []
        while let entry = readdir(stream) {
            let name = DirectoryEntry.name(of: entry)
            let parts = name.split(separator: "x", omittingEmptySubsequences: false)
            if parts.count == 2, parts[0] == parts[1], let size = Int(parts[0]), size > 0, size <= 4096 { sizes.append(size) }
        }
        return sizes.sorted()
    }

    private static func isFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
    }
}
