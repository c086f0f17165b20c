import BadgeCore
import Testing

fileprivate final class SevenPixelMeasurer: TextMeasuring {
    func size(of text: String, font: BadgeFont) -> Size { Size(width: 7 * Double(text.count), height: 13) }
}

@Suite struct ToolbarTests {
    let clock = ManualClock(now: 10)
    fileprivate let measurer = SevenPixelMeasurer()

    func makeToolbar(direction: LayoutDirection = .leftToRight, scale: Double = 1) -> Toolbar {
        let buttons = [("bell", "Notifications", 3), ("mail", "Mail", 12)].map { id, label, count in
            ToolbarButton(id: id, iconName: id,
                          badge: BadgeController(accessibilityLabel: label, content: .count(count), clock: clock, measurer: measurer))
        }
        let toolbar = Toolbar(buttons: buttons)
        toolbar.layout(size: toolbar.preferredSize, scale: scale, direction: direction)
        return toolbar
    }

    @Test func layoutPlacesButtonsInReadingOrder() throws {
        let toolbar = makeToolbar()
        #expect(toolbar.preferredSize == Size(width: 8 + 44 + 6 + 44 + 8, height: 60))
        let bell = try #require(toolbar.button(id: "bell")), mail = try #require(toolbar.button(id: "mail"))
        #expect(bell.frame == Rect(x: 8, y: 8, width: 44, height: 44))
        #expect(mail.frame == Rect(x: 58, y: 8, width: 44, height: 44))
        #expect(bell.iconFrame == Rect(x: 18, y: 18, width: 24, height: 24))
    }

    @Test func aLargerWindowKeepsTheButtonsAtTheTopAndLeadingEdges() throws {
        let toolbar = makeToolbar()
        toolbar.layout(size: Size(width: 400, height: 300), scale: 1, direction: .leftToRight)
        #expect(try #require(toolbar.button(id: "bell")).frame == Rect(x: 8, y: 8, width: 44, height: 44))
        toolbar.layout(size: Size(width: 400, height: 300), scale: 1, direction: .rightToLeft)
        #expect(try #require(toolbar.button(id: "bell")).frame == Rect(x: 400 - 8 - 44, y: 8, width: 44, height: 44))
        // A shorter window than the toolbar centres the row rather than cutting its top off.
        toolbar.layout(size: Size(width: 400, height: 40), scale: 1, direction: .leftToRight)
        #expect(try #require(toolbar.button(id: "bell")).frame.minY == -2)
    }

    @Test func theFirstButtonHoldsAnInvisibleFocusUntilTheKeyboardIsUsed() throws {
        let toolbar = makeToolbar()
        toolbar.focusFirstButton()
        #expect(toolbar.focusedButton?.id == "bell" && !toolbar.focusIsVisible)
        _ = toolbar.takeDamage()
        toolbar.advanceFocus(backward: false)
        #expect(toolbar.focusedButton?.id == "bell" && toolbar.focusIsVisible, "the first Tab shows the ring in place")
        #expect(toolbar.takeDamage() != nil, "showing the ring repaints the button")
        toolbar.advanceFocus(backward: false)
        #expect(toolbar.focusedButton?.id == "mail")
        toolbar.setFocusVisible(false)
        #expect(toolbar.focusedButton?.id == "mail" && !toolbar.focusIsVisible)
        toolbar.advanceFocus(backward: true)
        #expect(toolbar.focusedButton?.id == "bell" && toolbar.focusIsVisible, "Shift+Tab moves even from a hidden ring")
    }

    @Test func withoutWrappingTheFocusLeavesPastEitherEndAndComesBackAtTheEnd() throws {
        let toolbar = makeToolbar()
        toolbar.enterFocus(backward: false)
        #expect(toolbar.focusedButton?.id == "bell" && toolbar.focusIsVisible, "Tab brings the focus to the first button, ringed")
        #expect(toolbar.advanceFocus(backward: false, wrapping: false))
        #expect(toolbar.focusedButton?.id == "mail")
        _ = toolbar.takeDamage()
        #expect(!toolbar.advanceFocus(backward: false, wrapping: false), "Tab past the last button leaves")
        #expect(toolbar.focusedButton == nil && !toolbar.focusIsVisible)
        #expect(toolbar.takeDamage() != nil, "the ring that goes is repainted")
        toolbar.enterFocus(backward: true)
        #expect(toolbar.focusedButton?.id == "mail" && toolbar.focusIsVisible, "Shift+Tab brings it to the last button")
        #expect(toolbar.advanceFocus(backward: true, wrapping: false))
        #expect(!toolbar.advanceFocus(backward: true, wrapping: false), "Shift+Tab before the first button leaves")
        #expect(toolbar.focusedButton == nil)
        // With wrapping (the default) the focus goes round instead.
        toolbar.enterFocus(backward: true)
        #expect(toolbar.advanceFocus(backward: false))
        #expect(toolbar.focusedButton?.id == "bell")
        toolbar.resignFocus()
        #expect(toolbar.focusedButton == nil && !toolbar.focusIsVisible)
    }

    @Test func rightToLeftMirrorsTheRow() throws {
        let toolbar = makeToolbar(direction: .rightToLeft)
        #expect(try #require(toolbar.button(id: "bell")).frame.minX == 58)
        #expect(try #require(toolbar.button(id: "mail")).frame.minX == 8)
    }

