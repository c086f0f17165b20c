import BadgeCore
import Glibc
import Testing
import XvfbHarness

/// Clicks and wheel on the real app through XTEST; assertions on change events, state and pixels.
@Suite("E2E: pointer input", .endToEnd(minutes: 1))
struct PointerInputTests {
    @Test("Left click on the bell: 3 → 4, pixels change to a red badge and match a fresh instance started at 4")
    func leftClickIncrements() throws {
        let s = try DemoSession("left-click")
        let bell = try s.state().button("bell")
        #expect(bell.text == "3" && bell.count == 3)
        let badgeBefore = try #require(bell.badge, "the bell must show a badge at start")
        try s.moveAwayAndSync()
        let before = try s.capture()

        try s.click(MouseButton.left, on: "bell")
        let change = try s.nextChange()
        #expect(change["id"]?.string == "bell")
        #expect(change["cause"]?.string == "click")
        #expect(change["text"]?.string == "4")
        #expect(change["content"]?["kind"]?.string == "count" && change["content"]?["count"]?.int == 4)

        try s.sync()  // the new count is drawn while the pointer still hovers the bell, as for a user
        try s.moveAwayAndSync()
        #expect(s.unconsumedChanges().isEmpty, "one click must make exactly one change")
        let after = try s.capture()
        let badge = try #require(try s.state().button("bell").badge)
        let region = badge.union(badgeBefore)
        let changed = after.differingPixels(from: before, in: region, tolerance: 8)
        expectPixels(changed > 0, "the badge pixels did not change after the click", images: ["before": before, "after": after], test: "left-click")

        let interior = badgeInterior(badge)
        let red = after.count(in: interior, where: isBadgeRed)
        let white = after.count(in: interior, where: isWhite)
        expectPixels(red * 100 >= interior.area * 40, "badge interior \(interior) is only \(red)/\(interior.area) badge-red (mean \(after.meanColour(in: interior)))",
                     images: ["after": after], test: "left-click")
        expectPixels(white >= 2, "no white text pixels in the badge interior \(interior)", images: ["after": after], test: "left-click")

        // The same toolbar started at bell=4 on its own server must look identical.
        let reference = try DemoSession("left-click-reference", arguments: ["--count", "bell=4"])
        #expect(reference.size == s.size)
        try reference.moveAwayAndSync()
        let expected = try reference.capture()
        let diff = after.differingPixels(from: expected, tolerance: 2)
        expectPixels(diff == 0, "\(diff) pixels differ from a fresh instance started with --count bell=4",
                     images: ["after": after, "reference": expected], test: "left-click")
    }

    @Test("Repeated redraws leave no residue: 10 clicks, then `set bell 4`, equals a fresh instance at 4")
    func repeatedRedrawsLeaveNoResidue() throws {
        let s = try DemoSession("residue")
        let bell = try s.state().button("bell")
        let point = try s.rootCenter(of: bell.button)
        for _ in 0..<10 { try s.x.click(button: MouseButton.left, atRoot: point) }
        try s.sync()
        #expect(try s.state().button("bell").text == "13")
        try s.command("set bell 4")
        try s.sync()  // drawn while the pointer still hovers the bell, then the pointer leaves
        try s.moveAwayAndSync()
        let after = try s.capture()
        let reference = try DemoSession("residue-reference", arguments: ["--count", "bell=4"])
        try reference.moveAwayAndSync()
        let expected = try reference.capture()
        let diff = after.differingPixels(from: expected, tolerance: 2)
        let worst = after.pixels.indices.map { after.pixels[$0].distance(to: expected.pixels[$0]) }.max() ?? 0
        expectPixels(diff == 0, "\(diff) pixels differ (worst channel difference \(worst)) from a fresh instance at 4 after 10 redraws",
                     images: ["after": after, "reference": expected], test: "residue")
    }

