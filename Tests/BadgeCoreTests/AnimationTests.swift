import BadgeCore
import Testing

@Suite struct AnimationTests {
    @Test func appearScalesAndFadesIn() {
        let h = Harness()
        h.controller.increment()
        #expect(h.controller.animationEndTime == 10.2)
        let start = h.controller.presentation(at: 10)
        #expect(start.label == .text("1") && start.scale == 0 && start.opacity == 0 && !start.isVisible)
        #expect(start.frame == Rect(x: 123, y: 1, width: 18, height: 18))
        let middle = h.controller.presentation(at: 10.1)
        #expect(approx(middle.scale, CubicBezier.easeOutBack.value(at: 0.5)))
        #expect(middle.scale > 1)  // easeOutBack overshoots
        #expect(approx(middle.opacity, 0.5))
        let end = h.controller.presentation(at: 10.2)
        #expect(end.scale == 1 && end.opacity == 1)
        let frames = h.frames(for: 0.2)
        #expect(Harness.maxScaleStep(frames) < 0.35)
        #expect(frames.last?.presentation == h.controller.presentation(at: 100))
        h.clock.advance(by: 0.2)
        #expect(h.controller.animationEndTime == nil)
    }

    @Test func bounceOnChange() {
        let h = Harness(content: .count(3))
        h.controller.increment()
        #expect(h.controller.animationEndTime == 10.3)  // the roll (0.3 s) outlasts the bounce (0.2 s)
        #expect(h.controller.presentation(at: 10).scale == 1.5)
        #expect(approx(h.controller.presentation(at: 10.1).scale, 1.5 - 0.5 * CubicBezier.bounce.value(at: 0.5)))
        #expect(h.controller.presentation(at: 10.2).scale == 1)
        let frames = h.frames(for: 0.3)
        #expect(Harness.maxScaleStep(frames) < 0.15)
        let lowest = frames.map(\.presentation.scale).min() ?? 0
        #expect(lowest < 1 && lowest > 0.98)  // the bounce curve overshoots slightly below 1
        #expect(frames.allSatisfy { $0.presentation.opacity == 1 && $0.presentation.label == .text("4") })
        #expect(frames.last?.presentation.scale == 1)
    }

    @Test func bounceStartScaleIsConfigurable() {
        let h = Harness(content: .count(3))
        var timing = BadgeAnimationTiming()
        timing.bounceStartScale = 2
        timing.bounceDuration = 0.5
        h.controller.timing = timing
        h.controller.increment()
        #expect(h.controller.presentation(at: 10).scale == 2)
        #expect(approx(h.controller.presentation(at: 10.25).scale, 2 - CubicBezier.bounce.value(at: 0.5)))
        #expect(h.controller.presentation(at: 10.5).scale == 1)
    }

    @Test func sameLabelDoesNotAnimate() {
        let h = Harness(content: .count(150))
        h.controller.increment()
        #expect(h.controller.animationEndTime == nil)
        #expect(h.controller.presentation().scale == 1)
        h.controller.value = .count(151)
        #expect(h.controller.animationEndTime == nil)
    }

    @Test func disappearShowsOldLabelWhileShrinking() {
        let h = Harness(content: .count(3))
        h.controller.clear()
        #expect(h.controller.label == .hidden)
        #expect(h.controller.animationEndTime == 10.2)
        let frames = h.frames(for: 0.2)
        for (time, p) in frames where time < 10.2 - 1e-9 {
            #expect(p.label == .text("3") && p.runs == [BadgeTextRun(text: "3", width: 7)])
            #expect(p.frame == Rect(x: 123, y: 1, width: 18, height: 18))
        }
        #expect(h.controller.presentation(at: 10).scale == 1)
        let middle = h.controller.presentation(at: 10.1)
        #expect(approx(middle.scale, 1 - CubicBezier.ease.value(at: 0.5)) && approx(middle.opacity, 0.5))
        #expect(h.controller.presentation(at: 10.2) == .hidden)
        #expect(Harness.maxScaleStep(Array(frames.dropLast())) < 0.2)
        h.clock.advance(by: 0.2)
        #expect(h.controller.animationEndTime == nil)
    }