    @Test func hitTestingFindsTheButtonUnderThePoint() {
        let toolbar = makeToolbar()
        #expect(toolbar.button(at: Point(x: 30, y: 30))?.id == "bell")
        #expect(toolbar.button(at: Point(x: 80, y: 30))?.id == "mail")
        #expect(toolbar.button(at: Point(x: 55, y: 30)) == nil)    // the gap between buttons
        #expect(toolbar.button(at: Point(x: 8, y: 8))?.id == "bell")  // top-left edge is inside
        #expect(toolbar.button(at: Point(x: 52, y: 30)) == nil)     // right edge is outside (half-open)
        #expect(toolbar.button(at: Point(x: -1, y: -1)) == nil)
    }

    @Test func clickCountsOnReleaseInsideThePressedButton() throws {
        let toolbar = makeToolbar()
        let inBell = Point(x: 30, y: 30), inMail = Point(x: 80, y: 30)
        #expect(toolbar.pointerPressed(.primary, at: inBell) == nil)
        #expect(try #require(toolbar.button(id: "bell")).isPressed)
        let result = try #require(toolbar.pointerReleased(.primary, at: inBell))
        #expect(result.0.id == "bell" && result.1 == .increment && result.2 == .click)

        _ = toolbar.pointerPressed(.primary, at: inBell)
        toolbar.pointerMoved(to: inMail)
        #expect(try !#require(toolbar.button(id: "bell")).isPressed)   // dragged off: not pressed-looking
        #expect(toolbar.pointerReleased(.primary, at: inMail) == nil)  // released elsewhere: no click
    }

    @Test func buttonsMapToActions() throws {
        let toolbar = makeToolbar()
        let p = Point(x: 30, y: 30)
        // The secondary button asks for the shell's peek: it never counts, nor looks pressed.
        #expect(toolbar.pointerPressed(.secondary, at: p) == nil)
        #expect(toolbar.pointerReleased(.secondary, at: p) == nil)
        #expect(try !#require(toolbar.button(at: p)).isPressed)
        _ = toolbar.pointerPressed(.middle, at: p)
        #expect(toolbar.pointerReleased(.middle, at: p)?.1 == .clear)
        #expect(toolbar.pointerPressed(.wheelUp, at: p)?.1 == .increment)
        #expect(toolbar.pointerPressed(.wheelDown, at: p)?.2 == .wheel)
        #expect(toolbar.pointerPressed(.wheelUp, at: Point(x: 200, y: 5)) == nil)
        // A release of another button than the one pressed does not click.
        _ = toolbar.pointerPressed(.primary, at: p)
        #expect(toolbar.pointerReleased(.secondary, at: p) == nil)
        #expect(toolbar.pointerReleased(.primary, at: p)?.1 == .increment)
    }

    @Test func hoverFollowsThePointerAndLeaving() throws {
        let toolbar = makeToolbar()
        _ = toolbar.takeDamage()
        toolbar.pointerMoved(to: Point(x: 30, y: 30))
        let bell = try #require(toolbar.button(id: "bell"))
        #expect(bell.isHovered)
        #expect(toolbar.takeDamage() == bell.frame)
        toolbar.pointerMoved(to: nil)
        #expect(!bell.isHovered)
        #expect(toolbar.takeDamage() != nil)
        #expect(toolbar.takeDamage() == nil)
    }

    @Test func titleShowsTheTotalCount() throws {
        let toolbar = makeToolbar()
        #expect(toolbar.title(base: "Badges") == "(15) Badges")
        try #require(toolbar.button(id: "bell")).badge.clear()
        try #require(toolbar.button(id: "mail")).badge.clear()
        #expect(toolbar.title(base: "Badges") == "Badges")
        try #require(toolbar.button(id: "bell")).badge.value = .count(Int.max)
        try #require(toolbar.button(id: "mail")).badge.value = .count(5)
        #expect(toolbar.totalCount == Int.max)   // saturates, never traps
    }

    @Test func focusCyclesBothWays() {
        let toolbar = makeToolbar()
        toolbar.moveFocus()
        #expect(toolbar.focusedButton?.id == "bell")
        toolbar.moveFocus()
        #expect(toolbar.focusedButton?.id == "mail")
        toolbar.moveFocus()
        #expect(toolbar.focusedButton?.id == "bell")
        toolbar.moveFocus(backward: true)
        #expect(toolbar.focusedButton?.id == "mail")
    }

    @Test(arguments: [Size(width: 1, height: 1), Size(width: 0, height: 0), Size(width: -5, height: .nan),
                      Size(width: .infinity, height: 20)])
    func degenerateSizesDoNotTrap(size: Size) {
        let toolbar = makeToolbar()
        toolbar.layout(size: size, scale: .nan, direction: .leftToRight)
        #expect(toolbar.scale == 1)
        _ = toolbar.takeDamage()
        _ = toolbar.button(at: Point(x: 0, y: 0))
    }

    @Test func badgeAnchorsToTheIconsTopTrailingCorner() throws {
        let toolbar = makeToolbar()
        let bell = try #require(toolbar.button(id: "bell"))
        let frame = try #require(bell.badge.presentation(at: clock.now + 10).frame)
        #expect(abs(frame.midX - bell.iconFrame.maxX) <= 0.5)
        #expect(abs(frame.midY - bell.iconFrame.minY) <= 0.5)
    }
}
