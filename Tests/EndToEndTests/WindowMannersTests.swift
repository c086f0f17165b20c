import BadgeCore
import Glibc
import Testing
import XvfbHarness

/// Decodes _NET_WM_ICON into (width, height, pixels) entries.
func decodeIcons(_ values: [UInt32]) -> [(width: Int, height: Int, pixels: ArraySlice<UInt32>)] {
    var icons: [(Int, Int, ArraySlice<UInt32>)] = []
    var i = 0
    while i + 2 <= values.count {
        let w = Int(values[i]), h = Int(values[i + 1])
        guard w > 0, h > 0, i + 2 + w * h <= values.count else { break }
        icons.append((w, h, values[(i + 2)..<(i + 2 + w * h)]))
        i += 2 + w * h
    }
    return icons
}

/// Window manners without a window manager: icon, urgency, ICCCM/EWMH properties, resizing, unmapping.
@Suite("E2E: window manners", .endToEnd(minutes: 1))
struct WindowMannersTests {
    @Test("_NET_WM_ICON has 16, 32 and 48 px ARGB icons with the total badge, updated when the total changes")
    func windowIcon() throws {
        let s = try DemoSession("icon")
        let icons = decodeIcons(try s.x.cardinals(window: s.window, name: "_NET_WM_ICON"))
        #expect(icons.map(\.width) == [16, 32, 48] && icons.map(\.height) == [16, 32, 48])
        let big = try #require(icons.last)
        func redPixels(_ pixels: ArraySlice<UInt32>) -> Int {
            pixels.filter { p in p >> 24 > 200 && (p >> 16) & 0xff > 180 && (p >> 8) & 0xff < 100 && p & 0xff < 100 }.count
        }
        #expect(redPixels(big.pixels) > 50, "no red count badge on the 48 px icon")
        try s.x.selectPropertyChanges(window: s.window)
        try s.command("clear all")
        try s.sync()
        try s.x.waitForProperty(window: s.window, name: "_NET_WM_ICON") { p in
            guard let p else { return false }
            return p.bytes.count == 4 * (3 * 2 + 16 * 16 + 32 * 32 + 48 * 48)
                && redPixels(decodeIcons(p.bytes.withUnsafeBytes { raw in
                    (0..<(raw.count / 4)).map { raw.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self) }
                }).last?.pixels ?? []) == 0
        }
        try s.command("set mail 7")
        try s.sync()
        let after = decodeIcons(try s.x.cardinals(window: s.window, name: "_NET_WM_ICON"))
        #expect(redPixels(after.last?.pixels ?? []) > 50, "the badge did not come back with a total of 7")
    }

    @Test("_NET_WM_PID, WM_CLIENT_MACHINE, WM_NORMAL_HINTS with a minimum size, WM_PROTOCOLS")
    func staticProperties() throws {
        let s = try DemoSession("static-properties")
        #expect(try s.x.cardinals(window: s.window, name: "_NET_WM_PID") == [UInt32(s.app.pid)])
        var host = [CChar](repeating: 0, count: 256)
        gethostname(&host, 255)
        #expect(try s.x.property(window: s.window, name: "WM_CLIENT_MACHINE")?.string == String(cString: host))
        let hints = try s.x.cardinals(window: s.window, name: "WM_NORMAL_HINTS")
        #expect(hints.count == 18 && hints[0] & (1 << 4) != 0, "PMinSize missing: \(hints)")
        #expect(hints.count == 18 && hints[5] > 0 && hints[6] > 0 && Int(hints[5]) <= s.size.width)
        let protocols = try s.x.cardinals(window: s.window, name: "WM_PROTOCOLS")
        #expect(try protocols == [s.x.atom("WM_DELETE_WINDOW"), s.x.atom("_NET_WM_PING"), s.x.atom("_NET_WM_SYNC_REQUEST")])
    }

    @Test("A count rising while unfocused sets the urgency hint and DEMANDS_ATTENTION; focus clears them")
    func urgency() throws {
        let s = try DemoSession("urgency")
        let demands = try s.x.atom("_NET_WM_STATE_DEMANDS_ATTENTION")
        func urgent() throws -> Bool { try s.x.cardinals(window: s.window, name: "WM_HINTS").first.map { $0 & 256 != 0 } ?? false }
        func attention() throws -> Bool { try s.x.cardinals(window: s.window, name: "_NET_WM_STATE").contains(demands) }
        #expect(try !urgent())
        try s.x.setInputFocus(window: s.x.root)
        try s.command("dec bell")  // falling: not urgent
        _ = try s.nextChange()
        try s.sync()
        #expect(try !urgent() && !attention())
        try s.command("inc mail")
        _ = try s.nextChange()
        try s.sync()
        #expect(try urgent() && attention())
        #expect(try s.app.readEvent(named: "urgent", timeout: 5)["urgent"]?.bool == true)
        try s.x.setInputFocus(window: s.window)
        _ = try s.app.readEvent(named: "urgent", timeout: 5) { $0["urgent"]?.bool == false }
        try s.sync()
        #expect(try !urgent() && !attention())
        // Rising while focused: no urgency.
        try s.command("inc mail")
        _ = try s.nextChange()
        try s.sync()
        #expect(try !urgent())
    }

    @Test("Resizing lays the toolbar out again, at every size down to 1x1, and clicks still count")
    func resizing() throws {
        let s = try DemoSession("resize")
        try s.x.resize(window: s.window, width: 400, height: 120)
        try s.sync()
        let tall = try s.state()
        let bell = try tall.button("bell")
        #expect(bell.button.y == 8 && bell.button.x == 8, "a taller, wider window keeps the buttons at the top and leading edges: \(bell.button)")
        let startRSS = try s.app.residentKilobytes()
        for (w, h) in [(1, 1), (2, 200), (300, 1), (7, 7), (1000, 30), (32767, 32767)] {
            try s.x.resize(window: s.window, width: w, height: h)
            try s.sync()
            #expect(s.app.waitForExit(timeout: 0) == nil, "the app exited at \(w)x\(h): \(s.app.stderrText)")
            #expect(try s.state().buttons.count == 4)
        }
        // The largest window X allows: the back buffer stops at the screen's size, not 4 GB.
        #expect(try s.app.residentKilobytes() - startRSS < 64 * 1024, "resident memory after a 32767x32767 resize")
        if let xdotool = findOnPath("xdotool") {
            let tool = try ChildProcess(executable: xdotool, arguments: ["windowsize", String(s.window), "260", "90"],
                                        environment: .inherited(adding: ["DISPLAY": s.server.display]))
            #expect(tool.waitForExit(timeout: 10) == .exited(0), "xdotool: \(tool.stderrText)")
            try s.sync()
            #expect(try s.x.geometry(ofWindow: s.window).width == 260)
            #expect(try s.state().button("bell").button.y == 8)
        }
        try s.click(MouseButton.left, on: "bell")
        #expect(try s.nextChange()["text"]?.string == "4")
    }

    @Test("Unmapped and mapped again: the app keeps running and its state, and repaints")
    func unmapAndMap() throws {
        let s = try DemoSession("unmap")
        try s.x.unmap(window: s.window)
        try s.command("set bell 42")
        _ = try s.nextChange()
        try s.sync()
        #expect(try s.state().button("bell").text == "42")
        try s.x.map(window: s.window)
        try s.sync()
        try s.moveAwayAndSync()
        let image = try s.capture()
        let badge = try #require(try s.state().button("bell").badge)
        expectPixels(image.count(in: badgeInterior(badge), where: isBadgeRed) > 0, "no badge after mapping again",
                     images: ["after": image], test: "unmap")
    }
}