    @Test func hideOfHiddenDoesNothing() {
        let h = Harness()
        h.controller.hide()
        #expect(h.controller.animationEndTime == nil && h.controller.presentation() == .hidden)
    }

    @Test func textChangeMorphsFrameWithoutRolling() {
        let h = Harness(content: .text("New"))
        h.controller.setText("Hi")
        let start = h.controller.presentation(at: 10)
        #expect(start.frame == Rect(x: 117, y: 1, width: 31, height: 18))
        #expect(start.runs == [BadgeTextRun(text: "Hi", width: 14)])
        let middle = h.controller.presentation(at: 10.15)
        #expect(approx(middle.frame, Rect(x: 118.5, y: 1, width: 27.5, height: 18)))
        #expect(h.controller.presentation(at: 10.3).frame == Rect(x: 120, y: 1, width: 24, height: 18))
    }

    @Test func dotToCountMorphsBothSides() {
        let h = Harness(content: .dot)
        h.controller.value = .count(5)
        #expect(h.controller.presentation(at: 10).frame == Rect(x: 128, y: 6, width: 8, height: 8))
        #expect(approx(h.controller.presentation(at: 10.15).frame, Rect(x: 125.5, y: 3.5, width: 13, height: 13)))
        #expect(h.controller.presentation(at: 10.3).frame == Rect(x: 123, y: 1, width: 18, height: 18))
    }

    @Test func relayoutDoesNotAnimate() {
        let h = Harness(content: .count(3))
        _ = h.controller.takeDamage()
        h.controller.layout(host: Rect(x: 200, y: 10, width: 32, height: 32), bounds: Harness.bounds,
                            direction: .leftToRight, scale: 1)
        #expect(h.controller.animationEndTime == nil)
        #expect(h.controller.presentation().frame == Rect(x: 223, y: 1, width: 18, height: 18))
        #expect(h.controller.takeDamage() == Rect(x: 120, y: -2, width: 124, height: 24))
        h.controller.layout(host: Rect(x: 200, y: 10, width: 32, height: 32), bounds: Harness.bounds,
                            direction: .rightToLeft, scale: 2)
        #expect(h.controller.presentation().frame == Rect(x: 191, y: 1, width: 18, height: 18))
        #expect(h.controller.animationEndTime == nil)
    }

    @Test func relayoutDuringMorphMovesWithHost() {
        let h = Harness(content: .count(9))
        h.controller.increment()
        #expect(approx(h.controller.presentation(at: 10.15).frame, Rect(x: 121.5, y: 1, width: 21, height: 18)))
        h.controller.layout(host: Rect(x: 150, y: 10, width: 32, height: 32), bounds: Harness.bounds,
                            direction: .leftToRight, scale: 1)
        #expect(approx(h.controller.presentation(at: 10.15).frame, Rect(x: 171.5, y: 1, width: 21, height: 18)))
        #expect(h.controller.presentation(at: 10.3).frame == Rect(x: 170, y: 1, width: 24, height: 18))
    }

    @Test(arguments: [1.0, 1.25, 1.5, 2.0])
    func restFramesAreSnappedAfterAnimations(scale: Double) throws {
        let h = Harness(content: .count(9), scale: scale)
        h.controller.increment()
        let rest = try #require(h.controller.presentation(at: 10.3).frame)
        for value in [rest.minX, rest.minY, rest.width, rest.height] { #expect(isOnGrid(value, scale: scale)) }
        // The morph is continuous frame by frame.
        let frames = h.frames(for: 0.3).compactMap(\.presentation.frame)
        let widthSteps = zip(frames, frames.dropFirst()).map { abs($1.width - $0.width) }
        #expect((widthSteps.max() ?? 0) < 1.5)
    }
}
