import BadgeCore
import Glibc
import Testing
import XvfbHarness
import BadgeControl

/// Per-monitor scale on one Xvfb screen of 1280×480 split into two RandR monitors with
/// `xrandr --setmonitor` (LEFT and RIGHT, 640 pixels each, no outputs): the window takes the
/// scale of the monitor that holds 60 % of it, changes once when moved across in small steps,
/// draws exactly what `--screenshot` draws at each scale, follows monitors removed and added live,
/// and the output's `DPI` property; bad config entries warn once.
@Suite("E2E: per-monitor scale", .endToEnd(minutes: 2),
       .enabled(if: findOnPath("xrandr") != nil && findOnPath("convert") != nil, "needs xrandr and ImageMagick (make test installs them)"))
struct MonitorScaleTests {
    static let config = """
        {"monitors": {"LEFT": 1, "RIGHT": 2, "NOPE": 0, "ELSEWHERE": 1.5},
         "buttons": [{"id": "bell", "content": {"kind": "count", "count": 7}}, {"id": "mail", "content": {"kind": "text", "text": "new"}}]}
        """

    /// Runs `xrandr` with `arguments` on `display` and expects it to succeed.
    static func xrandr(_ arguments: [String], display: String) throws {
        let tool = try ChildProcess(executable: "xrandr", arguments: arguments,
                                    environment: .inherited(adding: ["DISPLAY": display]), stdin: .null)
        #expect(tool.waitForExit(timeout: 10) == .exited(0), "xrandr \(arguments): \(tool.stderrText)")
    }

    static let left = ["--setmonitor", "LEFT", "640/170x480/127+0+0", "none"]
    static let right = ["--setmonitor", "RIGHT", "640/170x480/127+640+0", "none"]

    /// A session on the split screen with `arguments` after the config.
    static func session(_ name: String, arguments: [String] = []) throws -> DemoSession {
        let path = try writeTemporaryFile("\(name).json", config)
        return try DemoSession(name, arguments: ["--config", path] + arguments, screenWidth: 1280) { server, _ in
            try xrandr(left, display: server.display)
            try xrandr(right, display: server.display)
        }
    }

    /// `state`'s settings (DesktopSettingsTests' helper).
    static func settings(_ s: DemoSession) throws -> JSONValue { try DesktopSettingsTests.settings(s) }

    /// Moves the window's top-left corner to (`x`, 20) and returns the settings once the app has seen it.
    static func move(_ s: DemoSession, x: Int) throws -> JSONValue {
        try s.x.move(window: s.window, x: x, y: 20)
        try s.sync()
        return try settings(s)
    }

    /// Re-asks `state` until `condition` holds on its settings (or 5 s pass).
    static func waitFor(_ s: DemoSession, _ condition: (JSONValue) -> Bool) throws -> JSONValue {
        try DesktopSettingsTests.waitFor(s, condition)
    }

