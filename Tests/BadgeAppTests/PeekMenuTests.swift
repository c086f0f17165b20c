import BadgeCore
@testable import BadgeApp
import BadgeSources
import Testing

/// What the peek lists, where it goes, how its highlight moves, and a source's items through the
/// binding rules: pure, without a window.
@Suite struct PeekMenuTests {
    final class FixedWidth: TextMeasuring {
        func size(of text: String, font: BadgeFont) -> Size { Size(width: Double(text.count) * 7, height: 12) }
    }

    static func button(_ id: String = "mail", content: BadgeContent = .count(2)) -> ToolbarButton {
        ToolbarButton(id: id, iconName: id, badge: BadgeController(accessibilityLabel: "Mail", content: content, clock: ManualClock(),
                                                                   measurer: FixedWidth()))
    }

    @Test("Items: newest first, at most 12, then \"and N more\" counting the unlisted too")
    func items() {
        let button = Self.button()
        var list = BadgeItemList()
        for index in 0..<20 { list.insert(BadgeItem(key: "\(index)", title: "item \(index)", time: 1000 + Double(index), action: .producer)) }
        list.setUnlisted(5)
        button.badge.setItems(list)
        let menu = PeekMenu.make(for: button, explanation: "", ownsCount: false, now: 1000 + 19 + 180)
        #expect(menu.rows.count == 13)
        #expect(menu.rows.first?.title == "item 19" && menu.rows.first?.trailing == "3 min ago")
        #expect(menu.rows.last?.title == "and 13 more" && menu.rows.last?.isActionable == false)
        #expect(menu.entry(at: 0) == .item(button: "mail", key: "19") && menu.entry(at: 12) == .note && menu.entry(at: 99) == .note)
    }

    @Test("Only unlisted: \"4 earlier\"; a count set by hand: its provenance, then +1, −1, Clear; a source's: Read again")
    func withoutItems() {
        let button = Self.button()
        button.badge.setItems(BadgeItemList([], unlisted: 4))
        #expect(PeekMenu.make(for: button, explanation: "", ownsCount: true, now: 0).rows.map(\.title) == ["4 earlier"])
        let hand = Self.button(content: .count(12))
        let menu = PeekMenu.make(for: hand, explanation: "set by hand (no source)", ownsCount: false, now: 0)
        #expect(menu.rows.map(\.title) == ["Mail, 12 unread", "+1", "−1", "Clear"])
        #expect(menu.rows[0].detail == "set by hand (no source)" && !menu.rows[0].isActionable)
        #expect(menu.entries == [.note, .edit(button: "mail", .increment), .edit(button: "mail", .decrement), .edit(button: "mail", .clear)])
        let sourced = PeekMenu.make(for: hand, explanation: "from ~/Maildir, 2 s ago", ownsCount: true, now: 0)
        #expect(sourced.entries == [.note, .refresh(button: "mail")])
    }

    @Test("The tray's peek: each button shown with its value, then its items, 12 items at most in all")
    func total() {
        let bell = Self.button("bell", content: .count(3))
        let mail = Self.button("mail")
        var list = BadgeItemList()
        for index in 0..<15 { list.insert(BadgeItem(key: "\(index)", title: "m\(index)", time: Double(index), action: .producer)) }
        mail.badge.setItems(list)
        let hidden = Self.button("chat", content: .none)
        let menu = PeekMenu.total(of: [bell, mail, hidden], now: 100)
        #expect(menu.buttonID == "tray")
        #expect(menu.rows.map(\.title).prefix(3) == ["Mail, 3 unread", "Mail, 15 unread: m14, m13, …", "m14"])
        #expect(menu.rows.count == 2 + 12 + 1 && menu.rows.last?.title == "and 3 more")
        #expect(menu.entry(at: 2) == .item(button: "mail", key: "14"))
        #expect(PeekMenu.total(of: [hidden], now: 0).rows.map(\.title) == ["Nothing here"])
    }

