import BadgeControl
import BadgeCore
import Glibc
import TestSupport
import Testing
import XvfbHarness

/// The StatusNotifierWatcher stand-in (Fixtures/sni-watcher.py, python3-dbus) on a private bus.
final class WatcherStandIn {
    let process: ChildProcess

    /// Starts the watcher owning `name` on `bus` and waits until it does.
    init(bus: SessionBus, name: String) throws {
        let script = #filePath.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
            + "/Fixtures/sni-watcher.py"
        process = try ChildProcess(executable: "/usr/bin/python3", arguments: [script, bus.address, name])
        guard try next()["ready"]?.string == name else { throw HarnessError("sni-watcher.py did not start: \(process.stderrText)") }
    }

    deinit { stop() }

    func stop() {
        process.kill(SIGKILL)
        process.waitForExit(timeout: 5)
    }

    /// The next JSON line (10 s).
    func next(timeout: Double = 10) throws -> JSONValue {
        guard let line = try process.readLine(timeout: timeout) else {
            throw HarnessError("sni-watcher.py said nothing within \(timeout) s: \(process.stderrText)")
        }
        return try JSONValue.parse(Array(line.utf8))
    }

    /// `IconPixmap` as the host read it from the item: each pixmap's width, height and bytes.
    func pixmaps() throws -> [(width: Int, height: Int, argb: [UInt8])] {
        let answer = try ask("pixmaps")
        guard let list = answer["pixmaps"]?.array else { throw HarnessError("no pixmaps: \(answer)") }
        return try list.map { entry in
            guard let fields = entry.array, fields.count == 3, let width = fields[0].int, let height = fields[1].int,
                  let hex = fields[2].string, let bytes = Self.bytes(hex: hex) else {
                throw HarnessError("a pixmap the watcher could not read: \(entry)")
            }
            return (width, height, bytes)
        }
    }

    private static func bytes(hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        for i in stride(from: 0, to: digits.count, by: 2) {
            guard let byte = UInt8(String(decoding: digits[i...i + 1], as: UTF8.self), radix: 16) else { return nil }
            bytes.append(byte)
        }
        return bytes
    }

    /// Sends `command` and returns its answer.
    func ask(_ command: String) throws -> JSONValue {
        try process.writeLine(command)
        return try next()
    }
}

/// The tray icon as a StatusNotifierItem, against a watcher stand-in on a private session bus.
@Suite("E2E: tray icon (StatusNotifierItem)", .endToEnd(minutes: 2),
       .enabled(if: findOnPath("dbus-daemon") != nil && access("/usr/lib/python3/dist-packages/dbus", F_OK) == 0,
                "needs dbus-daemon and python3-dbus"))
