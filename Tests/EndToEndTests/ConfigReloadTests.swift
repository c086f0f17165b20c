import BadgeCore
import BadgeControl
import Glibc
import Testing
import XvfbHarness

/// The config file where users keep it ($XDG_CONFIG_HOME/badge-demo/config.json), read at start
/// and again whenever it changes (inotify on its folder, so an editor's rename is caught) or on
/// SIGHUP; a bad edit keeps the running toolbar and is applied once fixed.
@Suite("E2E: the config file, live", .endToEnd(minutes: 1))
struct ConfigReloadTests {
    static func folder(_ name: String) throws -> (home: String, file: String) {
        let home = try Artifacts.path(for: "config-\(name)-\(getpid())")
        removeTree(home)
        #expect(mkdir(home, 0o700) == 0 && mkdir(home + "/badge-demo", 0o700) == 0)
        return (home, home + "/badge-demo/config.json")
    }

    /// Writes `text` the way editors do: a temporary file, then renamed over the old one.
    static func save(_ text: String, to file: String) {
        let temporary = file + ".swp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        _ = Array(text.utf8).withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        rename(temporary, file)
    }

    static let two = #"{"buttons": [{"id": "mail", "icon": "mail", "label": "Inbox"}, {"id": "bell", "icon": "bell"}]}"#
    static let three = #"{"buttons": [{"id": "mail", "icon": "mail", "label": "Inbox"}, {"id": "chat", "icon": "chat", "content": {"kind": "text", "text": "Hi"}}, {"id": "news", "icon": "updates", "content": {"kind": "count", "count": 5}}]}"#

    @Test("Read from XDG_CONFIG_HOME at start; an editor's rename is applied live; surviving buttons keep their counts")
    func liveReload() throws {
        let (home, file) = try Self.folder("live")
        Self.save(Self.two, to: file)
        let s = try DemoSession("config-live", environment: ["XDG_CONFIG_HOME": home])
        #expect(try s.state().buttons.map(\.id) == ["mail", "bell"])
        try s.command("set mail 40")
        try s.sync()
        Self.save(Self.three, to: file)
        let reloaded = try s.app.readEvent(named: "config", timeout: 5)
        #expect(reloaded["cause"]?.string == "file")
        let state = try s.state()
        #expect(state.buttons.map(\.id) == ["mail", "chat", "news"])
        #expect(try state.button("mail").count == 40, "a surviving button keeps its count")
        #expect(try state.button("news").count == 5 && state.button("chat").text == "Hi")
        try s.sync()
        #expect(try s.x.geometry(ofWindow: s.window).width == 8 + 3 * 44 + 2 * 6 + 8, "resized to the new toolbar")
    }