    @Test("The highlight skips notes and wraps; hovering a note clears it")
    func highlight() {
        let rows = [PeekRow(title: "note", isActionable: false), PeekRow(title: "a"), PeekRow(title: "b"),
                    PeekRow(title: "more", isActionable: false)]
        var keyboard = PeekHighlight(rows: rows, first: true)
        #expect(keyboard.index == 1)
        keyboard.move(forward: true)
        #expect(keyboard.index == 2)
        keyboard.move(forward: true)
        #expect(keyboard.index == 1, "Down wraps")
        keyboard.move(forward: false)
        #expect(keyboard.index == 2, "Up wraps")
        keyboard.moveToEnd(last: false)
        #expect(keyboard.index == 1)
        #expect(keyboard.hover(0) && keyboard.index == nil)
        var pointer = PeekHighlight(rows: rows, first: false)
        #expect(pointer.index == nil)
        pointer.move(forward: false)
        #expect(pointer.index == 2)
    }

    static let area = PixelRect(x: 0, y: 0, width: 640, height: 480)

    @Test("Placement: below the button, above at the bottom edge, slid in at the right, cut when neither fits, mirrored in RTL")
    func placement() {
        let button = PixelRect(x: 100, y: 10, width: 44, height: 44)
        #expect(PeekPlacement.frame(size: (200, 150), anchor: button, workArea: Self.area, direction: .leftToRight)
                == PixelRect(x: 100, y: 56, width: 200, height: 150))
        let low = PixelRect(x: 100, y: 420, width: 44, height: 44)
        #expect(PeekPlacement.frame(size: (200, 150), anchor: low, workArea: Self.area, direction: .leftToRight)
                == PixelRect(x: 100, y: 268, width: 200, height: 150))
        let right = PixelRect(x: 600, y: 10, width: 40, height: 44)
        #expect(PeekPlacement.frame(size: (200, 150), anchor: right, workArea: Self.area, direction: .leftToRight).x == 440)
        let tall = PeekPlacement.frame(size: (200, 900), anchor: PixelRect(x: 0, y: 100, width: 44, height: 44), workArea: Self.area,
                                       direction: .leftToRight)
        #expect(tall.y == 146 && tall.maxY == 480, "the larger side, cut to it: \(tall)")
        let rtl = PixelRect(x: 400, y: 10, width: 44, height: 44)
        #expect(PeekPlacement.frame(size: (200, 150), anchor: rtl, workArea: Self.area, direction: .rightToLeft).maxX == rtl.maxX)
        #expect(PeekPlacement.frame(size: (200, 150), anchor: button, workArea: Self.area, direction: .rightToLeft).x == 0,
                "slid in from the left edge")
        // A second monitor to the right: the popup stays on it.
        let second = PixelRect(x: 640, y: 0, width: 400, height: 300)
        let edge = PeekPlacement.frame(size: (200, 150), anchor: PixelRect(x: 1000, y: 250, width: 40, height: 44), workArea: second,
                                       direction: .leftToRight)
        #expect(edge.maxX == 1040 && edge.maxY <= 250, "\(edge)")
    }

    @Test("A source's items reach the badge with its reading; the same items again change nothing")
    func sourceItems() throws {
        let items = BadgeItemList([BadgeItem(key: "1", title: "Alice", action: .notification(id: 1, hasDefaultAction: false))], unlisted: 2)
        let reading = SourceReading(content: .count(3), description: "notifications", updated: 1, items: items)
        let first = try #require(SourceBindingPolicy.outcome(of: reading, value: .none, blinking: false, confidence: .current,
                                                            applied: false, optional: false))
        #expect(first.items == items && first.value == .count(3))
        let again = try #require(SourceBindingPolicy.outcome(of: reading, value: .count(3), blinking: false, confidence: .current,
                                                            applied: true, optional: false, items: items))
        #expect(again.items == nil && again.value == nil)
        // The last item closed: no items, a count of 0 shows nothing, and the old items go.
        let empty = SourceReading(content: .count(0), description: "notifications", updated: 2, items: BadgeItemList())
        let cleared = try #require(SourceBindingPolicy.outcome(of: empty, value: .count(3), blinking: false, confidence: .current,
                                                              applied: true, optional: false, items: items))
        #expect(cleared.value == BadgeContent.none && cleared.items == nil)
    }
}
