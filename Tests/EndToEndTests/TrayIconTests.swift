import BadgeControl
import BadgeCore
import Glibc
import Testing
import XvfbHarness

/// A real XEmbed system tray (trayer) beside badge-demo, started by the test on its own display.
final class TrayerProcess {
    let process: ChildProcess

    /// Starts trayer on `display` and waits (10 s) until it owns `_NET_SYSTEM_TRAY_S0`.
    init(display: String, x: XTestClient) throws {
        guard let trayer = findOnPath("trayer") else { throw HarnessError("trayer is not installed (apt package trayer)") }
        process = try ChildProcess(executable: trayer, arguments: ["--edge", "bottom", "--height", "24", "--widthtype", "request"],
                                   environment: .inherited(adding: ["DISPLAY": display], removing: []), stdin: .null)
        try pollUntil("trayer owns _NET_SYSTEM_TRAY_S0") { try x.selectionOwner("_NET_SYSTEM_TRAY_S0") != 0 }
    }

    deinit { stop() }

    func stop() {
        process.kill(SIGKILL)
        process.waitForExit(timeout: 5)
    }
}

/// Polls `condition` every 20 ms until it holds, for at most `timeout` seconds.
func pollUntil(_ what: String, timeout: Double = 10, _ condition: () throws -> Bool) throws {
    let start = ContinuousClock.now
    while try !condition() {
        guard secondsSince(start) < timeout else { throw HarnessError("timed out after \(timeout) s waiting until \(what)") }
        measureInterval(seconds: 0.02)
    }
}

extension DemoSession {
    /// The `tray` field of `state`.
    func trayState() throws -> JSONValue {
        try app.writeLine("state")
        return try app.readEvent(named: "state", timeout: 10)["tray"] ?? .null
    }

    /// Waits for the icon to be docked in an XEmbed tray at a real size; returns its window.
    func waitForDockedIcon(timeout: Double = 10) throws -> UInt32 {
        var window: UInt32 = 0
        try pollUntil("the tray icon is docked", timeout: timeout) {
            let tray = try trayState()
            guard tray["kind"]?.string == "xembed", let id = tray["window"]?.int, (tray["size"]?["width"]?.int ?? 0) > 1 else { return false }
            window = UInt32(id)
            // Docked (reparented into the tray) and mapped by it: only then can its pixels be read.
            return try x.parent(ofWindow: window) != x.root && x.isViewable(window: window)
        }
        return window
    }
}

/// The tray icon in a real XEmbed tray: docked, drawn with the count, clicked, and followed when
/// the tray goes and comes.
@Suite("E2E: tray icon (XEmbed, trayer)", .endToEnd(minutes: 2),
       .enabled(if: findOnPath("trayer") != nil, "needs trayer"))
struct XEmbedTrayTests {
    /// No session bus: only XEmbed is possible.
    static let noBus = ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent/bus-\(getpid())"]

    @Test("Docked in trayer; the count's red badge is drawn and redrawn; a click toggles the window; a restarted tray docks it again")
    func dockedInTrayer() throws {
        var tray: TrayerProcess?
        let s = try DemoSession("tray-xembed", environment: Self.noBus) { server, x in
            tray = try TrayerProcess(display: server.display, x: x)
        }
        let icon = try s.waitForDockedIcon()
        let trayWindow = try s.x.selectionOwner("_NET_SYSTEM_TRAY_S0")
        #expect(trayWindow != 0)
        try s.sync()

        func redCount(_ image: CapturedImage) -> Int {
            var count = 0
            image.forEachPixel { _, _, p in if isBadgeRed(p) { count += 1 } }
            return count
        }
        let before = try s.x.capture(window: icon)
        #expect(redCount(before) > 10, "the icon shows the red badge of 15")
        try s.command("set bell 50")
        try pollUntil("the tray's total is 62") { try s.trayState()["total"]?.int == 62 }
        try s.sync()
        let after = try s.x.capture(window: icon)
        #expect(redCount(after) > 10)
        expectPixels(before.pixels != after.pixels, "the icon is redrawn for a new total", images: ["before": before, "after": after],
                     test: "tray-xembed")

        // The pointer on the icon shows the counts per button in a tooltip; leaving hides it.
        #expect(try s.x.isViewable(window: s.window))
        let origin = try s.x.rootPosition(ofWindow: icon)
        let geometry = try s.x.geometry(ofWindow: icon)
        let center = (x: origin.x + geometry.width / 2, y: origin.y + geometry.height / 2)
        try s.x.move(toRoot: center)
        try pollUntil("the tray tooltip is shown") { try s.trayState()["tooltipShown"]?.bool == true }
        #expect(try s.trayState()["tooltip"]?.string?.contains("Notifications, 50 unread") == true)
        try s.x.movePointerToCorner()
        try pollUntil("the tray tooltip is hidden") { try s.trayState()["tooltipShown"]?.bool == false }
        // A click on the icon hides the window; another shows it again.
        try s.x.click(button: MouseButton.left, atRoot: center)
        try pollUntil("the window is hidden") { try !s.x.isViewable(window: s.window) }
        try s.x.click(button: MouseButton.left, atRoot: center)
        try pollUntil("the window is shown again") { try s.x.isViewable(window: s.window) }

        // A right click on the icon: the peek of every button's count, above the icon (trayer is at
        // the bottom edge), inside the screen.
        try s.x.click(button: MouseButton.right, atRoot: center)
        _ = try s.peekEvent("opened")
        let peek = try s.peek()
        #expect(peek?["id"]?.string == "tray" && peek?["above"]?.bool == true, "\(String(describing: peek))")
        let frame = PixelRect(json: peek?["frame"])
        #expect((frame?.maxY ?? 999) <= origin.y && (frame?.y ?? -1) >= 0, "\(String(describing: frame))")
        #expect(try s.peekTitles().first == "Notifications, 50 unread")
        try s.key(Keysym.escape)
        _ = try s.peekEvent("closed")

        // The tray goes: the icon leaves it (no window left on the root); a new tray docks it again.
        tray?.stop()
        try pollUntil("the icon knows the tray is gone") { try s.trayState()["kind"]?.string == "none" }
        #expect(try !s.x.exists(window: icon), "the old icon window is destroyed, not left on the root")
        tray = try TrayerProcess(display: s.server.display, x: s.x)
        let again = try s.waitForDockedIcon()
        #expect(try s.x.parent(ofWindow: again) != s.x.root)
        #expect(s.app.waitForExit(timeout: 0) == nil)
        _ = tray
    }

