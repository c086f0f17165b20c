@testable import BadgeSources
import Glibc
import Testing

/// Finding desktop files and icons in private XDG folders, never the machine's own.
@Suite struct DesktopLookupTests {
    /// Makes `relative` and the folders above it in `folder`.
    func makeFolders(_ relative: String, in folder: TemporaryFolder) throws {
        var path = folder.path
        for part in relative.split(separator: "/") {
            path += "/" + part
            guard mkdir(path, 0o755) == 0 || errno == EEXIST else { throw TestFailure("mkdir \(path): errno \(errno)") }
        }
    }

    func write(_ text: String, to relative: String, in folder: TemporaryFolder) throws {
        try makeFolders(FilePaths.split(relative).parent, in: folder)
        try folder.write(text, to: relative)
    }

    func entry(_ name: String, extra: String = "") -> String {
        "[Desktop Entry]\nType=Application\nName=\(name)\nExec=\(name.lowercased())\n\(extra)"
    }

    @Test func theUsersFileWinsThenEachSystemFolderInOrder() throws {
        let folder = try TemporaryFolder()
        let directories = XDGDataDirectories(home: folder("home"), system: [folder("first"), folder("second")])
        let finder = DesktopEntryFinder(directories: directories, locale: nil)
        try write(entry("Second"), to: "second/applications/app.desktop", in: folder)
        #expect(try finder.entry(forID: "app").name == "Second")
        try write(entry("First"), to: "first/applications/app.desktop", in: folder)
        #expect(try finder.entry(forID: "app.desktop").name == "First", "\".desktop\" may be given")
        try write(entry("Mine"), to: "home/applications/app.desktop", in: folder)
        #expect(try finder.path(forID: "app") == folder("home/applications/app.desktop"))
        // A user's Hidden=true copy deletes the application.
        try write(entry("Mine", extra: "Hidden=true\n"), to: "home/applications/app.desktop", in: folder)
        #expect(throws: DesktopEntryError.hidden(path: folder("home/applications/app.desktop"))) { try finder.entry(forID: "app") }
    }