    @Test("A bad edit keeps the toolbar and says why (stderr and an error event); fixing it applies it")
    func badEditKeepsTheToolbar() throws {
        let (home, file) = try Self.folder("bad")
        Self.save(Self.two, to: file)
        let s = try DemoSession("config-bad", environment: ["XDG_CONFIG_HOME": home])
        Self.save(#"{"buttons": [{"id": "mail", "#, to: file)
        let error = try s.app.readEvent(named: "error", timeout: 5) { $0["source"]?.string == "config" }
        #expect(error["reason"]?.string?.contains(file) == true)
        #expect(try s.state().buttons.map(\.id) == ["mail", "bell"], "the running toolbar stays")
        #expect(s.app.stderrText.contains(file) && s.app.stderrText.contains("keeping the toolbar"))
        // The file turns into a folder: the same.
        unlink(file)
        #expect(mkdir(file, 0o700) == 0)
        _ = try s.app.readEvent(named: "error", timeout: 5) { $0["source"]?.string == "config" }
        #expect(try s.state().buttons.map(\.id) == ["mail", "bell"])
        rmdir(file)
        Self.save(Self.three, to: file)
        _ = try s.app.readEvent(named: "config", timeout: 5)
        #expect(try s.state().buttons.map(\.id) == ["mail", "chat", "news"])
        try s.click(MouseButton.left, on: "mail")
        #expect(try s.nextChange()["id"]?.string == "mail", "clicks still count")
    }

    @Test("A misspelled key is a warning on stderr at start and in the reload's config event, and the file still loads")
    func misspelledKeysAreWarnedAbout() throws {
        let (home, file) = try Self.folder("typo")
        Self.save(#"{"thme": "dark", "buttons": [{"id": "mail", "sorce": {"maildir": "~/M"}}, {"id": "bell", "lable": "B"}]}"#, to: file)
        let s = try DemoSession("config-typo", environment: ["XDG_CONFIG_HOME": home])
        #expect(try s.state().buttons.map(\.id) == ["mail", "bell"], "the file loads")
        let stderr = s.app.stderrText
        for line in [#"thme: unknown key; did you mean "theme"?"#, #"buttons[0].sorce: unknown key; did you mean "source"?"#,
                     #"buttons[1].lable: unknown key; did you mean "label"?"#] {
            #expect(stderr.contains("\(file): " + line), "\(stderr)")
        }
        Self.save(#"{"buttons": [{"id": "mail", "icn": "bell"}]}"#, to: file)
        let reloaded = try s.app.readEvent(named: "config", timeout: 5)
        #expect(reloaded["buttons"]?.array?.compactMap(\.string) == ["mail"])
        #expect(reloaded["warnings"]?.array?.compactMap(\.string) == [#"\#(file): buttons[0].icn: unknown key; did you mean "icon"?"#],
                "\(reloaded)")
    }

    @Test("A file being written (created, then filled) is read once it is whole: no spurious 'not valid JSON'")
    func aFileBeingWrittenIsReadWhole() throws {
        let (home, file) = try Self.folder("creating")
        let s = try DemoSession("config-creating", environment: ["XDG_CONFIG_HOME": home])
        let fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        try #require(fd >= 0)
        try s.sync()  // the app has seen the new, empty file
        try s.sync()
        _ = Array(Self.two.utf8).withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        let reloaded = try s.app.readEvent(named: "config", timeout: 5)
        #expect(reloaded["buttons"]?.array?.compactMap(\.string) == ["mail", "bell"])
        #expect(!s.app.stderrText.contains("not valid JSON"), "\(s.app.stderrText)")
        // A file emptied on purpose and saved still says what is wrong.
        let again = open(file, O_WRONLY | O_TRUNC)
        close(again)
        let error = try s.app.readEvent(named: "error", timeout: 5) { $0["source"]?.string == "config" }
        #expect((error["reason"]?.string ?? "").contains("line 1, column 1"), "\(error)")
    }

    /// The config errors the app reported so far, once it has handled everything before a sync.
    static func configErrors(_ s: DemoSession) throws -> [JSONValue] {
        try s.sync()
        return s.app.takePendingEvents(named: "error").filter { $0["source"]?.string == "config" }
    }

    @Test("Truncated, then written 150 ms later (a half-saved file): no error, and the new config applies; the settle leaves no timer")
    func truncateThenWrite() throws {
        let (home, file) = try Self.folder("truncate")
        Self.save(Self.two, to: file)
        let s = try DemoSession("config-truncate", environment: ["XDG_CONFIG_HOME": home])
        // The editor: open(O_TRUNC), close; later, open and write the whole text. The pause paces
        // the simulated writer, it waits on nothing of the app's.
        close(open(file, O_WRONLY | O_TRUNC))
        measureInterval(seconds: 0.15)
        let fd = open(file, O_WRONLY)
        try #require(fd >= 0)
        _ = Array(Self.three.utf8).withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        let reloaded = try s.app.readEvent(named: "config", timeout: 5)
        #expect(reloaded["buttons"]?.array?.compactMap(\.string) == ["mail", "chat", "news"])
        #expect(try s.state().buttons.map(\.id) == ["mail", "chat", "news"])
        #expect(try Self.configErrors(s).isEmpty)
        #expect(!s.app.stderrText.contains("not valid JSON"), "\(s.app.stderrText)")
        try s.moveAwayAndSync()
        #expect(try s.app.waitUntilIdle(timeout: 10, quiet: 60), "no settle timer left behind")
    }

    @Test("A file that stays cut is reported once, after the settle (0.3 s); one bad before its end at once")
    func staysCutIsReportedOnce() throws {
        let (home, file) = try Self.folder("stays-cut")
        Self.save(Self.two, to: file)
        let s = try DemoSession("config-stays-cut", environment: ["XDG_CONFIG_HOME": home])
        let written = ContinuousClock.now
        Self.writeInPlace(#"{"buttons": [{"id": "mail", "icon": "ma"#, to: file)
        let error = try s.app.readEvent(named: "error", timeout: 5) { $0["source"]?.string == "config" }
        let waited = secondsSince(written)
        #expect((error["reason"]?.string ?? "").contains("unexpected end of the text"), "\(error)")
        #expect(waited >= 0.29, "reported \(waited) s after the write: before the settle ended")
        try s.moveAwayAndSync()
        #expect(try s.app.waitUntilIdle(timeout: 10, quiet: 60), "no second settle timer")
        #expect(try Self.configErrors(s).isEmpty, "reported once")
        #expect(s.app.stderrText.split(separator: "not valid JSON", omittingEmptySubsequences: false).count == 2, "\(s.app.stderrText)")
        #expect(try s.state().buttons.map(\.id) == ["mail", "bell"], "the running toolbar stays")
        // A mistake before the end cannot be mended by more text: reported without a settle.
        Self.writeInPlace(#"{"buttons" [{"id": "mail"}]}"#, to: file)
        let middle = try s.app.readEvent(named: "error", timeout: 5) { $0["source"]?.string == "config" }
        #expect((middle["reason"]?.string ?? "").contains("expected ':' after an object key"), "\(middle)")
        Self.save(Self.three, to: file)
        _ = try s.app.readEvent(named: "config", timeout: 5)
        #expect(try s.state().buttons.map(\.id) == ["mail", "chat", "news"])
    }

    @Test("SIGHUP reads the config file again; a removed file keeps the toolbar")
    func sighupReloads() throws {
        let (home, file) = try Self.folder("hup")
        Self.save(Self.two, to: file)
        let s = try DemoSession("config-hup", environment: ["XDG_CONFIG_HOME": home])
        let tool = try ChildProcess(executable: "kill", arguments: ["-s", "HUP", String(s.app.pid)], stdin: .null)
        #expect(tool.waitForExit(timeout: 10) == .exited(0))
        let reloaded = try s.app.readEvent(named: "config", timeout: 5)
        #expect(reloaded["cause"]?.string == "signal")
        unlink(file)
        try s.sync()
        #expect(try s.state().buttons.map(\.id) == ["mail", "bell"], "a vanished file keeps the toolbar")
        #expect(s.app.waitForExit(timeout: 0) == nil)
    }

    /// Writes `text` into the existing file in place (truncate and write, as `>` or an editor with
    /// backupcopy does): the file keeps its inode.
    static func writeInPlace(_ text: String, to file: String) {
        let fd = open(file, O_WRONLY | O_TRUNC)
        #expect(fd >= 0, "cannot open \(file)")
        _ = Array(text.utf8).withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }

    @Test("A config that is a symlink into a dotfiles folder: edits of the target (rename and in place) are applied; a re-pointed link is followed")
    func symlinkedConfig() throws {
        let (home, file) = try Self.folder("symlink")
        let dotfiles = home + "/dotfiles"
        #expect(mkdir(dotfiles, 0o700) == 0)
        let target = dotfiles + "/badge-demo.json"
        Self.save(Self.two, to: target)
        #expect(symlink("../dotfiles/badge-demo.json", file) == 0, "a relative link, as stow makes")
        let s = try DemoSession("config-symlink", environment: ["XDG_CONFIG_HOME": home])
        #expect(try s.state().buttons.map(\.id) == ["mail", "bell"])
        // An editor in the dotfiles folder: a temporary file renamed over the target.
        Self.save(Self.three, to: target)
        _ = try s.app.readEvent(named: "config", timeout: 5)
        #expect(try s.state().buttons.map(\.id) == ["mail", "chat", "news"])
        // A write in place of the target (the same inode).
        Self.writeInPlace(Self.two, to: target)
        _ = try s.app.readEvent(named: "config", timeout: 5)
        #expect(try s.state().buttons.map(\.id) == ["mail", "bell"])
        // The link pointed at another file (home-manager's switch): followed, and that file's edits too.
        let other = dotfiles + "/other.json"
        Self.save(Self.three, to: other)
        #expect(symlink(other, file + ".new") == 0 && rename(file + ".new", file) == 0)
        _ = try s.app.readEvent(named: "config", timeout: 5)
        #expect(try s.state().buttons.map(\.id) == ["mail", "chat", "news"])
        Self.writeInPlace(Self.two, to: other)
        _ = try s.app.readEvent(named: "config", timeout: 5)
        #expect(try s.state().buttons.map(\.id) == ["mail", "bell"])
        // The old target no longer matters.
        Self.save(Self.three, to: target)
        try s.sync()
        #expect(s.app.takePendingEvents(named: "config").isEmpty)
        #expect(try s.state().buttons.map(\.id) == ["mail", "bell"])
    }

    @Test("A config folder created after start is watched from its parent, then read when the file appears")
    func folderCreatedAfterStart() throws {
        let home = try Artifacts.path(for: "config-late-\(getpid())")
        removeTree(home)
        #expect(mkdir(home, 0o700) == 0)
        let s = try DemoSession("config-late", environment: ["XDG_CONFIG_HOME": home])
        #expect(try s.state().buttons.map(\.id) == ["bell", "mail", "chat", "updates"])
        #expect(mkdir(home + "/badge-demo", 0o700) == 0)
        Self.save(Self.two, to: home + "/badge-demo/config.json")
        _ = try s.app.readEvent(named: "config", timeout: 5)
        #expect(try s.state().buttons.map(\.id) == ["mail", "bell"])
        // And edits after that.
        Self.save(Self.three, to: home + "/badge-demo/config.json")
        _ = try s.app.readEvent(named: "config", timeout: 5) { $0["buttons"]?.array?.count == 3 }
        #expect(try s.state().buttons.map(\.id) == ["mail", "chat", "news"])
    }

    @Test("XDG_CONFIG_HOME itself created after start, two levels down: still followed")
    func configHomeCreatedAfterStart() throws {
        let base = try Artifacts.path(for: "config-deep-\(getpid())")
        removeTree(base)
        #expect(mkdir(base, 0o700) == 0)
        let home = base + "/a/b"
        let s = try DemoSession("config-deep", environment: ["XDG_CONFIG_HOME": home])
        #expect(mkdir(base + "/a", 0o700) == 0 && mkdir(home, 0o700) == 0 && mkdir(home + "/badge-demo", 0o700) == 0)
        Self.save(Self.two, to: home + "/badge-demo/config.json")
        _ = try s.app.readEvent(named: "config", timeout: 5) { $0["buttons"]?.array?.count == 2 }
        #expect(try s.state().buttons.map(\.id) == ["mail", "bell"])
    }

    @Test("A config folder removed and made again is watched again")
    func folderRemovedAndMadeAgain() throws {
        let (home, file) = try Self.folder("remade")
        Self.save(Self.two, to: file)
        let s = try DemoSession("config-remade", environment: ["XDG_CONFIG_HOME": home])
        #expect(try s.state().buttons.map(\.id) == ["mail", "bell"])
        unlink(file)
        #expect(rmdir(home + "/badge-demo") == 0)
        try s.sync()
        #expect(try s.state().buttons.map(\.id) == ["mail", "bell"], "a vanished folder keeps the toolbar")
        #expect(mkdir(home + "/badge-demo", 0o700) == 0)
        Self.save(Self.three, to: file)
        _ = try s.app.readEvent(named: "config", timeout: 5) { $0["buttons"]?.array?.count == 3 }
        #expect(try s.state().buttons.map(\.id) == ["mail", "chat", "news"])
        // Edits in place in the new folder too.
        Self.writeInPlace(Self.two, to: file)
        _ = try s.app.readEvent(named: "config", timeout: 5) { $0["buttons"]?.array?.count == 2 }
        #expect(try s.state().buttons.map(\.id) == ["mail", "bell"])
    }

    @Test("Nothing changing means no wakeups: idle with the config folder missing and with a symlinked config")
    func idleWatchesCostNothing() throws {
        let (home, file) = try Self.folder("idle")
        let dotfiles = home + "/dotfiles"
        #expect(mkdir(dotfiles, 0o700) == 0)
        Self.save(Self.two, to: dotfiles + "/c.json")
        #expect(symlink(dotfiles + "/c.json", file) == 0)
        // The nearest existing folder is watched for the missing one to appear, and inotify wakes the
        // app for anything made there: a private folder, not the artifacts folder other tests write to.
        let missing = try Artifacts.path(for: "config-idle-missing-\(getpid())")
        removeTree(missing)
        #expect(mkdir(missing, 0o700) == 0)
        for (name, xdg) in [("symlink", home), ("missing", missing + "/x/y")] {
            let s = try DemoSession("config-idle-\(name)", environment: ["XDG_CONFIG_HOME": xdg])
            try s.moveAwayAndSync()
            #expect(try s.app.waitUntilIdle(timeout: 10, quiet: 60), "\(name): the loop keeps a deadline within a minute")
            let ticks = try s.app.cpuTicks(), switches = try s.app.contextSwitches()
            measureInterval(seconds: 1)
            #expect(try s.app.contextSwitches() == switches, "\(name): the loop woke up while nothing changed")
            #expect(try s.app.cpuTicks() == ticks, "\(name): CPU used while idle")
        }
    }
}
