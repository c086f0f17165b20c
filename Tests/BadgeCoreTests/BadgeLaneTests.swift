@testable import BadgeCore
import Testing

/// One badge never hides the others: a toolbar gives each badge a lane up to halfway to its
/// neighbours' badges (50 logical px by default), the text is cut with "…" to fit it, and the full
/// text stays in the value, the label and the description.
@Suite struct BadgeLaneTests {
    let clock = ManualClock(now: 10)
    /// 7 px per grapheme, 13 high (as the other core tests).
    let measurer = FakeMeasurer()

    func makeToolbar(direction: LayoutDirection = .leftToRight, scale: Double = 1) -> Toolbar {
        let buttons = [("bell", "Notifications", 3), ("mail", "Mail", 12), ("chat", "Chat", 5), ("updates", "Updates", 2)]
            .map { id, label, count in
                ToolbarButton(id: id, iconName: id,
                              badge: BadgeController(accessibilityLabel: label, content: .count(count), clock: clock,
                                                     measurer: measurer))
            }
        let toolbar = Toolbar(buttons: buttons)
        toolbar.layout(size: toolbar.preferredSize, scale: scale, direction: direction)
        return toolbar
    }

    /// What each badge paints at rest (ring included), by button id.
    func painted(_ toolbar: Toolbar) -> [String: Rect] {
        var result: [String: Rect] = [:]
        for button in toolbar.buttons {
            if let area = button.badge.presentation(at: clock.now + 3600).paintedBounds(style: button.badge.style) {
                result[button.id] = area
            }
        }
        return result
    }

    @Test("ToolbarMetrics: a badge's lane is one button plus one spacing; the toolbar's lanes meet halfway between anchors")
    func laneWidth() throws {
        #expect(ToolbarMetrics().badgeLaneWidth == 50)
        let toolbar = makeToolbar()
        // Anchors at 42, 92, 142, 192 in a 210-wide window.
        let lanes = toolbar.badgeLanes().map { [$0.minX, $0.maxX] }
        // The outer ends: the window's edges, plus the 1.5-px ring the window clips there.
        #expect(lanes == [[-1.5, 67], [67, 117], [117, 167], [167, 211.5]], "\(lanes)")
    }

    @Test("15 and 60 W's on the last and on a middle button, LTR and RTL, at 1x and 2x: every badge in its lane, none over another",
          arguments: [("updates", 15), ("updates", 60), ("mail", 15), ("mail", 60)],
          [(LayoutDirection.leftToRight, 1.0), (.rightToLeft, 1.0), (.leftToRight, 2.0), (.rightToLeft, 2.0)])
    func longTextStaysInItsLane(target: (id: String, length: Int), layout: (direction: LayoutDirection, scale: Double)) throws {
        let toolbar = makeToolbar(direction: layout.direction, scale: layout.scale)
        let text = String(repeating: "W", count: target.length)
        let button = try #require(toolbar.button(id: target.id))
        button.badge.setText(text)
        let areas = painted(toolbar)
        #expect(areas.count == 4, "every badge is on show: \(areas.keys.sorted())")
        // The lane: 25 either side of the anchor (the icon's trailing corner), inside the window.
        let anchor = layout.direction == .leftToRight ? button.iconFrame.maxX : button.iconFrame.minX
        let laneMin = max(anchor - 25, -1.5), laneMax = min(anchor + 25, toolbar.bounds.maxX + 1.5)
        let area = try #require(areas[target.id])
        #expect(area.minX >= laneMin - 1e-9 && area.maxX <= laneMax + 1e-9, "\(area) in lane \(laneMin)...\(laneMax)")
        // The body's room: the lane less the 1.5-px ring either side, snapped inward to device pixels
        // (46 for a middle button at 1x; 42 for the last, whose lane ends at the window's edge).
        let s = layout.scale
        let room = ((laneMax - 1.5) * s).rounded(.down) / s - ((laneMin + 1.5) * s).rounded(.up) / s
        let frame = try #require(button.badge.presentation(at: clock.now + 3600).frame)
        #expect(frame.width <= room + 1e-9 && frame.width >= room - 7, "the body is \(frame.width) wide, room \(room)")
        #expect(frame.minX >= 0 && frame.maxX <= toolbar.bounds.maxX, "inside the window: \(frame)")
        #expect(area.minX >= -1.5 && area.maxX <= toolbar.bounds.maxX + 1.5, "the ring at most clipped: \(area)")
        #expect(isOnGrid(frame.minX, scale: layout.scale) && isOnGrid(frame.width, scale: layout.scale))
        for (id, other) in areas where id != target.id {
            #expect(area.intersection(other) == nil, "\(target.id)'s badge \(area) covers \(id)'s \(other)")
            let icon = try #require(toolbar.button(id: id)).iconFrame
            #expect(area.intersection(icon) == nil, "\(target.id)'s badge \(area) covers \(id)'s icon \(icon)")
        }
        // Cut with "…" to the most graphemes (7 px each) that fit the room less 2 × 5 of padding:
        // "WWWW…" on a middle button, "WWW…" on the last; the full text kept.
        let clusters = Int(((room - 10) / 7).rounded(.down))
        let expected = String(repeating: "W", count: clusters - 1) + "…"
        #expect(clusters >= 4 && (target.id == "mail") == (clusters == 5), "\(clusters) graphemes")
        #expect(button.badge.displayedLabel == .text(expected))
        #expect(button.badge.presentation(at: clock.now + 3600).label == .text(expected))
        #expect(button.badge.label == .text(text))
        #expect(button.badge.value == .text(text))
        #expect(button.badge.accessibilityDescription.contains(text), "\(button.badge.accessibilityDescription)")
    }

