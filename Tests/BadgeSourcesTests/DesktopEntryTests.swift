@testable import BadgeSources
import Glibc
import Testing

/// Desktop files as the Desktop Entry specification reads them: the group, locales, escapes,
/// booleans, the Exec line's quoting and field codes, bad files and the size cap.
@Suite struct DesktopEntryTests {
    static let telegram = """
    # A comment, then a blank line

    [Desktop Entry]
    Type=Application
    Name=Telegram Desktop
    Name[de]=Telegram (Deutsch)
    Name[de_DE]=Telegram (Deutschland)
    Name[sr@latin]=Telegram latinica
    Name[sr]=Телеграм
    Comment=Official desktop application
    Exec=telegram-desktop -- %u
    TryExec = telegram-desktop
    Icon=telegram
    StartupWMClass=TelegramDesktop
    NoDisplay=false
    Hidden=false
    Actions=quit;

    [Desktop Action quit]
    Name=Quit Telegram
    Exec=telegram-desktop -quit
    """

    func parse(_ text: String, locale: String? = nil, path: String = "/x/app.desktop") throws(DesktopEntryError) -> DesktopEntry {
        try DesktopEntry(parsing: Array(text.utf8), id: "app", path: path, locale: locale)
    }

    @Test func theEntryGroupsKeysAreRead() throws {
        let entry = try parse(Self.telegram)
        #expect(entry.type == "Application")
        #expect(entry.name == "Telegram Desktop")
        #expect(entry.icon == "telegram")
        #expect(entry.startupWMClass == "TelegramDesktop")
        #expect(entry.exec == "telegram-desktop -- %u")
        #expect(entry.tryExec == "telegram-desktop", "spaces around = are ignored")
        #expect(!entry.hidden && !entry.noDisplay && !entry.terminal)
        #expect(try entry.arguments() == ["telegram-desktop", "--"], "the action's Exec in another group is not read")
        #expect(entry.windowClasses == ["TelegramDesktop"])
    }

    @Test(arguments: [
        ("de_DE.UTF-8", "Telegram (Deutschland)"), ("de_AT.UTF-8", "Telegram (Deutsch)"), ("de", "Telegram (Deutsch)"),
        ("sr_RS@latin", "Telegram latinica"), ("sr_RS.UTF-8", "Телеграм"), ("fr_FR.UTF-8", "Telegram Desktop"),
        ("C", "Telegram Desktop"), ("POSIX", "Telegram Desktop"), ("", "Telegram Desktop"),
    ])
    func theNameFollowsTheLocale(locale: String, expected: String) throws {
        #expect(try parse(Self.telegram, locale: locale).name == expected)
    }

    @Test func localeCandidatesFollowTheSpecification() {
        #expect(DesktopKeyFile.localeCandidates("de_DE.UTF-8@euro") == ["de_DE@euro", "de_DE", "de@euro", "de"])
        #expect(DesktopKeyFile.localeCandidates("de.UTF-8") == ["de"])
        #expect(DesktopKeyFile.localeCandidates(nil) == [])
    }

    @Test func stringEscapesAreApplied() throws {
        let entry = try parse("[Desktop Entry]\nType=Application\nName=A\\sB\\tC\\nD\\rE\\\\F\\qG\nIcon=\\s\n")
        #expect(entry.name == "A B\tC\nD\rE\\F\\qG", "unknown escapes are kept for Exec's own rules")
        #expect(entry.icon == " ")
    }

