import BadgeCore
import Testing

/// Several changes at the same clock time coalesce into one animation.
@Suite struct BurstTests {
    @Test func tenThousandIncrementsAreOneAnimation() {
        let burst = Harness(content: .count(5))
        _ = burst.controller.presentation()
        let callsBefore = burst.measurer.calls
        for _ in 0..<10_000 { burst.controller.increment() }
        #expect(burst.measurer.calls == callsBefore)  // nothing measured during the burst
        let single = Harness(content: .count(5))
        _ = single.controller.presentation()
        single.controller.value = .count(10_005)
        #expect(burst.controller.animationEndTime == single.controller.animationEndTime)
        for (a, b) in zip(burst.frames(for: 0.4), single.frames(for: 0.4)) {
            #expect(a.presentation == b.presentation)
        }
        #expect(burst.controller.presentation(at: 10).scale == 1.5)
        #expect(burst.controller.presentation(at: 10.4).label == .text("99+"))
    }

    @Test func burstFromHiddenIsOneAppear() {
        let h = Harness()
        for _ in 0..<10_000 { h.controller.increment() }
        #expect(h.measurer.calls == 0)
        #expect(h.controller.animationEndTime == 10.2)
        let p = h.controller.presentation(at: 10)
        #expect(p.scale == 0 && p.label == .text("99+"))
        #expect(p.runs.map(\.outgoingText) == [nil, nil, nil])
    }

    @Test func burstThatEndsWhereItStartedDoesNothing() {
        let h = Harness(content: .count(5))
        let rest = h.controller.presentation()
        h.controller.increment()
        h.controller.decrement()
        #expect(h.controller.animationEndTime == nil)
        #expect(h.controller.presentation() == rest)
        h.controller.hide()
        h.controller.value = .count(5)
        #expect(h.controller.animationEndTime == nil)
    }

    @Test func burstDuringAnimationStartsFromOnScreenState() {
        let h = Harness(content: .count(3))
        h.controller.increment()
        h.clock.now = 10.1
        let onScreen = h.controller.presentation(at: 10.1)
        for _ in 0..<50 { h.controller.increment() }
        let after = h.controller.presentation(at: 10.1)
        #expect(after.scale == onScreen.scale && after.frame == onScreen.frame)
        #expect(h.controller.presentation(at: 10.5).label == .text("54"))
    }

    @Test func changesWithinTheCoalescingIntervalAreOneAnimation() {
        let burst = Harness(content: .count(5))
        for step in 0..<100 {
            burst.clock.now = 10 + Double(step) * BadgeController.coalescingInterval / 200
            burst.controller.increment()
        }
        let single = Harness(content: .count(5))
        single.controller.value = .count(105)
        #expect(burst.controller.animationEndTime == single.controller.animationEndTime)
        for (a, b) in zip(burst.frames(for: 0.4, from: 10), single.frames(for: 0.4, from: 10)) {
            #expect(a.presentation == b.presentation)
        }
        // Past the interval, a change is a retarget from the screen, not a restart.
        burst.clock.now = 10.1
        let before = burst.controller.presentation(at: 10.1)
        burst.controller.increment()
        #expect(burst.controller.presentation(at: 10.1).scale == before.scale)
    }
}
