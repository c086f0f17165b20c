import BadgeCore
import Glibc
import Testing
import XvfbHarness

/// A launcher count outlives neither its sender nor a restart or reload (issue 35, fault 2): the
/// state file keeps the bus connection that said the count, and a reload keeps the source that
/// follows it.
@Suite("E2E: launcher counts across a restart and a reload", .endToEnd(minutes: 2))
struct LauncherGhostTests {
    static let config = #"{"buttons": [{"id": "chat", "icon": "chat", "label": "Chat", "source": {"launcher": "org.example.Chat"}}, {"id": "bell", "icon": "bell"}]}"#

    /// A private home: the config where users keep it (reloaded when it changes), the state file.
    final class Home {
        let path: String
        init(_ name: String) throws {
            path = try Artifacts.path(for: "ghost-\(name)-\(getpid())")
            removeTree(path)
            for folder in ["", "/config", "/config/badge-demo", "/state"] { #expect(mkdir(path + folder, 0o700) == 0) }
            write(LauncherGhostTests.config)
        }
        deinit { removeTree(path) }
        var environment: [String: String] { ["XDG_CONFIG_HOME": path + "/config", "XDG_STATE_HOME": path + "/state"] }

        /// Replaces the config file at once (a new file renamed over the old, as editors save).
        func write(_ text: String) {
            let file = path + "/config/badge-demo/config.json", temporary = file + ".new"
            let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            _ = Array(text.utf8).withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            close(fd)
            rename(temporary, file)
        }

        var stateText: String { (try? readProcFile(path + "/state/badge-demo/state.json")).map { String(decoding: $0, as: UTF8.self) } ?? "" }
    }

    /// The python3-dbus sender, started and showing `count` on the session's chat button.
    static func sender(_ bus: SessionBus, count: Int, on s: DemoSession) throws -> ChildProcess {
        let app = try LauncherSender.start(bus: bus, desktopID: "org.example.Chat")
        #expect(try LauncherSender.broadcast(count, from: app) { (try? s.state().button("chat").count) == count }, "the sender's \(count) shows")
        return app
    }

    @Test("After a restart, a restored launcher count goes once its sender is found gone; while the sender lives it stays, unconfirmed",
          .enabled(if: findOnPath("dbus-daemon") != nil, "dbus-daemon is not installed"))
    func restart() throws {
        let home = try Home("restart")
        let bus = try SessionBus()
        let environment = home.environment.merging(["DBUS_SESSION_BUS_ADDRESS": bus.address]) { $1 }
        var first: DemoSession? = try DemoSession("ghost-restart-1", environment: environment)
        let app = try Self.sender(bus, count: 5, on: try #require(first))
        defer { app.kill(SIGKILL); app.waitForExit(timeout: 5) }
        // The count is saved with the connection that said it.
        let deadline = Deadline(seconds: 10)
        while !home.stateText.contains(#""sender""#), !deadline.hasPassed { _ = try? first?.app.readEvent(named: "never", timeout: 0.1) }
        #expect(home.stateText.contains(#""count":5"#) && home.stateText.contains(#""sender":":"#), "\(home.stateText)")
        try first?.command("quit")
        #expect(first?.app.waitForExit(timeout: 10) == .exited(0))
        first = nil

        // The sender still runs: the restored 5 stays, from the last session.
        let second = try DemoSession("ghost-restart-2", environment: environment)
        var state = try SourceBindingTests.waitFor(second, "the restored count") { try $0.button("chat").count == 5 }
        #expect(try state.button("chat").json["confidence"]?.string == "lastSession")
        try second.sync()
        #expect(try second.state().button("chat").count == 5, "kept while its sender lives")
        // It quits while the badge runs: its count goes with it.
        app.closeStdin()
        #expect(app.waitForExit(timeout: 10) == .exited(0))
        state = try SourceBindingTests.waitFor(second, "the count goes with its sender") { try $0.button("chat").contentKind == "none" }
        let chat = try state.button("chat")
        #expect(chat.json["confidence"]?.string == "current", "\(chat.json)")
        try second.command("quit")
        #expect(second.app.waitForExit(timeout: 10) == .exited(0))
        #expect(!home.stateText.contains(#""sender""#), "\(home.stateText)")
    }

    @Test("A restored launcher count whose sender quit while the badge was closed goes at once",
          .enabled(if: findOnPath("dbus-daemon") != nil, "dbus-daemon is not installed"))
    func restartAfterTheSenderQuit() throws {
        let home = try Home("gone")
        let bus = try SessionBus()
        let environment = home.environment.merging(["DBUS_SESSION_BUS_ADDRESS": bus.address]) { $1 }
        do {
            let first = try DemoSession("ghost-gone-1", environment: environment)
            let app = try Self.sender(bus, count: 8, on: first)
            let deadline = Deadline(seconds: 10)
            while !home.stateText.contains(#""sender""#), !deadline.hasPassed { _ = try? first.app.readEvent(named: "never", timeout: 0.1) }
            try first.command("quit")
            #expect(first.app.waitForExit(timeout: 10) == .exited(0))
            app.closeStdin()
            #expect(app.waitForExit(timeout: 10) == .exited(0))
        }
        #expect(home.stateText.contains(#""count":8"#), "\(home.stateText)")
        let second = try DemoSession("ghost-gone-2", environment: environment)
        let state = try SourceBindingTests.waitFor(second, "no ghost of the quit sender") { try $0.button("chat").contentKind == "none" }
        #expect(try state.button("chat").json["confidence"]?.string == "current")
        let description = try state.button("chat").description
        #expect(description.contains("left the bus"), "\(description)")
    }

    @Test("After a reload, the launcher count still follows its sender: it goes when the sender quits",
          .enabled(if: findOnPath("dbus-daemon") != nil, "dbus-daemon is not installed"))
    func reload() throws {
        let home = try Home("reload")
        let bus = try SessionBus()
        let s = try DemoSession("ghost-reload", environment: home.environment.merging(["DBUS_SESSION_BUS_ADDRESS": bus.address]) { $1 })
        let app = try Self.sender(bus, count: 6, on: s)
        defer { app.kill(SIGKILL); app.waitForExit(timeout: 5) }
        home.write(Self.config.replacing(#""icon": "bell"}"#, with: #""icon": "bell", "label": "Alerts"}"#))
        _ = try s.app.readEvent(named: "config", timeout: 10)
        var state = try s.state()
        let chat = try state.button("chat")
        #expect(chat.count == 6 && chat.json["confidence"]?.string == "current", "the unchanged source kept what it knows: \(chat.json)")
        app.closeStdin()
        #expect(app.waitForExit(timeout: 10) == .exited(0))
        state = try SourceBindingTests.waitFor(s, "the count goes with its sender") { try $0.button("chat").contentKind == "none" }
        #expect(try state.button("chat").description.contains("left the bus"))
    }
}
