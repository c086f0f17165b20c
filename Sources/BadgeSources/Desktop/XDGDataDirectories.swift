import BadgeIO

/// The XDG base directories where desktop files and icon themes live: `$XDG_DATA_HOME`
/// (default `~/.local/share`) first, then each of `$XDG_DATA_DIRS` (default
/// `/usr/local/share:/usr/share`). Relative paths in either variable are ignored, as the XDG Base
/// Directory specification asks.
public struct XDGDataDirectories: Sendable, Equatable {
    /// The user's data folder (nil when neither `$XDG_DATA_HOME` nor a home folder is known).
    public var home: String?
    /// The system's data folders, most important first.
    public var system: [String]

    /// The folders in the order they are searched: ``home``, then ``system``, without repeats.
    public var searchOrder: [String] {
        var seen = Set<String>()
        return ([home].compactMap { $0 } + system).filter { seen.insert($0).inserted }
    }

    /// Explicit folders (for tests and programs with their own layout).
    public init(home: String?, system: [String]) {
        self.home = home.map(FilePaths.trimmingSlashes)
        self.system = system.map(FilePaths.trimmingSlashes)
    }

    /// The folders this process's environment names (`XDG_DATA_HOME`, `XDG_DATA_DIRS`, `HOME`).
    public static var current: XDGDataDirectories {
        from(dataHome: Environment.value("XDG_DATA_HOME"), dataDirs: Environment.value("XDG_DATA_DIRS"), home: FilePaths.home)
    }

    /// The folders the given variable values mean (nil or empty: unset).
    package static func from(dataHome: String?, dataDirs: String?, home: String?) -> XDGDataDirectories {
        let userFolder = dataHome.flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home.map { $0 + "/.local/share" }
        let listed = (dataDirs ?? "").split(separator: ":").map(String.init).filter { $0.hasPrefix("/") }
        return XDGDataDirectories(home: userFolder, system: listed.isEmpty ? ["/usr/local/share", "/usr/share"] : listed)
    }
}