    @Test("A short text, a count and a dot are drawn as they are, and at their usual places")
    func shortContentIsUntouched() throws {
        let toolbar = makeToolbar()
        let mail = try #require(toolbar.button(id: "mail"))
        let before = mail.badge.presentation(at: clock.now + 3600).frame
        #expect(mail.badge.displayedLabel == .text("12"))
        mail.badge.setText("New")
        #expect(mail.badge.displayedLabel == .text("New"))
        #expect(mail.badge.presentation(at: clock.now + 3600).frame?.width == 31)
        mail.badge.value = .count(12)
        #expect(mail.badge.presentation(at: clock.now + 3600).frame == before)
        mail.badge.value = .count(5000)
        #expect(mail.badge.displayedLabel == .text("99+"))
    }

    @Test("A wider lane after a relayout shows more of the text; the text is cut again at once")
    func relayoutRefits() throws {
        let toolbar = makeToolbar()
        let chat = try #require(toolbar.button(id: "chat"))
        chat.badge.setText(String(repeating: "W", count: 15))
        #expect(chat.badge.displayedLabel == .text("WWWW…"))
        toolbar.metrics.buttonSize = 72
        toolbar.layout(size: toolbar.preferredSize, scale: 1, direction: .leftToRight)
        // Lane 78, body 75, text 65: 9 graphemes.
        #expect(chat.badge.displayedLabel == .text("WWWWWWWW…"))
        #expect(chat.badge.presentation(at: clock.now + 3600).label == .text("WWWWWWWW…"))
        let areas = painted(toolbar)
        for (id, other) in areas where id != "chat" { #expect(areas["chat"]?.intersection(other) == nil, "over \(id)") }
    }

    @Test("BadgeLayout.frame: the lane caps the width and moves the badge inside it; the window's bounds win")
    func layoutLane() throws {
        let style = BadgeStyle()
        let host = Rect(x: 18, y: 18, width: 24, height: 24)
        let lane = Rect(x: 6.5, y: 0, width: 47, height: 60)
        let wide = try #require(BadgeLayout.frame(for: .text("WWWWWWWWWWWWWWW"), textSize: Size(width: 105, height: 13),
                                                  host: host, style: style, direction: .leftToRight, scale: 1,
                                                  bounds: Rect(x: 0, y: 0, width: 400, height: 60), lane: lane))
        // The lane's edges snap inward to device pixels: 7...53.
        #expect(wide.width == 46 && wide.minX == 7 && wide.maxX == 53, "\(wide)")
        let free = try #require(BadgeLayout.frame(for: .text("WWWWWWWWWWWWWWW"), textSize: Size(width: 105, height: 13),
                                                  host: host, style: style, direction: .leftToRight, scale: 1,
                                                  bounds: Rect(x: 0, y: 0, width: 400, height: 60)))
        #expect(free.width == 115, "no lane: as wide as the text")
        // A lane narrower than a circle leaves the circle.
        let circle = try #require(BadgeLayout.frame(for: .text("WW"), textSize: Size(width: 14, height: 13), host: host,
                                                    style: style, direction: .leftToRight, scale: 1,
                                                    bounds: Rect(x: 0, y: 0, width: 400, height: 60),
                                                    lane: Rect(x: 30, y: 0, width: 10, height: 60)))
        #expect(circle.width == circle.height)
    }
}
