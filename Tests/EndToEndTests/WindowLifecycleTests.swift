import BadgeCore
import Glibc
import Testing
import XvfbHarness

/// Window properties, closing, losing the server, start-up failures and arguments.
@Suite("E2E: window and lifecycle", .endToEnd(minutes: 1))
struct WindowLifecycleTests {
    @Test("WM_CLASS, _NET_WM_NAME and WM_NAME; the title follows the total")
    func windowProperties() throws {
        let s = try DemoSession("properties")
        let wmClass = try #require(try s.x.property(window: s.window, name: "WM_CLASS"))
        #expect(wmClass.bytes == Array("badge-demo\0BadgeDemo\0".utf8), "WM_CLASS was \(wmClass.bytes)")
        #expect(wmClass.typeName == "STRING" && wmClass.format == 8)
        let netName = try #require(try s.x.property(window: s.window, name: "_NET_WM_NAME"))
        #expect(netName.typeName == "UTF8_STRING" && netName.format == 8)
        #expect(netName.string == "(15) Badges")
        #expect(try s.x.property(window: s.window, name: "WM_NAME")?.string == "(15) Badges")

        try s.x.selectPropertyChanges(window: s.window)
        try s.click(MouseButton.left, on: "bell")
        _ = try s.nextChange()
        try s.sync()
        let updated = try s.x.waitForProperty(window: s.window, name: "_NET_WM_NAME") { $0?.string == "(16) Badges" }
        #expect(updated?.typeName == "UTF8_STRING")
        try s.x.waitForProperty(window: s.window, name: "WM_NAME") { $0?.string == "(16) Badges" }
        #expect(try s.state().title == "(16) Badges")
    }

    @Test("No DISPLAY and no XDG_RUNTIME_DIR: the display's error is the first line, and the exit status 1")
    func noDisplayIsTheFirstLine() throws {
        let home = try Artifacts.path(for: "no-display-\(getpid())")
        removeTree(home)
        #expect(mkdir(home, 0o700) == 0)
        defer { removeTree(home) }
        let app = try ChildProcess(executable: try BuiltProducts.executable(named: "badge-demo"), arguments: ["--no-state"],
                                   environment: .inherited(adding: ["HOME": home, "XDG_STATE_HOME": home],
                                                           removing: ["DISPLAY", "XDG_RUNTIME_DIR", "WAYLAND_DISPLAY"]),
                                   stdin: .null)
        #expect(app.waitForExit(timeout: 10) == .exited(1))
        let first = app.stderrText.split(separator: "\n").first.map(String.init) ?? ""
        #expect(first.hasPrefix("badge-demo: no display: DISPLAY is not set"), "\(app.stderrText)")
    }

    @Test("WM_DELETE_WINDOW exits with status 0")
    func deleteWindowExits() throws {
        let s = try DemoSession("delete")
        try s.x.sendDeleteWindow(window: s.window)
        let status = s.app.waitForExit(timeout: 5)
        #expect(status == .exited(0), "status \(status?.description ?? "still running after 5 s"); stderr: \(s.app.stderrText)")
    }

    @Test("The quit command exits with status 0")
    func quitCommand() throws {
        let s = try DemoSession("quit")
        try s.command("quit")
        #expect(s.app.waitForExit(timeout: 5) == .exited(0))
    }

    @Test("A sync written together with quit is still answered, after the change before it")
    func syncThenQuit() throws {
        let s = try DemoSession("sync-quit", reduceMotion: true)
        try s.command("set mail 7\nsync last\nquit")
        let change = try s.nextChange()
        #expect(change["content"]?["count"]?.int == 7)
        let answer = try s.app.readEvent(named: "sync", timeout: 5)
        #expect(answer["token"]?.string == "last")
        #expect(s.app.waitForExit(timeout: 5) == .exited(0))
    }

