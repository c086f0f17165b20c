import BadgeCore
import Testing

/// Changes coalesced into a burst are resolved lazily; whatever happens after them (timing, style, layout,
/// reduced motion, measurement invalidation, a later burst) must see the same animation as an eager
/// single change to the burst's final value.
@Suite struct DeferredBurstTests {
    /// Runs `between` after a burst 5 → 8 (three increments) on one harness and after `value = 8` on
    /// another, then compares what both show over the next half second.
    private func expectSameAsSingleChange(_ between: (Harness) -> Void) {
        let burst = Harness(content: .count(5))
        let single = Harness(content: .count(5))
        _ = burst.controller.presentation()
        _ = single.controller.presentation()
        for _ in 0..<3 { burst.controller.increment() }
        single.controller.value = .count(8)
        between(burst)
        between(single)
        #expect(burst.controller.animationEndTime == single.controller.animationEndTime)
        for (a, b) in zip(burst.frames(for: 0.5), single.frames(for: 0.5)) {
            #expect(a.presentation == b.presentation)
        }
        #expect(burst.controller.takeDamage() == single.controller.takeDamage())
    }

    @Test func timingChangedAfterBurstAppliesToLaterChangesOnly() {
        expectSameAsSingleChange { h in
            var timing = BadgeAnimationTiming()
            timing.rollDuration = 2
            timing.bounceDuration = 3
            h.controller.timing = timing
        }
    }

    @Test func styleChangedAfterBurst() {
        expectSameAsSingleChange { h in
            var style = BadgeStyle()
            style.font.size = 20
            style.anchor = .bottomLeading
            h.controller.style = style
        }
    }

    @Test func layoutChangedAfterBurst() {
        expectSameAsSingleChange { h in
            h.controller.layout(host: Rect(x: 370, y: 0, width: 30, height: 30), bounds: Harness.bounds,  // clamped
                                direction: .leftToRight, scale: 1.5)
        }
    }

    @Test func reducedMotionAfterBurst() {
        expectSameAsSingleChange { h in h.controller.reducesMotion = true }
    }

    @Test func measurementsInvalidatedAfterBurst() {
        expectSameAsSingleChange { h in h.controller.invalidateTextMeasurements() }
    }

    @Test func laterBurstStartsFromTheResolvedOne() {
        expectSameAsSingleChange { h in
            h.clock.now = 10.1
            h.controller.increment()
            h.controller.increment()
        }
    }

    @Test func formatChangeAfterBurstExpired() {
        expectSameAsSingleChange { h in
            h.clock.now = 10.05
            var format = BadgeFormat()
            format.maximumCount = 5
            h.controller.format = format
        }
    }

    @Test func blinkingDotAfterBurstExpired() {
        expectSameAsSingleChange { h in
            h.clock.now = 10.05
            h.controller.showDot(blink: true)
        }
    }

    @Test func burstOfMixedChangesEndsInTheLastOne() {
        let burst = Harness(content: .count(5))
        let single = Harness(content: .count(5))
        burst.controller.showDot(blink: true)
        burst.controller.setText("New")
        burst.controller.increment(by: Int.max)
        burst.controller.decrement(by: Int.min)
        burst.controller.value = .count(12)
        single.controller.value = .count(12)
        #expect(burst.controller.animationEndTime == single.controller.animationEndTime)
        for (a, b) in zip(burst.frames(for: 0.4), single.frames(for: 0.4)) {
            #expect(a.presentation == b.presentation)
        }
    }

    @Test func nanTimeDuringPendingBurstIsRest() {
        let h = Harness(content: .count(5))
        for _ in 0..<1_000 { h.controller.increment() }
        let p = h.controller.presentation(at: .nan)
        #expect(p.label == .text("99+") && p.scale == 1 && p.opacity == 1)
        #expect(p.runs.map(\.text) == ["9", "9", "+"])
    }
}