    @Test func booleansAndCRLFLines() throws {
        let entry = try parse("[Desktop Entry]\r\nType=Application\r\nName=App\r\nHidden=true\r\nNoDisplay=1\r\nTerminal=true\r\n")
        #expect(entry.name == "App" && entry.hidden && entry.noDisplay && entry.terminal)
        #expect(throws: DesktopEntryError.invalid(path: "/x/app.desktop", reason: "Hidden is \"yes\", not true or false")) {
            try parse("[Desktop Entry]\nType=Application\nName=App\nHidden=yes\n")
        }
    }

    @Test func theFirstEntryGroupAndTheFirstOfADuplicateKeyWin() throws {
        let entry = try parse("[Desktop Entry]\nType=Application\nName=First\nName=Second\n[Other]\nIcon=x\n[Desktop Entry]\nIcon=y\n")
        #expect(entry.name == "First")
        #expect(entry.icon == nil)
    }

    @Test(arguments: [
        ("Exec=sh -c \"echo \\\\\"hi there\\\\\" \\\\$HOME\" %U", ["sh", "-c", "echo \"hi there\" $HOME"]),
        ("Exec=\"/opt/My App/bin/app\" --new-window %F", ["/opt/My App/bin/app", "--new-window"]),
        ("Exec=app   two\\sspaces  \"\"", ["app", "two", "spaces", ""]),
        ("Exec=app %f%u %% 100%% \"quoted \\\\\\\\ backslash\"", ["app", "%", "100%", "quoted \\ backslash"]),
        ("Exec=app %i --name=%c --file %k", ["app", "--icon", "appicon", "--name=App", "--file", "/x/app.desktop"]),
        ("Exec=app %d %D %n %N %v %m end", ["app", "end"]),
    ])
    func execIsSplitWithFieldCodes(line: String, expected: [String]) throws {
        let entry = try parse("[Desktop Entry]\nType=Application\nName=App\nIcon=appicon\n\(line)\n")
        #expect(try entry.arguments() == expected)
    }

    @Test func iconCodeWithoutAnIconIsNothing() throws {
        let entry = try parse("[Desktop Entry]\nType=Application\nName=App\nExec=app %i x\n")
        #expect(try entry.arguments() == ["app", "x"])
    }

    @Test(arguments: [
        ("Exec=app \"unclosed", #"Exec has a quote that is not closed: "app \"unclosed""#),
        ("Exec=app %z", #"Exec has an unknown field code "%z""#),
        ("Exec=app 100%", "Exec ends in a lone %"),
        ("Exec=%U", "Exec names no program"),
        ("Icon=x", "it has no Exec"),
    ])
    func badExecLinesSayWhy(line: String, reason: String) throws {
        let entry = try parse("[Desktop Entry]\nType=Application\nName=App\n\(line)\n")
        #expect(throws: DesktopEntryError.cannotLaunch(path: "/x/app.desktop", reason: reason)) { try entry.arguments() }
    }

    @Test func aLinkIsNotLaunched() throws {
        let entry = try parse("[Desktop Entry]\nType=Link\nName=Site\nURL=https://example.org\n")
        #expect(throws: DesktopEntryError.cannotLaunch(path: "/x/app.desktop", reason: "it is a Link, not an Application")) {
            try entry.arguments()
        }
    }

    @Test(arguments: [
        ("Type=Application\nName=App\n", "it has no [Desktop Entry] group"),
        ("[Desktop Entry]\nName=App\n", "it has no Type"),
        ("[Desktop Entry]\nType=Application\nName[de]=App\n", "it has no Name"),
        ("[Desktop Entry]\nType=Application\nName=App\njust words\n", "line 4 is neither a group nor Key=value"),
        ("[Desktop Entry\nType=Application\n", "line 1 opens a group without closing it"),
        ("[Desktop Entry]\nType=Application\nName=App\nBad Key=1\n", "line 4 has an invalid key \"Bad Key\""),
    ])
    func badFilesSayWhy(text: String, reason: String) {
        #expect(throws: DesktopEntryError.invalid(path: "/x/app.desktop", reason: reason)) { try parse(text) }
    }

    @Test func bytesThatAreNotUTF8AreRefused() {
        let bytes = Array("[Desktop Entry]\nType=Application\nName=".utf8) + [0xFF, 0xFE, 0x0A]
        #expect(throws: DesktopEntryError.invalid(path: "/p", reason: "it is not UTF-8 text")) {
            try DesktopEntry(parsing: bytes, id: "x", path: "/p", locale: nil)
        }
    }

    @Test func filesAreReadBoundedAndRegularOnly() throws {
        let folder = try TemporaryFolder()
        try folder.write(Self.telegram, to: "org.telegram.desktop.desktop")
        let entry = try DesktopEntry(contentsOf: folder("org.telegram.desktop.desktop"), locale: "de_DE.UTF-8")
        #expect(entry.id == "org.telegram.desktop" && entry.name == "Telegram (Deutschland)")

        let huge = "[Desktop Entry]\nType=Application\nName=Big\n" + "# " + String(repeating: "x", count: DesktopEntry.maximumBytes) + "\n"
        try folder.write(huge, to: "big.desktop")
        #expect(throws: DesktopEntryError.unreadable(path: folder("big.desktop"), reason: "is larger than 256 KiB")) {
            try DesktopEntry(contentsOf: folder("big.desktop"))
        }
        #expect(mkfifo(folder("fifo.desktop"), 0o600) == 0)
        #expect(throws: DesktopEntryError.unreadable(path: folder("fifo.desktop"), reason: "is not a regular file")) {
            try DesktopEntry(contentsOf: folder("fifo.desktop"))
        }
        #expect(mkdir(folder("dir.desktop"), 0o700) == 0)
        #expect(throws: DesktopEntryError.unreadable(path: folder("dir.desktop"), reason: "is not a regular file")) {
            try DesktopEntry(contentsOf: folder("dir.desktop"))
        }
    }

    @Test func windowClassesAreGuessedWithoutStartupWMClass() throws {
        let entry = try DesktopEntry(parsing: Array("[Desktop Entry]\nType=Application\nName=Mail\nExec=/usr/bin/thunderbird %u\n".utf8),
                                     id: "org.mozilla.Thunderbird", path: "/p", locale: nil)
        #expect(entry.windowClasses == ["org.mozilla.Thunderbird", "thunderbird"])
    }

    @Test func tryExecIsLookedUpOnPath() throws {
        func entry(_ tryExec: String) throws -> DesktopEntry {
            try parse("[Desktop Entry]\nType=Application\nName=App\nTryExec=\(tryExec)\n")
        }
        #expect(try entry("sh").tryExecSucceeds)
        #expect(try entry("/bin/sh").tryExecSucceeds)
        #expect(try !entry("no-such-program-badgekit").tryExecSucceeds)
        #expect(try !entry("/tmp").tryExecSucceeds, "a folder is not a program")
    }
}
