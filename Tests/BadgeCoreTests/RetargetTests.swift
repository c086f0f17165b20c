import BadgeCore
import Testing

/// A change during an animation continues from what is on screen: no jump in scale, opacity, frame or glyph positions.
@Suite struct RetargetTests {
    /// Asserts that the presentation at `time` is the same just before and just after `change`.
    func expectContinuous(_ h: Harness, at time: Double, _ change: () -> Void,
                          sourceLocation: SourceLocation = #_sourceLocation) {
        h.clock.now = time
        let before = h.controller.presentation(at: time)
        change()
        let after = h.controller.presentation(at: time)
        #expect(abs(before.scale - after.scale) < 1e-9, "scale", sourceLocation: sourceLocation)
        #expect(abs(before.opacity - after.opacity) < 1e-9, "opacity", sourceLocation: sourceLocation)
        #expect(approx(before.frame, after.frame, 1e-9), "frame", sourceLocation: sourceLocation)
        let widthBefore = before.runs.map(\.width).reduce(0, +), widthAfter = after.runs.map(\.width).reduce(0, +)
        #expect(abs(widthBefore - widthAfter) < 1e-9, "run widths", sourceLocation: sourceLocation)
    }

    @Test func bounceRetargetsFromCurrentScale() {
        let h = Harness(content: .count(3))
        h.controller.increment()
        let mid = h.controller.presentation(at: 10.1).scale
        expectContinuous(h, at: 10.1) { h.controller.increment() }
        // The new bounce runs from the current scale to 1 over a full bounce duration.
        #expect(approx(h.controller.presentation(at: 10.2).scale, mid + (1 - mid) * CubicBezier.bounce.value(at: 0.5)))
        #expect(h.controller.presentation(at: 10.3).scale == 1)
        #expect(h.controller.animationEndTime == 10.4)
        // Sampled frame by frame across the change: no step larger than the bounce itself produces.
        let frames = h.frames(for: 0.3, from: 10.1)
        #expect(Harness.maxScaleStep(frames) < 0.15)
    }

    @Test func rollRetargetKeepsVisibleGlyphInPlace() {
        let h = Harness(content: .count(3))
        h.controller.increment()  // 3 → 4 rolling up
        for time in [10.02, 10.05, 10.1, 10.2] {
            let before = h.controller.presentation(at: time).runs[0]
            h.clock.now = time
            let previous = h.controller.count
            h.controller.increment()
            let after = h.controller.presentation(at: time).runs[0]
            let old = glyphPositions(before), new = glyphPositions(after)
            #expect(after.text == String(previous + 1) && after.direction == 1)
            // The glyph kept on screen is exactly where it was; the one dropped was at least half a line away.
            let kept = after.outgoingText ?? "?"
            #expect(old[kept] != nil && new[kept] != nil)
            #expect(abs((new[kept] ?? .nan) - (old[kept] ?? .nan)) < 1e-9)
            for (glyph, position) in old where new[glyph] == nil { #expect(abs(position) >= 0.5) }
            // The new glyph enters one line below the kept one.
            #expect(abs(after.rollOffset - ((new[kept] ?? .nan) + 1)) < 1e-9)
        }
        #expect(h.controller.presentation(at: 10.5).runs == [BadgeTextRun(text: "8", width: 7)])
    }

    @Test func reversingARollIsContinuous() {
        let h = Harness(content: .count(3))
        h.controller.increment()
        let before = h.controller.presentation(at: 10.1).runs[0]
        h.clock.now = 10.1
        h.controller.decrement(by: 2)  // 4 → 2 while 3 → 4 is rolling
        let after = h.controller.presentation(at: 10.1).runs[0]
        #expect(after.text == "2" && after.direction == -1)
        let kept = after.outgoingText!
        #expect(abs(glyphPositions(after)[kept]! - glyphPositions(before)[kept]!) < 1e-9)
        #expect(after.rollOffset == glyphPositions(after)[kept]! - 1)
    }

    @Test func morphRetargetsFromCurrentWidth() {
        let h = Harness(content: .count(9))
        h.controller.increment()  // 9 → 10, width 18 → 24
        expectContinuous(h, at: 10.1) { h.controller.value = .count(100) }  // → "99+", width → 31
        #expect(h.controller.presentation(at: 10.4).frame == Rect(x: 117, y: 1, width: 31, height: 18))
        let frames = h.frames(for: 0.4, from: 10).compactMap(\.presentation.frame)
        let steps = zip(frames, frames.dropFirst()).map { abs($1.width - $0.width) }
        #expect((steps.max() ?? 0) < 1.5)
    }

    @Test func hideDuringAppearShrinksFromCurrentScale() {
        let h = Harness()
        h.controller.increment()
        expectContinuous(h, at: 10.05) { h.controller.hide() }
        #expect(h.controller.presentation(at: 10.1).label == .text("1"))
        #expect(h.controller.presentation(at: 10.25) == .hidden)
    }

    @Test func showDuringDisappearGrowsBackFromCurrentScale() {
        let h = Harness(content: .count(3))
        h.controller.clear()
        let shrinking = h.controller.presentation(at: 10.1)
        expectContinuous(h, at: 10.1) { h.controller.value = .count(3) }
        #expect(shrinking.scale < 1)
        #expect(h.controller.presentation(at: 10.3).scale == 1 && h.controller.presentation(at: 10.3).opacity == 1)
        // A new value during the disappear: grows back while the digit rolls, without a bounce restart.
        h.clock.now = 11
        h.controller.clear()
        expectContinuous(h, at: 11.1) { h.controller.value = .count(7) }
        let p = h.controller.presentation(at: 11.1)
        #expect(p.runs[0].text == "7" && p.runs[0].outgoingText == "3")
        #expect(p.scale < 1)
    }

    @Test func relayoutDuringBounceKeepsScale() {
        let h = Harness(content: .count(3))
        h.controller.increment()
        let scale = h.controller.presentation(at: 10.1).scale
        h.controller.layout(host: Rect(x: 0, y: 100, width: 32, height: 32), bounds: Harness.bounds,
                            direction: .leftToRight, scale: 1.5)
        #expect(h.controller.presentation(at: 10.1).scale == scale)
        #expect(h.controller.animationEndTime == 10.3)
    }

    @Test func retargetedAnimationsEndExactlyAtRest() {
        let h = Harness(content: .count(1))
        for step in 1...20 {
            h.clock.now = 10 + Double(step) * 0.037
            h.controller.increment(by: step % 3 == 0 ? -2 : 5)
        }
        let end = h.controller.animationEndTime ?? 0
        let rest = h.controller.presentation(at: end)
        #expect(rest.scale == 1 && rest.opacity == 1)
        #expect(rest.runs.allSatisfy { $0.outgoingText == nil && $0.rollOffset == 0 && $0.direction == 0 })
        #expect(rest.runs.map(\.text).joined() == h.controller.label.text)
        h.clock.now = end
        #expect(h.controller.animationEndTime == nil)
    }
}
