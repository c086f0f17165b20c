import BadgeCore
import Testing

@Suite struct StyleTests {
    @Test func defaults() {
        let style = BadgeStyle()
        #expect(style.backgroundColor == .badgeRed && style.textColor == .white)
        #expect(style.font == BadgeFont(family: "DejaVu Sans", size: 11, weight: .bold))
        #expect(style.horizontalPadding == 5 && style.verticalPadding == 2)
        #expect(style.minimumSize == 18 && style.dotDiameter == 8)
        #expect(style.border == BadgeBorder(width: 1.5, color: .matchesSurface))
        #expect(style.anchor == .topTrailing && style.offset == .zero)
        #expect(style.sanitized() == style)
    }

    @Test func sanitizesBadNumbers() {
        var style = BadgeStyle()
        style.backgroundColor = Color(red: .nan, green: 2, blue: -1, alpha: 0.5)
        style.font = BadgeFont(family: "  ", size: .nan, weight: .regular)
        style.horizontalPadding = -3
        style.verticalPadding = .infinity
        style.minimumSize = .nan
        style.dotDiameter = 0
        style.border = BadgeBorder(width: -1, color: .fixed(Color(red: .nan, green: 0.5, blue: 0.5)))
        style.offset = Point(x: .nan, y: -.infinity)
        let clean = style.sanitized()
        #expect(clean.backgroundColor == Color(red: Color.badgeRed.red, green: 1, blue: 0, alpha: 0.5))
        #expect(clean.font == BadgeFont(family: "DejaVu Sans", size: 11, weight: .regular))
        #expect(clean.horizontalPadding == 5 && clean.verticalPadding == 2 && clean.minimumSize == 18)
        #expect(clean.dotDiameter == 8)
        #expect(clean.border == BadgeBorder(width: 1.5, color: .fixed(Color(red: 0, green: 0.5, blue: 0.5))))
        #expect(clean.offset == .zero)
    }

    @Test func keepsZeroAndClampsHuge() {
        var style = BadgeStyle()
        style.horizontalPadding = 0
        style.verticalPadding = 0
        style.minimumSize = 0
        style.border = BadgeBorder(width: 0, color: .matchesSurface)
        style.dotDiameter = -4
        style.font.size = -1
        style.offset = Point(x: 1e300, y: -1e300)
        let clean = style.sanitized()
        #expect(clean.horizontalPadding == 0 && clean.verticalPadding == 0 && clean.minimumSize == 0)
        #expect(clean.border == nil)
        #expect(clean.dotDiameter == 8)
        #expect(clean.font.size == 11)
        #expect(clean.offset == Point(x: BadgeStyle.maximumOffset, y: -BadgeStyle.maximumOffset))
        style.minimumSize = 1e300
        style.font.size = 1e300
        #expect(style.sanitized().minimumSize == BadgeStyle.maximumLength)
        #expect(style.sanitized().font.size == BadgeStyle.maximumLength)
    }

    @Test func timingSanitized() {
        var timing = BadgeAnimationTiming()
        #expect(timing.sanitized() == timing)
        #expect(timing.bounceDuration == 0.2 && timing.appearDuration == 0.2 && timing.disappearDuration == 0.2)
        #expect(timing.rollDuration == 0.3 && timing.blinkPeriod == 1.2 && timing.bounceStartScale == 1.5)
        timing.bounceDuration = .nan
        timing.appearDuration = -1
        timing.disappearDuration = .infinity
        timing.rollDuration = 0
        timing.blinkPeriod = 0
        timing.bounceStartScale = -2
        let clean = timing.sanitized()
        #expect(clean.bounceDuration == 0.2 && clean.appearDuration == 0.2 && clean.disappearDuration == 0.2)
        #expect(clean.rollDuration == 0 && clean.blinkPeriod == 1.2 && clean.bounceStartScale == 1.5)
        timing.rollDuration = 1e9
        timing.bounceStartScale = 1e9
        #expect(timing.sanitized().rollDuration == BadgeAnimationTiming.maximumDuration)
        #expect(timing.sanitized().bounceStartScale == BadgeAnimationTiming.maximumBounceScale)
    }
}
