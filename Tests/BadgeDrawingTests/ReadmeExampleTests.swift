import BadgeCore
import BadgeDrawing
import TestSupport
import Testing

/// The library example in README.md, kept compiling and checked.
@Suite(.drawsWithCairo) struct ReadmeExampleTests {
    @Test func readmeLibraryExampleWorks() throws {
        let iconFrame = Rect(x: 18, y: 18, width: 24, height: 24)
        let windowBounds = Rect(x: 0, y: 0, width: 110, height: 60)
        let toolbarColour = Theme.light.background
        let image = try ImageSurface(width: 220, height: 120)

        let text = try TextLayouts()
        let badge = BadgeController(accessibilityLabel: "Mail", content: .count(3),
                                    clock: SystemClock(), measurer: text)
        badge.layout(host: iconFrame, bounds: windowBounds, direction: .leftToRight, scale: 2)
        #expect(badge.accessibilityDescription == "Mail, 3 unread")
        badge.increment()
        #expect(badge.count == 4)
        badge.value = .count(120)
        #expect(badge.label == .text("99+"))
        #expect(badge.accessibilityDescription == "Mail, more than 99 unread")
        badge.setText("一个信息")
        #expect(badge.label == .text("一个信息"))
        badge.showDot(blink: true)
        #expect(badge.label == .dot && badge.isBlinking)
        #expect(badge.accessibilityDescription == "Mail, new")
        let dirty = badge.takeDamage()
        #expect(dirty != nil)
        try image.draw { context in
            BadgeRenderer(text: text).draw(badge.presentation(), style: badge.style, surface: toolbarColour, in: context)
        }
        #expect(badge.animationEndTime == .infinity)   // a blinking dot animates until changed
    }
}