    @Test("On a depth-16 server the app starts, draws red badges and counts clicks")
    func depth16() throws {
        let s = try DemoSession("depth16", depth: 16)
        #expect(try s.x.geometry(ofWindow: s.window).depth == 16)
        try s.click(MouseButton.left, on: "bell")
        #expect(try s.nextChange()["text"]?.string == "4")
        try s.moveAwayAndSync()
        let image = try s.capture()
        for button in try s.state().buttons {
            let interior = badgeInterior(try #require(button.badge))
            let red = image.count(in: interior, where: isBadgeRed)
            expectPixels(red * 100 >= interior.area * 40, "\(button.id) badge interior only \(red)/\(interior.area) red at depth 16",
                         images: ["window": image], test: "depth16")
        }
    }

    @Test("Hovering a button and leaving restores the exact pixels")
    func hoverLeavesNoResidue() throws {
        let s = try DemoSession("hover")
        try s.moveAwayAndSync()
        let before = try s.capture()
        for id in ["bell", "mail"] {
            try s.x.move(toRoot: s.rootCenter(of: s.state().button(id).button))
            try s.sync()
            let hovered = try s.capture()
            #expect(hovered.differingPixels(from: before, tolerance: 0) >= 0)  // hover may or may not show
            try s.moveAwayAndSync()
            let after = try s.capture()
            let diff = after.differingPixels(from: before, tolerance: 0)
            expectPixels(diff == 0, "\(diff) pixels differ after hovering \(id) and leaving",
                         images: ["before": before, "hovered-\(id)": hovered, "after-\(id)": after], test: "hover")
        }
        #expect(s.unconsumedChanges().isEmpty)
    }

    @Test("Wheel down on mail: 12 → 11 (the right click opens the peek instead: PeekTests)")
    func wheelDownDecrements() throws {
        let s = try DemoSession("right-click")
        let mail = try s.state().button("mail")
        #expect(mail.text == "12")
        try s.moveAwayAndSync()
        let before = try s.capture()
        try s.click(MouseButton.wheelDown, on: "mail")
        let change = try s.nextChange()
        #expect(change["id"]?.string == "mail" && change["cause"]?.string == "wheel" && change["text"]?.string == "11")
        try s.moveAwayAndSync()
        let after = try s.capture()
        let now = try s.state().button("mail")
        #expect(now.text == "11" && now.count == 11)
        let region = try #require(now.badge).union(try #require(mail.badge))
        let changed = after.differingPixels(from: before, in: region, tolerance: 8)
        expectPixels(changed > 0, "mail badge pixels unchanged after 12 → 11", images: ["before": before, "after": after], test: "right-click")
        // Nothing outside the mail button changed.
        let bell = try s.state().button("bell")
        #expect(after.differingPixels(from: before, in: bell.button, tolerance: 0) == 0)
    }

    @Test("Wheel down on a badge at 1 hides it: no badge-red left, state badge null")
    func decrementToZeroHides() throws {
        let s = try DemoSession("hide", arguments: ["--count", "bell=1"])
        let bell = try s.state().button("bell")
        #expect(bell.text == "1")
        let former = try #require(bell.badge)
        try s.moveAwayAndSync()
        let before = try s.capture()
        let redBefore = before.count(in: former, where: isBadgeRed)
        expectPixels(redBefore * 100 >= former.area * 30, "the badge at 1 is not red enough to begin with (\(redBefore)/\(former.area))",
                     images: ["before": before], test: "hide")

        try s.click(MouseButton.wheelDown, on: "bell")
        let change = try s.nextChange()
        #expect(change["text"]?.string == "" && change["cause"]?.string == "wheel")
        #expect(change["content"]?["kind"]?.string == "none" || change["content"]?["count"]?.int == 0)
        try s.moveAwayAndSync()
        let after = try s.capture()
        let now = try s.state().button("bell")
        #expect(now.badge == nil, "state must report badge null when hidden")
        #expect(now.text == "")
        let redAfter = after.count(in: former, where: isBadgeRed)
        expectPixels(redAfter * 100 <= former.area * 2, "\(redAfter) badge-red pixels remain in the former badge rect \(former)",
                     images: ["before": before, "after": after], test: "hide")
        #expect(try s.state().title == "(12) Badges")
    }

    @Test("Press inside, release outside (or on another button): no change")
    func pressInsideReleaseOutside() throws {
        let s = try DemoSession("cancel")
        let state = try s.state()
        let bell = try state.button("bell"), mail = try state.button("mail")
        try s.moveAwayAndSync()
        let before = try s.capture()

        try s.x.move(toRoot: s.rootCenter(of: bell.button))
        try s.x.press(button: MouseButton.left)
        try s.x.movePointerToCorner()  // outside the window
        try s.x.release(button: MouseButton.left)
        try s.sync()

        try s.x.move(toRoot: s.rootCenter(of: bell.button))
        try s.x.press(button: MouseButton.left)
        try s.x.move(toRoot: s.rootCenter(of: mail.button))
        try s.x.release(button: MouseButton.left)
        try s.moveAwayAndSync()

        #expect(s.unconsumedChanges().isEmpty, "a press released outside the pressed button must not count")
        let now = try s.state()
        #expect(try now.button("bell").text == "3" && now.button("mail").text == "12")
        let after = try s.capture()
        let diff = after.differingPixels(from: before, tolerance: 0)
        expectPixels(diff == 0, "\(diff) pixels changed after cancelled presses", images: ["before": before, "after": after], test: "cancel")
    }

    @Test("Middle click clears; wheel up and down step by one")
    func middleAndWheel() throws {
        let s = try DemoSession("middle-wheel")
        try s.click(MouseButton.middle, on: "mail")
        let cleared = try s.nextChange()
        #expect(cleared["id"]?.string == "mail" && cleared["cause"]?.string == "click")
        // The contract does not say whether a cleared badge is {"kind":"none"} or a zero count; both hide it.
        let kind = cleared["content"]?["kind"]?.string, count = cleared["content"]?["count"]?.int
        #expect(kind == "none" || (kind == "count" && count == 0), "\(cleared)")
        #expect(cleared["text"]?.string == "", "\(cleared)")
        try s.moveAwayAndSync()
        #expect(try s.state().button("mail").badge == nil)

        try s.click(MouseButton.wheelUp, on: "bell")
        let up = try s.nextChange()
        #expect(up["id"]?.string == "bell" && up["cause"]?.string == "wheel" && up["text"]?.string == "4")
        try s.sync()
        #expect(s.unconsumedChanges().isEmpty, "one wheel notch must change the count once")

        try s.click(MouseButton.wheelDown, on: "bell")
        let down = try s.nextChange()
        #expect(down["id"]?.string == "bell" && down["cause"]?.string == "wheel" && down["text"]?.string == "3")
        try s.sync()
        #expect(s.unconsumedChanges().isEmpty)
        let state = try s.state()
        #expect(try state.button("bell").text == "3")
        #expect(state.title == "(3) Badges")
    }
}
