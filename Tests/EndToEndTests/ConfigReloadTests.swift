import BadgeCore
import Glibc
import Testing
import XvfbHarness

/// The config file where users keep it ($XDG_CONFIG_HOME/badge-demo/config.json), read at start
/// and again whenever it changes (inotify on its folder, so an editor's rename is caught) or on
/// SIGHUP; a bad edit keeps the running toolbar and is applied once fixed.
@Suite("E2E: the config file, live", .timeLimit(.minutes(1)))
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
}