    @Test("Telegram's id ends in .desktop: org.telegram.desktop, its file name and its broadcast URI all find org.telegram.desktop.desktop")
    func anIDEndingInDesktop() throws {
        let folder = try TemporaryFolder()
        let finder = DesktopEntryFinder(directories: XDGDataDirectories(home: folder("home"), system: []), locale: nil)
        try write(entry("Telegram"), to: "home/applications/org.telegram.desktop.desktop", in: folder)
        for written in ["org.telegram.desktop", "org.telegram.desktop.desktop", "application://org.telegram.desktop.desktop"] {
            #expect(try finder.path(forID: written) == folder("home/applications/org.telegram.desktop.desktop"), "\(written)")
            #expect(try finder.entry(forID: written).id == "org.telegram.desktop", "\(written)")
        }
        #expect(throws: DesktopEntryError.notFound(id: "org.other.desktop.desktop or org.other.desktop", searched: [folder("home")])) {
            try finder.path(forID: "org.other.desktop")
        }
    }

    @Test("DesktopFileID: the forms people and broadcasts write, and what each may mean", arguments: [
        ("org.telegram.desktop", ["org.telegram.desktop", "org.telegram"]),
        ("org.telegram.desktop.desktop", ["org.telegram.desktop"]),
        ("application://org.telegram.desktop.desktop", ["org.telegram.desktop"]),
        ("thunderbird", ["thunderbird"]),
        ("thunderbird.desktop", ["thunderbird.desktop", "thunderbird"]),
        ("application://thunderbird.desktop", ["thunderbird"]),
        ("", nil), ("application://", nil), ("a/b", nil), ("application://a/b.desktop", nil), (".x", nil), ("-x", nil),
    ] as [(String, [String]?)])
    func desktopFileIDForms(written: String, candidates: [String]?) {
        #expect(DesktopFileID(written)?.candidates == candidates)
    }

    @Test func anIDWithDashesMayLiveInSubfolders() throws {
        let folder = try TemporaryFolder()
        let finder = DesktopEntryFinder(directories: XDGDataDirectories(home: folder("home"), system: []), locale: nil)
        try write(entry("Bar"), to: "home/applications/org/foo/bar.desktop", in: folder)
        #expect(try finder.path(forID: "org-foo-bar") == folder("home/applications/org/foo/bar.desktop"))
        try write(entry("Baz"), to: "home/applications/kde-apps/baz.desktop", in: folder)
        #expect(try finder.path(forID: "kde-apps-baz") == folder("home/applications/kde-apps/baz.desktop"))
    }

    @Test func missingInvalidAndUninstalledEntriesSayWhy() throws {
        let folder = try TemporaryFolder()
        let directories = XDGDataDirectories(home: folder("home"), system: [folder("sys")])
        let finder = DesktopEntryFinder(directories: directories, locale: nil)
        #expect(throws: DesktopEntryError.notFound(id: "nothing.desktop", searched: [folder("home"), folder("sys")])) {
            try finder.entry(forID: "nothing")
        }
        #expect(DesktopEntryError.notFound(id: "x.desktop", searched: ["/a", "/b"]).description == "no x.desktop in /a/applications, /b/applications")
        for bad in ["", "../etc/passwd", ".hidden", "a/b", "-x"] {
            #expect(throws: DesktopEntryError.invalidID(bad)) { try finder.path(forID: bad) }
        }
        try write(entry("Gone", extra: "TryExec=no-such-program-badgekit\n"), to: "sys/applications/gone.desktop", in: folder)
        #expect(throws: DesktopEntryError.notInstalled(path: folder("sys/applications/gone.desktop"), tryExec: "no-such-program-badgekit")) {
            try finder.entry(forID: "gone")
        }
    }

    @Test func environmentDefaultsFollowTheBaseDirectorySpecification() {
        let defaults = XDGDataDirectories.from(dataHome: nil, dataDirs: nil, home: "/home/u")
        #expect(defaults.searchOrder == ["/home/u/.local/share", "/usr/local/share", "/usr/share"])
        let relative = XDGDataDirectories.from(dataHome: "relative", dataDirs: "also/relative:/opt/share:", home: "/home/u")
        #expect(relative.searchOrder == ["/home/u/.local/share", "/opt/share"], "relative paths are ignored")
    }

    @Test func iconsAreFoundByThemeSizeAndPixmaps() throws {
        let folder = try TemporaryFolder()
        let lookup = IconThemeLookup(iconFolders: [folder("home/icons"), folder("sys/icons")], themes: ["Papirus"],
                                     pixmapFolders: [folder("pixmaps")])
        for size in [16, 32, 48, 256] { try write("png", to: "sys/icons/hicolor/\(size)x\(size)/apps/mail.png", in: folder) }
        try makeFolders("sys/icons/hicolor/64x64/apps", in: folder)  // a size without this icon
        try write("svg", to: "home/icons/hicolor/24x24/apps/mail.svg", in: folder)
        #expect(lookup.path(forIcon: "mail", pixels: 32) == folder("sys/icons/hicolor/32x32/apps/mail.png"))
        #expect(lookup.path(forIcon: "mail", pixels: 20) == folder("home/icons/hicolor/24x24/apps/mail.svg"), "the smallest at least as large")
        #expect(lookup.path(forIcon: "mail", pixels: 60) == folder("sys/icons/hicolor/256x256/apps/mail.png"))
        #expect(lookup.path(forIcon: "mail", pixels: 512) == folder("sys/icons/hicolor/256x256/apps/mail.png"), "else the largest")
        #expect(lookup.path(forIcon: "mail.png", pixels: 32) == folder("sys/icons/hicolor/32x32/apps/mail.png"), "an extension is dropped")

        try write("svg", to: "sys/icons/hicolor/scalable/apps/mail.svg", in: folder)
        #expect(lookup.path(forIcon: "mail", pixels: 32) == folder("sys/icons/hicolor/scalable/apps/mail.svg"), "scalable first")
        try write("png", to: "sys/icons/Papirus/16x16/apps/mail.png", in: folder)
        #expect(lookup.path(forIcon: "mail", pixels: 32) == folder("sys/icons/Papirus/16x16/apps/mail.png"), "the user's theme first")

        try write("png", to: "pixmaps/old.png", in: folder)
        try write("xpm", to: "pixmaps/ancient.xpm", in: folder)
        #expect(lookup.path(forIcon: "old", pixels: 32) == folder("pixmaps/old.png"))
        #expect(lookup.path(forIcon: "ancient", pixels: 32) == nil, "XPM is not read")
        #expect(lookup.path(forIcon: folder("pixmaps/old.png"), pixels: 32) == folder("pixmaps/old.png"), "a path as it is")
        #expect(lookup.path(forIcon: folder("pixmaps/none.png"), pixels: 32) == nil)
        for bad in ["", "../mail", "sub/mail", ".mail"] { #expect(lookup.path(forIcon: bad, pixels: 32) == nil, "\(bad)") }
    }
}
