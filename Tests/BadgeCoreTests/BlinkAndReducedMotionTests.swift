import BadgeCore
import Testing

@Suite struct BlinkAndReducedMotionTests {
    @Test func blinkIsPeriodicEaseOut() {
        let h = Harness()
        h.controller.showDot(blink: true)
        #expect(h.controller.isBlinking)
        #expect(h.controller.animationEndTime == .infinity)
        #expect(h.controller.presentation(at: 10).opacity == 0)
        #expect(approx(h.controller.presentation(at: 10.6).opacity, CubicBezier.easeOut.value(at: 0.5)))
        for cycle in 1...5 {
            let base = 10 + Double(cycle) * 1.2
            #expect(approx(h.controller.presentation(at: base + 0.3).opacity,
                           h.controller.presentation(at: 10.3).opacity, 1e-6))
            #expect(approx(h.controller.presentation(at: base + 0.9).opacity,
                           h.controller.presentation(at: 10.9).opacity, 1e-6))
        }
        // Within one period opacity only rises.
        let cycle = (1..<72).map { h.controller.presentation(at: 12.4 + Double($0) / 60).opacity }
        #expect(zip(cycle, cycle.dropFirst()).allSatisfy { $0 <= $1 + 1e-12 })
        let p = h.controller.presentation(at: 15)
        #expect(p.label == .dot && p.frame == Rect(x: 128, y: 6, width: 8, height: 8) && p.runs.isEmpty)
        h.clock.now = 50
        #expect(h.controller.animationEndTime == .infinity)
    }

    @Test func stoppingBlinkFadesToSteadyWithoutJump() {
        let h = Harness()
        h.controller.showDot(blink: true)
        h.clock.now = 10.6
        let blinking = h.controller.presentation(at: 10.6).opacity
        h.controller.showDot(blink: false)
        #expect(!h.controller.isBlinking)
        #expect(abs(h.controller.presentation(at: 10.6).opacity - blinking) < 1e-9)
        #expect(h.controller.presentation(at: 10.8).opacity == 1)
        #expect(approx(h.controller.animationEndTime ?? 0, 10.8))
    }

    @Test func blinkingTwiceKeepsThePhase() {
        let h = Harness()
        h.controller.showDot(blink: true)
        h.clock.now = 10.5
        let opacity = h.controller.presentation(at: 10.5).opacity
        h.controller.showDot(blink: true)
        #expect(h.controller.presentation(at: 10.5).opacity == opacity)
    }

    @Test func reducedMotionAppliesAtOnce() {
        let h = Harness(content: .count(3))
        h.controller.reducesMotion = true
        h.controller.increment()
        #expect(h.controller.animationEndTime == nil)
        let p = h.controller.presentation()
        #expect(p.scale == 1 && p.opacity == 1 && p.runs == [BadgeTextRun(text: "4", width: 7)])
        h.controller.value = .count(10)
        #expect(h.controller.presentation().frame == Rect(x: 120, y: 1, width: 24, height: 18))
        h.controller.hide()
        #expect(h.controller.presentation() == .hidden && h.controller.animationEndTime == nil)
        h.controller.setText("New")
        #expect(h.controller.presentation().scale == 1 && h.controller.animationEndTime == nil)
    }

    @Test func reducedMotionMakesBlinkSteady() {
        let h = Harness()
        h.controller.reducesMotion = true
        h.controller.showDot(blink: true)
        #expect(!h.controller.isBlinking)
        #expect(h.controller.animationEndTime == nil)
        for step in 0..<100 { #expect(h.controller.presentation(at: 10 + Double(step) * 0.05).opacity == 1) }
        // Turning reduced motion off resumes blinking from now.
        h.controller.reducesMotion = false
        #expect(h.controller.isBlinking && h.controller.animationEndTime == .infinity)
        #expect(h.controller.presentation(at: 10).opacity == 0)
    }

    @Test func turningReducedMotionOnEndsRunningAnimations() {
        let h = Harness(content: .count(3))
        h.controller.increment()
        h.controller.reducesMotion = true
        #expect(h.controller.animationEndTime == nil)
        #expect(h.controller.presentation() == h.controller.presentation(at: 100))
        #expect(h.controller.presentation().scale == 1)
    }
}