    /// Waits until the window is `width` pixels wide (its resize confirmed), then compares it with
    /// the offscreen rendering at `scale`, pixel for pixel.
    static func expectDrawnLikeScreenshot(_ s: DemoSession, scale: String, width: Int, configPath: String) throws {
        let deadline = Deadline(seconds: 5)
        while try s.x.geometry(ofWindow: s.window).width != width && !deadline.hasPassed { try s.sync() }
        try s.moveAwayAndSync()
        let live = try s.capture()
        let offscreen = try renderScreenshot(tag: "monitor-scale-\(scale)", options: ["--config", configPath, "--scale", scale])
        #expect(live.width == offscreen.width && live.height == offscreen.height,
                "at \(scale)×: live \(live.width)x\(live.height), screenshot \(offscreen.width)x\(offscreen.height)")
        guard live.width == offscreen.width, live.height == offscreen.height else { return }
        let diff = live.differingPixels(from: offscreen, tolerance: 0)
        expectPixels(diff == 0, "at \(scale)×: \(diff) of \(live.pixels.count) pixels differ from --screenshot",
                     images: ["live": live, "offscreen": offscreen], test: "monitor-scale-\(scale)")
    }

    @Test("Moved in 8-pixel steps across and back: the scale changes once each way, past 60 %, drawn as --screenshot draws it")
    func movesAcross() throws {
        let s = try Self.session("monitor-across")
        let configPath = try Artifacts.path(for: "monitor-across.json-\(getpid())")
        let first = try Self.move(s, x: 400)
        #expect(first["monitor"]?.string == "LEFT" && first["scale"]?.double == 1 && first["scaleFrom"]?.string == "monitor-config", "\(first)")
        let narrow = s.size.width
        try Self.expectDrawnLikeScreenshot(s, scale: "1", width: narrow, configPath: configPath)

        var scales: [Double] = [1]
        var switchedAt: Int?
        for x in stride(from: 408, through: 800, by: 8) {
            let settings = try Self.move(s, x: x)
            let scale = try #require(settings["scale"]?.double)
            if scale != scales.last {
                scales.append(scale)
                switchedAt = switchedAt ?? x
                #expect(settings["monitor"]?.string == "RIGHT" && settings["scaleFrom"]?.string == "monitor-config", "\(settings)")
            }
        }
        #expect(scales == [1, 2], "one change, to RIGHT's 2×: \(scales)")
        // It changed at the first step at which RIGHT held 60 % of the 1× window, not before.
        let share = { (x: Int) in Double(x + narrow - 640) / Double(narrow) }
        if let at = switchedAt { #expect(share(at) >= 0.6 && share(at - 8) < 0.6, "switched at x = \(at), window \(narrow) wide") }
        try Self.expectDrawnLikeScreenshot(s, scale: "2", width: narrow * 2, configPath: configPath)

        var back: [Double] = [2]
        for x in stride(from: 792, through: 200, by: -8) {
            let scale = try #require(try Self.move(s, x: x)["scale"]?.double)
            if scale != back.last { back.append(scale) }
        }
        #expect(back == [2, 1], "one change back, to LEFT's 1×: \(back)")
        let last = try Self.settings(s)
        #expect(last["monitor"]?.string == "LEFT")
        // The bad entry and the unknown name: one warning each; the app runs on.
        let stderr = s.app.stderrText
        #expect(stderr.split(separator: "\n").filter({ $0.contains("monitors.NOPE") }).count == 1, "one warning for NOPE: \(stderr)")
        #expect(stderr.split(separator: "\n").filter({ $0.contains("monitors.ELSEWHERE") }).count == 1, "one warning for ELSEWHERE: \(stderr)")
        #expect(s.app.waitForExit(timeout: 0) == nil)
    }

    @Test("Monitors removed and added live are followed; --scale still wins over them")
    func followsLayoutChanges() throws {
        let s = try Self.session("monitor-live")
        let onRight = try Self.move(s, x: 800)
        #expect(onRight["monitor"]?.string == "RIGHT" && onRight["scale"]?.double == 2, "\(onRight)")
        // RIGHT goes: the window is on the screen-wide monitor now, which has no scale of its own.
        try Self.xrandr(["--delmonitor", "RIGHT"], display: s.server.display)
        let gone = try Self.waitFor(s) { $0["monitor"]?.string != "RIGHT" }
        #expect(gone["monitor"]?.string == "screen" && gone["scale"]?.double == 1 && gone["scaleFrom"]?.string == "default", "\(gone)")
        // RIGHT comes back, where it was.
        try Self.xrandr(Self.right, display: s.server.display)
        let back = try Self.waitFor(s) { $0["monitor"]?.string == "RIGHT" }
        #expect(back["scale"]?.double == 2 && back["scaleFrom"]?.string == "monitor-config", "\(back)")
        // RIGHT moves left, under the window's old place: the window at x = 100 is on it now.
        let atLeft = try Self.move(s, x: 100)
        #expect(atLeft["monitor"]?.string == "LEFT")
        try Self.xrandr(["--delmonitor", "LEFT"], display: s.server.display)
        try Self.xrandr(["--delmonitor", "RIGHT"], display: s.server.display)
        try Self.xrandr(["--setmonitor", "RIGHT", "640/170x480/127+0+0", "none"], display: s.server.display)
        let moved = try Self.waitFor(s) { $0["monitor"]?.string == "RIGHT" }
        #expect(moved["scale"]?.double == 2, "\(moved)")

        let flagged = try Self.session("monitor-flag", arguments: ["--scale", "1.5"])
        #expect(try Self.move(flagged, x: 100)["scaleFrom"]?.string == "flag")
        let moved15 = try Self.move(flagged, x: 900)
        #expect(moved15["scale"]?.double == 1.5 && moved15["monitor"]?.string == "RIGHT" && moved15["scaleFrom"]?.string == "flag", "\(moved15)")
    }

    @Test("The output's DPI property (X11Libre's) gives the scale, live; the desktop's Xft.dpi comes after it")
    func outputDPI() throws {
        let s = try DemoSession("monitor-dpi", beforeLaunch: { _, x in
            try x.setStringProperty(window: x.root, name: "RESOURCE_MANAGER", value: "Xft.dpi:\t120\n")
            try x.setOutputProperty(output: "screen", name: "DPI", value: 192)
        })
        let first = try Self.settings(s)
        #expect(first["scale"]?.double == 2 && first["scaleFrom"]?.string == "output-dpi" && first["monitor"]?.string == "screen", "\(first)")
        try s.x.setOutputProperty(output: "screen", name: "DPI", value: 140)
        let second = try Self.waitFor(s) { $0["scale"]?.double == 1.5 }
        #expect(second["scale"]?.double == 1.5 && second["scaleFrom"]?.string == "output-dpi", "140 dpi: 1.46, 1.5 in quarter steps: \(second)")
        // 96 on every output is X11Libre's default: it says nothing, and the desktop decides.
        try s.x.setOutputProperty(output: "screen", name: "DPI", value: 96)
        let third = try Self.waitFor(s) { $0["scaleFrom"]?.string == "desktop" }
        #expect(third["scale"]?.double == 1.25 && third["scaleFrom"]?.string == "desktop", "\(third)")
    }
}