    @Test("A tray started after the app gets the icon (MANAGER message)")
    func trayStartedLater() throws {
        let s = try DemoSession("tray-later", environment: Self.noBus)
        try s.sync()
        #expect(try s.trayState()["kind"]?.string == "none")
        let tray = try TrayerProcess(display: s.server.display, x: s.x)
        let icon = try s.waitForDockedIcon()
        #expect(try s.x.parent(ofWindow: icon) != s.x.root)
        tray.stop()
    }

    @Test("--no-tray: no icon even with a tray there")
    func noTrayFlag() throws {
        var tray: TrayerProcess?
        let s = try DemoSession("tray-off", arguments: ["--no-tray"], environment: Self.noBus) { server, x in
            tray = try TrayerProcess(display: server.display, x: x)
        }
        try s.sync()
        #expect(try s.trayState()["kind"]?.string == "off")
        _ = tray
    }
}

/// The tray icon in polybar's own system tray (polybar 3.6, `tray-position`).
@Suite("E2E: tray icon (XEmbed, polybar)", .endToEnd(minutes: 1),
       .enabled(if: findOnPath("polybar") != nil, "needs polybar"))
struct PolybarTrayTests {
    @Test("Docked in polybar's tray: the icon is a child of the bar's tray and shows the count")
    func dockedInPolybar() throws {
        let folder = try Artifacts.path(for: "polybar-tray-\(getpid())")
        removeTree(folder)
        #expect(mkdir(folder, 0o700) == 0)
        defer { removeTree(folder) }
        var bar: ChildProcess?
        defer { bar?.kill(SIGTERM); bar?.waitForExit(timeout: 5) }
        let s = try DemoSession("tray-polybar", environment: XEmbedTrayTests.noBus) { server, x in
            bar = try launchPolybar(in: folder, display: server.display, bar: """
                width = 400
                height = 28
                offset-y = 440
                modules-left = label
                tray-position = right
                tray-maxsize = 24
                """, modules: """
                [module/label]
                type = custom/text
                content = bar
                """)
            try pollUntil("polybar owns _NET_SYSTEM_TRAY_S0", timeout: 15) { try x.selectionOwner("_NET_SYSTEM_TRAY_S0") != 0 }
        }
        let icon = try s.waitForDockedIcon(timeout: 15)
        #expect(try s.x.parent(ofWindow: icon) != s.x.root, "docked in polybar")
        try s.sync()
        var red = 0
        let deadline = Deadline(seconds: 10)
        repeat {
            red = 0
            try s.x.capture(window: icon).forEachPixel { _, _, p in if isBadgeRed(p) { red += 1 } }
        } while red <= 10 && !deadline.hasPassed
        #expect(red > 10, "the icon in polybar's tray shows the red badge of the total")
        // On polybar's dark tray (#222222, no alpha visual): the bar's own colour around the icon,
        // never a light square, and a light bell that reads on it.
        let image = try s.x.capture(window: icon)
        var corners: [(UInt8, UInt8, UInt8)] = []
        var light = 0
        image.forEachPixel { x, y, p in
            if (x == 0 || x == image.width - 1) && y == image.height - 1 { corners.append((p.r, p.g, p.b)) }
            if p.r > 180 && p.g > 180 && p.b > 180 { light += 1 }
        }
        #expect(corners.allSatisfy { $0 == (0x22, 0x22, 0x22) }, "the tray's colour behind the icon: \(corners)")
        #expect(light > 10, "a light bell on the dark tray")
        try image.writePPM(to: try Artifacts.path(for: "polybar-tray-icon.ppm"))
    }
}