struct StatusNotifierItemTests {
    @Test("Registered with org.kde.StatusNotifierWatcher: the pixmaps carry the count, urgency is NeedsAttention, Activate toggles the window")
    func kdeWatcher() throws {
        let bus = try SessionBus()
        let watcher = try WatcherStandIn(bus: bus, name: "org.kde.StatusNotifierWatcher")
        let s = try DemoSession("tray-sni", environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        let registration = try watcher.next()
        #expect(registration["registered"]?.string?.hasPrefix("org.kde.StatusNotifierItem-\(s.app.pid)-") == true, "\(registration)")
        // The watcher prints before its answer reaches the app.
        try pollUntil("the item is registered") { try s.trayState()["kind"]?.string == "sni" }

        let icon = try watcher.ask("icon")
        #expect(icon["sane"]?.bool == true, "\(icon)")
        #expect(icon["sizes"]?.array?.compactMap { $0.array?.first?.int } == [16, 22, 24, 32, 48], "\(icon)")
        for side in ["16", "22", "24", "32", "48"] {
            #expect((icon["red"]?[side]?.int ?? 0) > 0, "no red badge pixels at \(side) px: \(icon)")
        }
        let tooltip = try watcher.ask("tooltip")
        #expect(tooltip["text"]?.string?.contains("Notifications, 3 unread") == true, "\(tooltip)")
        #expect(tooltip["text"]?.string?.contains("Mail, 12 unread") == true, "\(tooltip)")

        // A rising count while the window is unfocused: NeedsAttention.
        #expect(try watcher.ask("status")["status"]?.string == "Active")
        try s.x.setInputFocus(window: s.x.root)
        try s.command("inc bell")
        try s.sync()
        try pollUntil("Status is NeedsAttention") { try watcher.ask("status")["status"]?.string == "NeedsAttention" }

        #expect(try watcher.ask("activate")["activated"]?.bool == true)
        try pollUntil("Activate hides the window") { try !s.x.isViewable(window: s.window) }
        _ = try watcher.ask("activate")
        try pollUntil("Activate shows the window") { try s.x.isViewable(window: s.window) }
        // ContextMenu(x, y): the peek of every button's count, at that point.
        #expect(try watcher.ask("menu")["menu"]?.bool == true)
        _ = try s.peekEvent("opened")
        let peek = try s.peek()
        #expect(peek?["id"]?.string == "tray")
        let frame = PixelRect(json: peek?["frame"])
        #expect(frame?.x == 300 && (frame?.y ?? 0) >= 200, "\(String(describing: frame))")
        let titles = try s.peekTitles()
        #expect(titles.prefix(2) == ["Notifications, 4 unread", "Mail, 12 unread"], "\(titles)")
        try s.key(Keysym.escape)
        _ = try s.peekEvent("closed")
        #expect(s.app.waitForExit(timeout: 0) == nil)
    }

    @Test("IconPixmap, as a host reads it, is legible on a black bar and on a light grey one, in either theme",
          arguments: ["light", "dark"])
    func legibleOnAnyBar(theme: String) throws {
        let bus = try SessionBus()
        let watcher = try WatcherStandIn(bus: bus, name: "org.kde.StatusNotifierWatcher")
        let s = try DemoSession("tray-sni-\(theme)", arguments: ["--theme", theme], environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        _ = try watcher.next()
        try pollUntil("the item is registered") { try s.trayState()["kind"]?.string == "sni" }
        let pixmaps = try watcher.pixmaps()
        #expect(pixmaps.map(\.width) == [16, 22, 24, 32, 48] && pixmaps.allSatisfy { $0.width == $0.height })
        for pixmap in pixmaps {
            #expect(pixmap.argb.count == pixmap.width * pixmap.height * 4)
            for (name, background) in [("black", (UInt8(0), UInt8(0), UInt8(0))), ("#DDDDDD", (UInt8(0xDD), UInt8(0xDD), UInt8(0xDD)))] {
                let measure = PixmapLegibility.measure(argb: pixmap.argb, side: pixmap.width, over: background)
                #expect(measure.isLegible, "\(theme) theme, \(pixmap.width) px on \(name): \(measure)")
            }
        }
        // The red badge (the demo's total) is still drawn in.
        #expect((try watcher.ask("icon")["red"]?["22"]?.int ?? 0) > 0)
    }

    @Test("Registered with org.freedesktop.StatusNotifierWatcher, and when the watcher starts after the app")
    func freedesktopWatcherLater() throws {
        let bus = try SessionBus()
        let s = try DemoSession("tray-sni-later", environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        try s.sync()
        let watcher = try WatcherStandIn(bus: bus, name: "org.freedesktop.StatusNotifierWatcher")
        #expect(try watcher.next()["registered"]?.string?.hasPrefix("org.kde.StatusNotifierItem-") == true)
        try pollUntil("the item is registered") { try s.trayState()["kind"]?.string == "sni" }
        let icon = try watcher.ask("icon")
        #expect((icon["red"]?["22"]?.int ?? 0) > 0, "\(icon)")
    }

    @Test("With a tray and a watcher only the StatusNotifierItem is used; without the watcher the icon docks in the tray",
          .enabled(if: findOnPath("trayer") != nil, "needs trayer"))
    func neverTwoIcons() throws {
        let bus = try SessionBus()
        let watcher = try WatcherStandIn(bus: bus, name: "org.kde.StatusNotifierWatcher")
        var tray: TrayerProcess?
        let s = try DemoSession("tray-both", environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address]) { server, x in
            tray = try TrayerProcess(display: server.display, x: x)
        }
        _ = try watcher.next()
        try pollUntil("the item is registered") { try s.trayState()["kind"]?.string == "sni" }
        try s.sync()
        let state = try s.trayState()
        #expect(state["kind"]?.string == "sni" && state["window"]?.isNull == true, "\(state)")
        watcher.stop()
        let icon = try s.waitForDockedIcon()
        #expect(try s.x.parent(ofWindow: icon) != s.x.root)
        _ = tray
    }
}
