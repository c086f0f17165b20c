import BadgeCore
import Testing

@Suite struct DamageTests {
    @Test func firstDamageIsThePaintedArea() {
        let h = Harness(content: .count(3))
        // Frame (123, 1, 18, 18) + 1.5 ring = (121.5, -0.5, 21, 21), rounded out + 1 px.
        #expect(h.controller.takeDamage() == Rect(x: 120, y: -2, width: 24, height: 24))
        #expect(h.controller.takeDamage() == nil)
    }

    @Test func paintedBoundsIncludeScaleAndRing() {
        let p = BadgePresentation(label: .text("3"), frame: Rect(x: 123, y: 1, width: 18, height: 18), scale: 1.5,
                                  opacity: 1, runs: [])
        #expect(p.paintedBounds(style: BadgeStyle()) == Rect(x: 116.25, y: -5.75, width: 31.5, height: 31.5))
        var plain = BadgeStyle()
        plain.border = nil
        #expect(p.paintedBounds(style: plain) == Rect(x: 118.5, y: -3.5, width: 27, height: 27))
        var hidden = p
        hidden.opacity = 0
        #expect(hidden.paintedBounds(style: plain) == nil)
        #expect(BadgePresentation.hidden.paintedBounds(style: plain) == nil)
    }

    @Test func bounceDamageCoversOldAndNew() {
        let h = Harness(content: .count(3))
        _ = h.controller.takeDamage()
        h.controller.increment()
        #expect(h.controller.takeDamage() == Rect(x: 115, y: -7, width: 34, height: 34))
        h.clock.advance(by: 0.3)
        #expect(h.controller.takeDamage() == Rect(x: 115, y: -7, width: 34, height: 34))
        #expect(h.controller.takeDamage() == nil)
    }

    @Test func disappearDamageEndsWithTheLastPaintedArea() {
        let h = Harness(content: .count(3))
        _ = h.controller.takeDamage()
        h.controller.hide()
        h.clock.advance(by: 0.1)
        let shrinking = h.controller.takeDamage()
        #expect(shrinking == Rect(x: 120, y: -2, width: 24, height: 24))
        h.clock.advance(by: 0.1)
        #expect(h.controller.takeDamage() != nil)
        #expect(h.controller.takeDamage() == nil)
    }

    @Test func styleChangeDamagesWithoutAnimation() {
        let h = Harness(content: .count(3))
        _ = h.controller.takeDamage()
        h.controller.style.backgroundColor = .black
        #expect(h.controller.animationEndTime == nil)
        #expect(h.controller.takeDamage() == Rect(x: 120, y: -2, width: 24, height: 24))
        h.controller.style.border = nil
        #expect(h.controller.takeDamage() == Rect(x: 120, y: -2, width: 24, height: 24))
        #expect(h.controller.takeDamage() == nil)
    }

    @Test func nothingVisibleNoDamage() {
        let h = Harness()
        #expect(h.controller.takeDamage() == nil)
        h.controller.layout(host: Rect(x: 5, y: 5, width: 10, height: 10), bounds: Harness.bounds,
                            direction: .rightToLeft, scale: 2)
        #expect(h.controller.takeDamage() == nil)
    }

    @Test func damageEveryFrameOfAnAnimationCoversWhatIsPainted() throws {
        let h = Harness(content: .count(9))
        _ = h.controller.takeDamage()
        h.controller.increment()
        var previous = try #require(h.controller.presentation().paintedBounds(style: h.controller.style))
        for _ in 0..<18 {  // the 0.3 s roll
            h.clock.advance(by: 1.0 / 60)
            let damage = try #require(h.controller.takeDamage())
            let now = try #require(h.controller.presentation().paintedBounds(style: h.controller.style))
            #expect(damage.union(now) == damage && damage.union(previous) == damage)
            previous = now
        }
    }
}
