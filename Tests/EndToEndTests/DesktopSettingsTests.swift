import BadgeCore
import Glibc
import Testing
import XvfbHarness

/// Live desktop settings, from a real settings daemon (Debian's xsettingsd: edit its file, send it
/// SIGHUP) and from `xrdb -merge`: the scale, the dark theme and reduced motion follow at once;
/// flags win; `state` says where each setting comes from.
@Suite("E2E: live desktop settings", .timeLimit(.minutes(1)),
       .enabled(if: findOnPath("xsettingsd") != nil && findOnPath("xrdb") != nil, "needs xsettingsd and xrdb (make test installs them)"))
struct DesktopSettingsTests {
    static func writeFile(_ path: String, _ text: String) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        _ = Array(text.utf8).withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }

    static func settings(_ s: DemoSession) throws -> JSONValue {
        try s.app.writeLine("state")
        return try #require(try s.app.readEvent(named: "state")["settings"])
    }

    /// Waits (re-asking `state`) until `condition` holds for the settings, or 5 s pass.
    static func waitFor(_ s: DemoSession, _ condition: (JSONValue) -> Bool) throws -> JSONValue {
        let deadline = Deadline(seconds: 5)
        while true {
            let current = try settings(s)
            if condition(current) || deadline.hasPassed { return current }
            try s.sync()
        }
    }

    @Test("xsettingsd: DPI, dark theme and animations followed live, through SIGHUP, and a daemon that quits")
    func followsXsettingsd() throws {
        let config = try Artifacts.path(for: "xsettingsd-\(getpid()).conf")
        defer { unlink(config) }
        Self.writeFile(config, "Xft/DPI 147456\nNet/ThemeName \"Adwaita-dark\"\nGtk/EnableAnimations 0\n")
        var daemon: ChildProcess?
        let s = try DemoSession("xsettings", reduceMotion: false) { server, _ in
            daemon = try ChildProcess(executable: "xsettingsd", arguments: ["-c", config],
                                      environment: .inherited(adding: ["DISPLAY": server.display]), stdin: .null)
            // Until it owns the selection: its first log line says it took the screen.
            let x = try XTestClient(display: server.display)
            let deadline = Deadline(seconds: 5)
            while try x.selectionOwner("_XSETTINGS_S0") == 0 && !deadline.hasPassed {}
        }
        let first = try Self.settings(s)
        #expect(first["scale"]?.double == 1.5 && first["scaleFrom"]?.string == "desktop")
        #expect(first["theme"]?.string == "dark" && first["themeFrom"]?.string == "desktop")
        #expect(first["reducedMotion"]?.bool == true && first["reducedMotionFrom"]?.string == "desktop")
        #expect(s.size.height == 90, "the window opened at the desktop's scale (60 × 1.5): \(s.size)")

        // Edit the file, SIGHUP the daemon: 192 dpi, a light theme, animations back on.
        Self.writeFile(config, "Xft/DPI 196608\nNet/ThemeName \"Adwaita\"\nGtk/EnableAnimations 1\n")
        daemon?.kill(SIGHUP)
        let second = try Self.waitFor(s) { $0["scale"]?.double == 2 && $0["theme"]?.string == "light" }
        #expect(second["scale"]?.double == 2 && second["theme"]?.string == "light" && second["reducedMotion"]?.bool == false)
        try s.sync()
        let geometry = try s.x.geometry(ofWindow: s.window)
        #expect(geometry.height == 120, "resized to its preferred size at 2×: \(geometry)")
        // The pixels are the light theme's, at the new size.
        let image = try s.capture()
        #expect(image.pixel(x: 2, y: 2).r > 200, "light toolbar background")

        // The daemon quits: its settings go with it (GTK does the same).
        daemon?.kill(SIGTERM)
        _ = daemon?.waitForExit(timeout: 5)
        let third = try Self.waitFor(s) { $0["scaleFrom"]?.string == "default" }
        #expect(third["scale"]?.double == 1 && third["scaleFrom"]?.string == "default")
        #expect(s.app.waitForExit(timeout: 0) == nil, "the app keeps running: \(s.app.stderrText)")
    }

    @Test("Flags win over the desktop")
    func flagsWin() throws {
        let config = try Artifacts.path(for: "xsettingsd-flags-\(getpid()).conf")
        defer { unlink(config) }
        Self.writeFile(config, "Xft/DPI 196608\nNet/ThemeName \"Adwaita-dark\"\n")
        var daemon: ChildProcess?
        let s = try DemoSession("xsettings-flags", arguments: ["--scale", "1", "--theme", "light"]) { server, _ in
            daemon = try ChildProcess(executable: "xsettingsd", arguments: ["-c", config],
                                      environment: .inherited(adding: ["DISPLAY": server.display]), stdin: .null)
            let x = try XTestClient(display: server.display)
            let deadline = Deadline(seconds: 5)
            while try x.selectionOwner("_XSETTINGS_S0") == 0 && !deadline.hasPassed {}
        }
        let settings = try Self.settings(s)
        #expect(settings["scale"]?.double == 1 && settings["scaleFrom"]?.string == "flag")
        #expect(settings["theme"]?.string == "light" && settings["themeFrom"]?.string == "flag")
        #expect(settings["reducedMotionFrom"]?.string == "flag", "BADGE_REDUCE_MOTION=1 is the session's")
        _ = daemon
    }

    @Test("xrdb -merge of Xft.dpi rescales the running app; absurd values are ignored")
    func followsXrdb() throws {
        let s = try DemoSession("xrdb", reduceMotion: true)
        #expect(try Self.settings(s)["scale"]?.double == 1)
        func merge(_ resources: String) throws {
            let tool = try ChildProcess(executable: "xrdb", arguments: ["-merge"],
                                        environment: .inherited(adding: ["DISPLAY": s.server.display]), stdin: .pipe)
            try tool.writeLine(resources)
            tool.closeStdin()
            #expect(tool.waitForExit(timeout: 10) == .exited(0), "xrdb: \(tool.stderrText)")
        }
        try merge("Xft.dpi: 192")
        let doubled = try Self.waitFor(s) { $0["scale"]?.double == 2 }
        #expect(doubled["scale"]?.double == 2 && doubled["scaleFrom"]?.string == "desktop")
        for absurd in ["0", "-96", "1000000000", "abc"] {
            try merge("Xft.dpi: \(absurd)")
            try s.sync()
            let settings = try Self.settings(s)
            #expect(settings["scale"]?.double == 1 || settings["scale"]?.double == 2, "Xft.dpi: \(absurd) gave \(settings)")
            #expect(s.app.waitForExit(timeout: 0) == nil)
        }
        try s.click(MouseButton.left, on: "mail")
        #expect(try s.nextChange()["text"]?.string == "13", "clicks still count")
    }
}
