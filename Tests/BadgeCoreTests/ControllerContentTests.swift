import BadgeCore
import Testing

@Suite struct ControllerContentTests {
    @Test func incrementAndDecrement() {
        let h = Harness()
        h.controller.increment()
        #expect(h.controller.value == .count(1) && h.controller.count == 1 && h.controller.label == .text("1"))
        h.controller.increment(by: 5)
        #expect(h.controller.count == 6)
        h.controller.increment(by: -3)
        #expect(h.controller.count == 3)
        h.controller.decrement()
        #expect(h.controller.count == 2)
        h.controller.decrement(by: -4)
        #expect(h.controller.count == 6)
        h.controller.decrement(by: 100)
        #expect(h.controller.value == .count(0) && h.controller.label == .hidden)
    }

    @Test func saturatesAtExtremes() {
        let h = Harness(content: .count(Int.max - 1))
        h.controller.increment(by: 10)
        #expect(h.controller.count == Int.max)
        h.controller.increment(by: Int.max)
        #expect(h.controller.count == Int.max)
        h.controller.increment(by: Int.min)
        #expect(h.controller.count == 0)
        h.controller.decrement(by: Int.min)
        #expect(h.controller.count == Int.max)
        h.controller.decrement(by: Int.max)
        #expect(h.controller.count == 0)
        h.controller.value = .count(Int.min)
        #expect(h.controller.value == .count(0))
        h.controller.value = .count(-5)
        #expect(h.controller.value == .count(0))
        h.controller.decrement(by: 0)
        #expect(h.controller.count == 0)
    }

    @Test func incrementStartsFromZeroForOtherContent() {
        for start in [BadgeContent.none, .dot, .text("New")] {
            let h = Harness(content: start)
            #expect(h.controller.count == 0)
            h.controller.increment()
            #expect(h.controller.value == .count(1))
        }
    }

    @Test func textAndDot() {
        let h = Harness()
        h.controller.setText("New")
        #expect(h.controller.value == .text("New") && h.controller.label == .text("New"))
        h.controller.setText("")
        #expect(h.controller.value == .none && h.controller.label == .hidden)
        h.controller.setText("  \n ")
        #expect(h.controller.value == .none)
        h.controller.value = .text(" ")
        #expect(h.controller.value == .none)
        h.controller.setText("\u{301}")
        #expect(h.controller.label == .text("\u{301}"))
        h.controller.showDot(blink: true)
        #expect(h.controller.value == .dot && h.controller.isBlinking)
        h.controller.showDot()
        #expect(!h.controller.isBlinking)
        h.controller.showDot(blink: true)
        h.controller.increment()
        #expect(!h.controller.isBlinking && h.controller.value == .count(1))
        h.controller.clear()
        #expect(h.controller.value == .count(0) && h.controller.label == .hidden)
        h.controller.setText("x")
        h.controller.hide()
        #expect(h.controller.value == .none)
    }

    @Test func formatChangeChangesLabel() {
        let h = Harness(content: .count(150))
        #expect(h.controller.label == .text("99+"))
        h.controller.format.maximumCount = 999
        #expect(h.controller.label == .text("150"))
        h.controller.clear()
        h.controller.format.hidesAtZero = false
        #expect(h.controller.label == .text("0"))
    }

    @Test func timingIsStoredSanitized() {
        let h = Harness()
        var timing = BadgeAnimationTiming()
        timing.rollDuration = .nan
        h.controller.timing = timing
        #expect(h.controller.timing.rollDuration == 0.3)
    }

    static let accessibilityCases: [(String, BadgeContent, String)] = [
        ("Mail", .count(3), "Mail, 3 unread"), ("Mail", .count(1), "Mail, 1 unread"),
        ("Mail", .count(100), "Mail, more than 99 unread"), ("Mail", .count(Int.max), "Mail, more than 99 unread"),
        ("Notifications", .dot, "Notifications, new"), ("Mail", .text("New"), "Mail, New"),
        ("Mail", .text("  New \n"), "Mail, New"), ("Mail", .none, "Mail"), ("Mail", .count(0), "Mail"),
        ("Mail", .count(-4), "Mail"), ("", .count(3), "3 unread"), ("  ", .none, ""), ("Mail", .text(""), "Mail"),
    ]

    @Test(arguments: accessibilityCases)
    func accessibility(name: String, content: BadgeContent, expected: String) {
        let h = Harness(content: content, label: name)
        #expect(h.controller.accessibilityDescription == expected)
    }

