import BadgeCore
import BadgeDrawing
import TestSupport
import Testing

/// Offscreen renderings of the toolbar compared with golden PNGs, plus semantic pixel checks
/// (badge colour at the badge centre, nothing red where a badge is hidden).
@Suite(.drawsWithCairo) struct ToolbarRenderingTests {
    let clock = ManualClock(now: 100)
    let text: TextLayouts
    let icons: IconLibrary

    init() throws {
        text = try TextLayouts()
        icons = try IconLibrary()
    }

    func makeToolbar(bell: BadgeContent = .count(3), mail: BadgeContent = .count(12), scale: Double = 1,
                     direction: LayoutDirection = .leftToRight) -> Toolbar {
        let bellBadge = BadgeController(accessibilityLabel: "Notifications", content: bell, clock: clock, measurer: text)
        let mailBadge = BadgeController(accessibilityLabel: "Mail", content: mail, clock: clock, measurer: text)
        let toolbar = Toolbar(buttons: [
            ToolbarButton(id: "bell", iconName: "bell", badge: bellBadge),
            ToolbarButton(id: "mail", iconName: "mail", badge: mailBadge),
        ])
        toolbar.layout(size: toolbar.preferredSize, scale: scale, direction: direction)
        return toolbar
    }

    func render(_ toolbar: Toolbar, theme: Theme = .light) throws -> ImageSurface {
        try ToolbarRenderer(theme: theme, text: text, icons: icons).renderImage(toolbar, at: clock.now)
    }

    @Test(arguments: [1.0, 2.0])
    func defaultToolbarMatchesGolden(scale: Double) throws {
        let image = try render(makeToolbar(scale: scale))
        try GoldenImage.assertMatches(image, named: "toolbar-light-\(Int(scale))x")
    }

    /// Every content kind (count, text, dot) at every supported scale, in both themes and directions.
    @Test(arguments: [1.0, 1.25, 1.5, 2.0], [LayoutDirection.leftToRight, .rightToLeft])
    func kindsScalesThemesAndDirectionsMatchGoldens(scale: Double, direction: LayoutDirection) throws {
        for theme in [Theme.light, .dark] {
            let toolbar = makeToolbar(bell: .count(7), mail: .text("一个信息"), scale: scale, direction: direction)
            let dot = BadgeController(accessibilityLabel: "Updates", content: .dot, clock: clock, measurer: text)
            let full = Toolbar(buttons: toolbar.buttons.map { ToolbarButton(id: $0.id, iconName: $0.iconName, badge: $0.badge) }
                                   + [ToolbarButton(id: "updates", iconName: "updates", badge: dot)])
            full.layout(size: full.preferredSize, scale: scale, direction: direction)
            let name = "matrix-\(theme.name)-\(direction == .leftToRight ? "ltr" : "rtl")-\(Int(scale * 100))"
            try GoldenImage.assertMatches(try render(full, theme: theme), named: name)
        }
    }

    @Test func darkThemeMatchesGolden() throws {
        try GoldenImage.assertMatches(try render(makeToolbar(), theme: .dark), named: "toolbar-dark-1x")
    }

    @Test func overflowAndHiddenMatchGolden() throws {
        let image = try render(makeToolbar(bell: .count(0), mail: .count(120)))
        try GoldenImage.assertMatches(image, named: "toolbar-hidden-overflow-1x")
    }

    @Test func hoverAndPressedStatesMatchGolden() throws {
        let toolbar = makeToolbar()
        let bell = try #require(toolbar.button(id: "bell"))
        let mail = try #require(toolbar.button(id: "mail"))
        _ = toolbar.pointerPressed(.primary, at: bell.frame.center)
        toolbar.pointerMoved(to: bell.frame.center)
        #expect(bell.isPressed)
        let image = try render(toolbar)
        try GoldenImage.assertMatches(image, named: "toolbar-pressed-bell-1x")
        _ = toolbar.pointerReleased(.primary, at: mail.frame.center)
        toolbar.pointerMoved(to: mail.frame.center)
        #expect(mail.isHovered && !bell.isPressed)
    }

    @Test(arguments: [1.0, 1.25, 1.5, 2.0])
    func badgeCentreIsBadgeRedAndTextIsWhite(scale: Double) throws {
        let toolbar = makeToolbar(scale: scale)
        let image = try render(toolbar)
        #expect(image.width == Int((toolbar.bounds.width * scale).rounded()))
        for button in toolbar.buttons {
            let frame = try #require(button.badge.presentation(at: clock.now).frame)
            // Just inside the left edge of the badge, vertically centred: body colour, not text.
            let px = Int(((frame.minX + 2) * scale).rounded()), py = Int((frame.midY * scale).rounded())
            let pixel = image.pixel(x: px, y: py)
            #expect(pixel.red > 200 && pixel.green < 90 && pixel.blue < 90, "badge body at \(px),\(py) is \(pixel)")
            // Somewhere in the badge there is white text.
            var whitePixels = 0
            for y in Int(frame.minY * scale)..<Int(frame.maxY * scale) {
                for x in Int(frame.minX * scale)..<Int(frame.maxX * scale) {
                    let p = image.pixel(x: x, y: y)
                    if p.red > 235 && p.green > 235 && p.blue > 235 { whitePixels += 1 }
                }
            }
            #expect(whitePixels >= Int(6 * scale * scale), "\(button.id): only \(whitePixels) white text pixels")
        }
    }

    @Test func hiddenBadgeLeavesNoRedPixels() throws {
        let toolbar = makeToolbar(bell: .count(0))
        let image = try render(toolbar)
        var red = 0
        for y in 0..<image.height {
            for x in 0..<(image.width / 2) {
                let p = image.pixel(x: x, y: y)
                if p.red > 180 && p.green < 100 && p.blue < 100 { red += 1 }
            }
        }
        #expect(red == 0)
    }

    @Test func badgeStaysInsideTheImage() throws {
        let toolbar = makeToolbar(scale: 2)
        for button in toolbar.buttons {
            let frame = try #require(button.badge.presentation(at: clock.now).frame)
            #expect(frame.minX >= 0 && frame.minY >= 0 && frame.maxX <= toolbar.bounds.maxX && frame.maxY <= toolbar.bounds.maxY)
        }
    }
}
