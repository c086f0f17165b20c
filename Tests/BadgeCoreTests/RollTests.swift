import BadgeCore
import Testing

@Suite struct RollTests {
    @Test func increaseRollsUp() {
        let h = Harness(content: .count(3))
        h.controller.increment()
        #expect(h.controller.presentation(at: 10).runs
            == [BadgeTextRun(text: "4", outgoingText: "3", rollOffset: 1, direction: 1, width: 7)])
        let middle = h.controller.presentation(at: 10.15).runs
        #expect(middle.count == 1 && middle[0].direction == 1 && middle[0].outgoingText == "3")
        #expect(approx(middle[0].rollOffset, 1 - CubicBezier.easeOutBack.value(at: 0.5)))
        #expect(middle[0].rollOffset < 0)  // easeOutBack overshoots past rest
        #expect(h.controller.presentation(at: 10.3).runs == [BadgeTextRun(text: "4", width: 7)])
    }

    @Test func decreaseRollsDown() {
        let h = Harness(content: .count(4))
        h.controller.decrement()
        #expect(h.controller.presentation(at: 10).runs
            == [BadgeTextRun(text: "3", outgoingText: "4", rollOffset: -1, direction: -1, width: 7)])
        #expect(h.controller.presentation(at: 10.3).runs == [BadgeTextRun(text: "3", width: 7)])
    }

    @Test func directionFollowsTheNumberNotTheDigit() {
        let h = Harness(content: .count(19))
        h.controller.increment()
        let runs = h.controller.presentation(at: 10).runs
        #expect(runs == [BadgeTextRun(text: "2", outgoingText: "1", rollOffset: 1, direction: 1, width: 7),
                         BadgeTextRun(text: "0", outgoingText: "9", rollOffset: 1, direction: 1, width: 7)])
        h.clock.advance(by: 1)
        h.controller.value = .count(18)
        #expect(h.controller.presentation(at: 11).runs
            == [BadgeTextRun(text: "1", outgoingText: "2", rollOffset: -1, direction: -1, width: 7),
                BadgeTextRun(text: "8", outgoingText: "0", rollOffset: -1, direction: -1, width: 7)])
    }

    @Test func onlyChangedColumnsRoll() {
        var format = BadgeFormat()
        format.maximumCount = 999
        let h = Harness(content: .count(123), format: format)
        h.controller.increment()
        #expect(h.controller.presentation(at: 10).runs
            == [BadgeTextRun(text: "1", width: 7), BadgeTextRun(text: "2", width: 7),
                BadgeTextRun(text: "4", outgoingText: "3", rollOffset: 1, direction: 1, width: 7)])
    }

    @Test func newColumnRollsInAndWidthMorphs() {
        let h = Harness(content: .count(9))
        h.controller.increment()
        #expect(h.controller.presentation(at: 10).runs
            == [BadgeTextRun(text: "1", outgoingText: "", rollOffset: 1, direction: 1, width: 0),
                BadgeTextRun(text: "0", outgoingText: "9", rollOffset: 1, direction: 1, width: 7)])
        let middle = h.controller.presentation(at: 10.15)
        #expect(approx(middle.runs[0].width, 3.5, 1e-5))
        #expect(approx(middle.frame, Rect(x: 121.5, y: 1, width: 21, height: 18)))
        let rest = h.controller.presentation(at: 10.3)
        #expect(rest.runs == [BadgeTextRun(text: "1", width: 7), BadgeTextRun(text: "0", width: 7)])
        #expect(rest.frame == Rect(x: 120, y: 1, width: 24, height: 18))
    }

    @Test func removedColumnRollsOut() {
        let h = Harness(content: .count(10))
        h.controller.decrement()
        #expect(h.controller.presentation(at: 10).runs
            == [BadgeTextRun(text: "", outgoingText: "1", rollOffset: -1, direction: -1, width: 7),
                BadgeTextRun(text: "9", outgoingText: "0", rollOffset: -1, direction: -1, width: 7)])
        #expect(approx(h.controller.presentation(at: 10.15).runs[0].width, 3.5, 1e-5))
        #expect(h.controller.presentation(at: 10.3).runs == [BadgeTextRun(text: "9", width: 7)])
        #expect(h.controller.presentation(at: 10.3).frame == Rect(x: 123, y: 1, width: 18, height: 18))
    }

    @Test func overflowMorphsWithoutJump() {
        let h = Harness(content: .count(99))
        h.controller.increment()
        #expect(h.controller.label == .text("99+"))
        let start = h.controller.presentation(at: 10)
        #expect(start.frame == Rect(x: 120, y: 1, width: 24, height: 18))
        #expect(start.runs == [BadgeTextRun(text: "9", width: 7), BadgeTextRun(text: "9", width: 7),
                               BadgeTextRun(text: "+", outgoingText: "", rollOffset: 1, direction: 1, width: 0)])
        #expect(h.controller.presentation(at: 10.3).frame == Rect(x: 117, y: 1, width: 31, height: 18))
        let frames = h.frames(for: 0.3).compactMap(\.presentation.frame)
        let steps = zip(frames, frames.dropFirst()).map { abs($1.width - $0.width) }
        #expect((steps.max() ?? 0) < 1)
        #expect(frames.first?.width == 24 && frames.last?.width == 31)
        // And back down: the suffix rolls out, the digits roll down.
        h.clock.advance(by: 1)
        h.controller.value = .count(42)
        #expect(h.controller.presentation(at: 11).runs
            == [BadgeTextRun(text: "4", outgoingText: "9", rollOffset: -1, direction: -1, width: 7),
                BadgeTextRun(text: "2", outgoingText: "9", rollOffset: -1, direction: -1, width: 7),
                BadgeTextRun(text: "", outgoingText: "+", rollOffset: -1, direction: -1, width: 7)])
    }

    @Test func groupedDigitsRoll() {
        var format = BadgeFormat()
        format.groupsDigits = true
        format.maximumCount = 99_999
        let h = Harness(content: .count(999), format: format)
        h.controller.increment()
        #expect(h.controller.presentation(at: 10).runs.map(\.text) == ["1", ",", "0", "0", "0"])
        #expect(h.controller.presentation(at: 10).runs.map(\.outgoingText) == ["", "", "9", "9", "9"])
        #expect(h.controller.presentation(at: 10.3).runs.map(\.text) == ["1", ",", "0", "0", "0"])
    }

    @Test func textLabelsDoNotRoll() {
        let h = Harness(content: .count(3))
        h.controller.setText("New")
        #expect(h.controller.presentation(at: 10).runs == [BadgeTextRun(text: "New", width: 21)])
        h.clock.advance(by: 1)
        h.controller.value = .count(5)
        #expect(h.controller.presentation(at: 11).runs == [BadgeTextRun(text: "5", width: 7)])
    }

    @Test func zeroRollDurationIsInstant() {
        let h = Harness(content: .count(3))
        var timing = BadgeAnimationTiming()
        timing.rollDuration = 0
        h.controller.timing = timing
        h.controller.increment()
        #expect(h.controller.presentation(at: 10).runs == [BadgeTextRun(text: "4", width: 7)])
        #expect(h.controller.animationEndTime == 10.2)  // the bounce still runs
    }
}
