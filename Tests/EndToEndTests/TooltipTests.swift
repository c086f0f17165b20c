import BadgeCore
import Glibc
import Testing
import XvfbHarness
import BadgeControl

/// Tooltips: an override-redirect window with the hovered badge's accessible description.
@Suite("E2E: tooltips", .endToEnd(minutes: 1))
struct TooltipTests {
    /// Hovers button `id` and waits for its tooltip event; returns it and the seconds it took.
    func hover(_ s: DemoSession, _ id: String) throws -> (event: JSONValue, seconds: Double) {
        let target = try s.state().button(id)
        let start = ContinuousClock.now
        try s.x.move(toRoot: s.rootCenter(of: target.button))
        let event = try s.app.readEvent(named: "tooltip", timeout: 5) { $0["visible"]?.bool == true }
        return (event, secondsSince(start))
    }

    @Test("Hovering shows the description after a delay; leaving hides it; idle stays at zero ticks")
    func showsAndHides() throws {
        let s = try DemoSession("tooltip")
        try s.moveAwayAndSync()
        let (event, seconds) = try hover(s, "mail")
        #expect(event["id"]?.string == "mail" && event["text"]?.string == "Mail, 12 unread", "\(event)")
        #expect(seconds >= 0.4, "the tooltip appeared after \(seconds) s, before the hover delay")
        let info = try #require(event["tooltip"])
        let window = UInt32(try #require(info["window"]?.int))
        #expect(try s.x.isViewable(window: window))
        #expect(try s.x.isOverrideRedirect(window: window))
        #expect(try s.x.property(window: window, name: "_NET_WM_WINDOW_TYPE") != nil)
        try s.sync()
        // The box is dark with light text.
        let image = try s.x.capture(window: window)
        let dark = image.count { Int($0.r) + Int($0.g) + Int($0.b) < 150 }
        let light = image.count { isWhite($0) }
        expectPixels(dark > image.width * image.height / 2 && light > 20, "tooltip pixels: \(dark) dark, \(light) light",
                     images: ["tooltip": image], test: "tooltip")
        // With the tooltip shown and nothing else pending, the app sleeps.
        let ticks0 = try s.app.cpuTicks()
        measureInterval(seconds: 1.0)
        let ticks1 = try s.app.cpuTicks()
        #expect(ticks1 - ticks0 == 0, "the app used \(ticks1 - ticks0) ticks in 1 s while showing a tooltip")
        try s.x.movePointerToCorner()
        _ = try s.app.readEvent(named: "tooltip", timeout: 5) { $0["visible"]?.bool == false }
        #expect(try !s.x.isViewable(window: window))
    }

    @Test("The tooltip follows the badge, and hides on leave, press and key")
    func hidesOnLeavePressKey() throws {
        let s = try DemoSession("tooltip-hide")
        try s.moveAwayAndSync()
        _ = try hover(s, "bell")
        try s.command("inc bell")
        let updated = try s.app.readEvent(named: "tooltip", timeout: 5) { $0["visible"]?.bool == true }
        #expect(updated["text"]?.string == "Notifications, 4 unread")

        // Leave.
        try s.x.movePointerToCorner()
        _ = try s.app.readEvent(named: "tooltip", timeout: 5) { $0["visible"]?.bool == false }
        try s.command("state")
        #expect(try s.app.readEvent(named: "state", timeout: 10)["tooltip"]?.isNull == true)

        // Press.
        _ = try hover(s, "mail")
        try s.x.press(button: MouseButton.left)
        _ = try s.app.readEvent(named: "tooltip", timeout: 5) { $0["visible"]?.bool == false }
        try s.x.release(button: MouseButton.left)
        _ = try s.nextChange()

        // Key (after moving to another button, the tooltip may show again).
        try s.x.setInputFocus(window: s.window)
        _ = try hover(s, "chat")
        try s.x.key(keysym: Keysym.tab)
        let hidden = try s.app.readEvent(named: "tooltip", timeout: 5) { $0["visible"]?.bool == false }
        #expect(hidden["visible"]?.bool == false)
        try s.sync()

        // Nothing pending now: zero wakeups.
        let before = try s.app.cpuTicks()
        measureInterval(seconds: 1.0)
        let after = try s.app.cpuTicks()
        #expect(after - before == 0, "the app used \(after - before) ticks in 1 s with the pointer resting on a button")
        let reshown = s.app.takePendingEvents(named: "tooltip").filter { $0["visible"]?.bool == true }.count
        #expect(reshown == 0,
                "the tooltip came back after a key press without the pointer moving")
    }
}