    @Test("Killing the X server while idle: exit 3 within 1 s with one line on stderr",
          arguments: [false, true])
    func serverLoss(whileAnimating: Bool) throws {
        let s = try DemoSession(whileAnimating ? "server-loss-animating" : "server-loss-idle", reduceMotion: !whileAnimating)
        if whileAnimating {
            try s.click(MouseButton.left, on: "bell")
            try s.sync()
            #expect(try s.state().animating, "expected an animation to be running when the server dies")
        } else {
            try s.moveAwayAndSync()
        }
        let start = ContinuousClock.now
        s.server.kill()
        let status = s.app.waitForExit(timeout: 5)
        let elapsed = secondsSince(start)
        #expect(status == .exited(3), "status: \(status?.description ?? "still running after 5 s")")
        #expect(elapsed < 1.0, "took \(elapsed) s to notice the server was gone")
        let lines = s.app.stderrText.split(separator: "\n", omittingEmptySubsequences: true)
        #expect(lines.count == 1, "stderr: \(lines)")
        #expect(lines.first?.hasPrefix("badge-demo: lost the connection to the X server") == true, "stderr: \(lines)")
    }

    /// Runs badge-demo without an X server; returns status, stdout and stderr.
    static func runWithoutServer(_ arguments: [String], environment: ChildEnvironment) throws -> (ProcessTermination?, String, String) {
        let app = try ChildProcess(executable: BuiltProducts.executable(named: "badge-demo"), arguments: arguments,
                                   environment: environment, stdin: .null)
        var out: [String] = []
        while let line = try app.readLine(timeout: 10) { out.append(line) }
        let status = app.waitForExit(timeout: 10)
        return (status, out.joined(separator: "\n"), app.stderrText)
    }

    @Test("No DISPLAY: exit 1 with one line mentioning DISPLAY")
    func noDisplay() throws {
        let (status, _, stderr) = try Self.runWithoutServer([], environment: .inherited(removing: ["DISPLAY"]))
        #expect(status == .exited(1))
        let lines = stderr.split(separator: "\n")
        #expect(lines.count == 1 && stderr.contains("DISPLAY"), "stderr: \(stderr)")
    }

    @Test("Unreachable display: exit 1 with one line naming it")
    func unreachableDisplay() throws {
        var number = 7777
        while access("/tmp/.X11-unix/X\(number)", F_OK) == 0 || access("/tmp/.X\(number)-lock", F_OK) == 0 { number += 1 }
        let display = ":\(number)"
        let (status, _, stderr) = try Self.runWithoutServer([], environment: .inherited(adding: ["DISPLAY": display]))
        #expect(status == .exited(1))
        let lines = stderr.split(separator: "\n")
        #expect(lines.count == 1 && stderr.contains("\"\(display)\""), "stderr: \(stderr)")
    }

    @Test("Bad arguments exit 2 with usage; --help and --version exit 0")
    func arguments() throws {
        let env = ChildEnvironment.inherited(removing: ["DISPLAY"])
        for bad in [["--bogus"], ["--count", "bell=abc"], ["--count"], ["--scale", "zero"]] {
            let (status, _, stderr) = try Self.runWithoutServer(bad, environment: env)
            #expect(status == .exited(2), "\(bad): \(status?.description ?? "running")")
            #expect(stderr.lowercased().contains("usage"), "\(bad): stderr lacks usage: \(stderr)")
            #expect(stderr.hasPrefix("badge-demo: "), "\(bad): first line should say what was wrong: \(stderr)")
        }
        let (helpStatus, help, _) = try Self.runWithoutServer(["--help"], environment: env)
        #expect(helpStatus == .exited(0))
        #expect(help.lowercased().contains("usage") && help.contains("--count"), "help: \(help)")
        let (versionStatus, version, _) = try Self.runWithoutServer(["--version"], environment: env)
        #expect(versionStatus == .exited(0))
        #expect(version.contains("badge-demo"), "version: \(version)")
    }
}