    @Test func accessibilityFollowsFormat() {
        var format = BadgeFormat()
        format.maximumCount = 999
        format.maximumTextLength = 3
        let h = Harness(content: .count(1000), format: format)
        #expect(h.controller.accessibilityDescription == "Mail, more than 999 unread")
        h.controller.setText("Hello")
        #expect(h.controller.label == .text("He…"))
        #expect(h.controller.accessibilityDescription == "Mail, Hello")
        h.controller.format.hidesAtZero = false
        h.controller.clear()
        #expect(h.controller.accessibilityDescription == "Mail, 0 unread")
        h.controller.accessibilityLabel = "Inbox"
        h.controller.increment()
        #expect(h.controller.accessibilityDescription == "Inbox, 1 unread")
    }

    @Test func initialContentIsAtRest() {
        let h = Harness(content: .count(3))
        #expect(h.controller.animationEndTime == nil)
        let p = h.controller.presentation()
        #expect(p.frame == Rect(x: 123, y: 1, width: 18, height: 18))
        #expect(p.scale == 1 && p.opacity == 1 && p.label == .text("3") && p.isVisible)
        #expect(p.runs == [BadgeTextRun(text: "3", width: 7)])
        let none = Harness()
        #expect(none.controller.presentation() == .hidden)
        #expect(!BadgePresentation.hidden.isVisible)
    }

    @Test func measuresEachTextOnce() {
        let h = Harness(content: .count(9))
        for step in 0..<60 { _ = h.controller.presentation(at: 10 + Double(step) / 60) }
        let afterRest = h.measurer.calls
        #expect(afterRest == 1)  // "9" (label and column are the same string)
        h.controller.increment()
        for step in 0..<60 { _ = h.controller.presentation(at: 10 + Double(step) / 60) }
        #expect(h.measurer.calls == afterRest + 3)  // "10", "1", "0"
        #expect(h.controller.cachedTextSizeCount == 4)
        h.controller.invalidateTextMeasurements()
        #expect(h.controller.cachedTextSizeCount == 0)
        _ = h.controller.presentation(at: 11)
        #expect(h.measurer.calls == afterRest + 6)
    }

    @Test func brokenMeasurerStillLaysOut() {
        let clock = ManualClock()
        let controller = BadgeController(accessibilityLabel: "Mail", content: .count(10), clock: clock,
                                         measurer: BrokenMeasurer())
        controller.layout(host: Harness.host, bounds: Harness.bounds, direction: .leftToRight, scale: 1)
        let p = controller.presentation()
        #expect(p.frame == Rect(x: 123, y: 1, width: 18, height: 18))
        #expect(p.runs.map(\.width) == [0, 0])
    }

    @Test func hugeAndOddText() {
        let long = String(repeating: "x", count: 10_000)
        let h = Harness(content: .text(long))
        let p = h.controller.presentation()
        // Stored and shown capped to TextBounds.maximumBadgeTextBytes (one byte per "x").
        let kept = String(repeating: "x", count: TextBounds.maximumBadgeTextBytes)
        let width = 7 * Double(TextBounds.maximumBadgeTextBytes)
        #expect(p.frame == Rect(x: 0, y: 1, width: width + 10, height: 18))
        #expect(p.runs == [BadgeTextRun(text: kept, width: width)])
        h.controller.setText("\u{301}")
        h.clock.advance(by: 1)
        #expect(h.controller.presentation().frame == Rect(x: 123, y: 1, width: 18, height: 18))
    }

    @Test func badStyleAndTimesAreSafe() {
        var style = BadgeStyle()
        style.minimumSize = .nan
        style.offset = Point(x: .infinity, y: .nan)
        style.border = BadgeBorder(width: .nan, color: .matchesSurface)
        let h = Harness(content: .count(3), style: style)
        #expect(h.controller.presentation().frame == Rect(x: 123, y: 1, width: 18, height: 18))
        #expect(h.controller.presentation(at: .nan) == h.controller.presentation(at: 1e9))
        #expect(h.controller.presentation(at: .infinity).scale == 1)
        h.controller.increment()
        #expect(h.controller.presentation(at: -.infinity).scale == 1.5)
        #expect(h.controller.presentation(at: .nan).scale == 1)
        h.controller.layout(host: Harness.host, bounds: Harness.bounds, direction: .leftToRight, scale: .nan)
        h.clock.advance(by: 1)
        #expect(h.controller.presentation().frame == Rect(x: 123, y: 1, width: 18, height: 18))
    }
}
