import BadgeCore
import Glibc
import Testing
import XvfbHarness
import BadgeControl

/// Live desktop settings, from a real settings daemon (Debian's xsettingsd: edit its file, send it
/// SIGHUP) and from `xrdb -merge`: the scale, the dark theme and reduced motion follow at once;
/// flags win; `state` says where each setting comes from.
@Suite("E2E: live desktop settings", .endToEnd(minutes: 1),
       .enabled(if: findOnPath("xsettingsd") != nil && findOnPath("xrdb") != nil, "needs xsettingsd and xrdb (make test installs them)"))
struct DesktopSettingsTests {
    static func writeFile(_ path: String, _ text: String) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        _ = Array(text.utf8).withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }

    /// Starts xsettingsd with `config` on `server` and waits until it owns the XSETTINGS selection.
    static func startDaemon(_ config: String, on server: XvfbServer) throws -> ChildProcess {
        let daemon = try ChildProcess(executable: "xsettingsd", arguments: ["-c", config],
                                      environment: .inherited(adding: ["DISPLAY": server.display]), stdin: .null)
        let x = try XTestClient(display: server.display)
        let deadline = Deadline(seconds: 5)
        while try x.selectionOwner("_XSETTINGS_S0") == 0 && !deadline.hasPassed {}
        return daemon
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
        let s = try DemoSession("xsettings", reduceMotion: false) { server, _ in daemon = try Self.startDaemon(config, on: server) }
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
            daemon = try Self.startDaemon(config, on: server)
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

/// The XDG desktop portal's colour scheme, from a stand-in portal on a private session bus
/// (Tests/EndToEndTests/Fixtures/fake-portal.py, with Debian's python3-dbus).
@Suite("E2E: the desktop portal's colour scheme", .endToEnd(minutes: 1),
       .enabled(if: findOnPath("dbus-daemon") != nil && access("/usr/bin/python3", X_OK) == 0, "needs dbus-daemon and python3-dbus"))
struct PortalColorSchemeTests {
    static var script: String {
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast()
        return parts.joined(separator: "/") + "/Fixtures/fake-portal.py"
    }

    @Test("Read at start, then followed through SettingChanged; a portal that goes away is no failure")
    func followsThePortal() throws {
        let bus = try SessionBus()
        let portal = try ChildProcess(executable: "/usr/bin/python3", arguments: [Self.script, "1"],
                                      environment: .inherited(adding: ["DBUS_SESSION_BUS_ADDRESS": bus.address]))
        #expect(try portal.readLine(timeout: 10) == "ready", "fake portal: \(portal.stderrText)")
        let s = try DemoSession("portal", environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        let dark = try DesktopSettingsTests.waitFor(s) { $0["theme"]?.string == "dark" }
        #expect(dark["theme"]?.string == "dark" && dark["themeFrom"]?.string == "desktop", "\(dark)")
        try portal.writeLine("2")
        _ = try portal.readLine(timeout: 5)
        let light = try DesktopSettingsTests.waitFor(s) { $0["theme"]?.string == "light" }
        #expect(light["theme"]?.string == "light", "prefer light")
        try portal.writeLine("1")
        _ = try portal.readLine(timeout: 5)
        #expect(try DesktopSettingsTests.waitFor(s) { $0["theme"]?.string == "dark" }["theme"]?.string == "dark")
        try s.sync()
        let image = try s.capture()
        #expect(image.pixel(x: 2, y: 2).r < 100, "the dark theme is on screen")
        // The portal goes away: no preference, and the app carries on.
        portal.kill(SIGTERM)
        _ = portal.waitForExit(timeout: 5)
        try s.click(MouseButton.left, on: "mail")
        #expect(try s.nextChange()["text"]?.string == "13")
    }

    @Test("A bus without a portal: no preference, quietly")
    func noPortal() throws {
        let bus = try SessionBus()
        let s = try DemoSession("no-portal", environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        try s.sync()
        let settings = try DesktopSettingsTests.settings(s)
        #expect(settings["theme"]?.string == "light" && settings["themeFrom"]?.string == "default")
        #expect(s.app.stderrText.isEmpty, "\(s.app.stderrText)")
    }
}
