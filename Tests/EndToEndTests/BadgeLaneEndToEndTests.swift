import BadgeCore
import Glibc
import Testing
import XvfbHarness

/// One badge never hides the others (in the window): a long text badge stays in its lane (25 px
/// either side of its anchor: halfway to the neighbours' badges), cut with "…", while `state` and the screen
/// reader's description keep the full text; the neighbours' badges stay visible and their changes
/// show.
@Suite("E2E: a long text badge stays in its lane", .endToEnd(minutes: 2))
struct BadgeLaneEndToEndTests {
    @Test("15 and 60 W's on updates (the last button) and on mail (a middle one), LTR and RTL, at 1x and 2x: every other badge visible, a neighbour's change shows",
          arguments: [("updates", 15, "chat"), ("mail", 60, "chat")],
          [[String](), ["--scale", "2"], ["--rtl"], ["--rtl", "--scale", "2"]])
    func longTextKeepsToItsLane(target: (id: String, length: Int, neighbour: String), flags: [String]) throws {
        let name = "lane-\(target.id)" + flags.map { "-" + $0.filter { $0 != "-" } }.joined()
        let s = try DemoSession(name, arguments: ["--no-state"] + flags)
        let text = String(repeating: "W", count: target.length)
        try s.command("set \(target.neighbour) 5")
        try s.command("text \(target.id) \(text)")
        try s.moveAwayAndSync()
        let state = try s.state()
        let scale = Double(s.size.height) / 60
        let button = try state.button(target.id)
        let badge = try #require(button.badge, "the long text is on show")
        // The body (the ring, 1.5 px, around it) stays within 25 px of its anchor, the icon's
        // trailing corner (10 px inside the button), and inside the window.
        let rtl = flags.contains("--rtl")
        let anchor = Double(rtl ? button.button.x : button.button.maxX) + (rtl ? 10 : -10) * scale
        let laneMin = max(Int(((anchor - 23.5 * scale)).rounded(.down)), 0)
        let laneMax = min(Int((anchor + 23.5 * scale).rounded(.up)), s.size.width)
        #expect(badge.x >= laneMin && badge.maxX <= laneMax, "the badge \(badge) leaves its lane \(laneMin)..<\(laneMax)")
        #expect(badge.width <= Int((47 * scale).rounded(.up)), "the badge is \(badge.width) px wide")
        #expect(badge.x >= 0 && badge.maxX <= s.size.width, "the badge \(badge) is outside the window")
        // The full text where people read it; the window draws it cut.
        #expect(button.text == text && button.json["content"]?["text"]?.string == text)
        #expect(button.description.contains(text), "\(button.description)")
        let drawn = button.json["drawn"]?.string ?? ""
        #expect(drawn.hasSuffix("…") && drawn.count >= 2 && text.hasPrefix(String(drawn.dropLast())), "drawn \(drawn)")

        let image = try s.capture()
        image.saveArtifact(named: "screenshot-\(name)")
        for other in state.buttons where other.id != target.id {
            guard let rect = other.badge else { continue }
            #expect(rect.intersection(badge).isEmpty, "\(target.id)'s badge \(badge) covers \(other.id)'s \(rect)")
            let icon = other.button.insetBy(dx: Int(10 * scale), dy: Int(10 * scale))
            #expect(icon.intersection(badge).isEmpty, "\(target.id)'s badge \(badge) covers \(other.id)'s icon \(icon)")
            let interior = badgeInterior(rect)
            let red = image.count(in: interior, where: isBadgeRed)
            expectPixels(red * 100 >= interior.area * 30, "\(other.id)'s badge is only \(red)/\(interior.area) red",
                         images: ["window": image], test: name)
        }
        #expect(state.buttons.filter { $0.badge != nil }.count == 4, "every badge is on show")

        // A later change to the neighbour shows in its pixels.
        let neighbour = try #require(try state.button(target.neighbour).badge)
        let before = try s.capture(neighbour).pixels
        try s.command("set \(target.neighbour) 8")
        _ = try s.nextChange()
        try s.moveAwayAndSync()
        let after = try s.capture(neighbour).pixels
        #expect(after != before, "the neighbour's new count does not show")
    }
}
