import BadgeCore
import Testing

/// Counts people can trust (issue 21): Do Not Disturb's display, and where a value comes from and
/// how current it is, in the accessible description.
@Suite struct TrustTests {
    @Test func doNotDisturbShowsADotHidesOrCounts() {
        var format = BadgeFormat()
        #expect(format.label(for: .count(12)) == .text("12"))
        format.doNotDisturb = .dot
        #expect(format.label(for: .count(12)) == .dot && format.label(for: .text("New")) == .dot)
        #expect(format.label(for: .count(0)) == .hidden && format.label(for: .none) == .hidden, "nothing waits: no dot")
        format.doNotDisturb = .hidden
        #expect(format.label(for: .count(12)) == .hidden && format.label(for: .dot) == .hidden)
        format.doNotDisturb = .count
        #expect(format.label(for: .count(120)) == .text("99+"))
    }

    @Test func doNotDisturbAnimatesLikeAFormatChangeAndKeepsTheCount() {
        let h = Harness(content: .count(12))
        var quiet = h.controller.format
        quiet.doNotDisturb = .dot
        h.controller.format = quiet
        #expect(h.controller.label == .dot && h.controller.value == .count(12) && h.controller.count == 12)
        quiet.doNotDisturb = nil
        h.controller.format = quiet
        #expect(h.controller.label == .text("12"))
    }

    @Test func descriptionSaysWhereAndHowCurrent() {
        let h = Harness(content: .count(12))
        #expect(h.controller.accessibilityDescription == "Mail, 12 unread")
        h.controller.sourceDescription = "~/Maildir/INBOX"
        #expect(h.controller.accessibilityDescription == "Mail, 12 unread, from ~/Maildir/INBOX")
        h.controller.confidence = .stale
        #expect(h.controller.accessibilityDescription == "Mail, 12 unread, from ~/Maildir/INBOX, not up to date")
        h.controller.confidence = .lastSession
        #expect(h.controller.accessibilityDescription == "Mail, 12 unread, from ~/Maildir/INBOX, last session")
        h.controller.value = .none
        h.controller.confidence = .current
        #expect(h.controller.accessibilityDescription == "Mail, from ~/Maildir/INBOX")
    }

    @Test func confidenceChangesRepaint() {
        let h = Harness(content: .count(3))
        _ = h.controller.takeDamage()
        #expect(h.controller.takeDamage() == nil)
        h.controller.confidence = .stale
        #expect(h.controller.takeDamage() != nil, "the stale style is drawn")
        h.controller.confidence = .stale
        #expect(h.controller.takeDamage() == nil, "no change, no damage")
    }

    @Test("A stale badge with nothing to show draws the unknown mark: never mistaken for 0; it goes with a value")
    func staleWithNothingShowsTheUnknownMark() {
        let h = Harness(content: .none)
        h.controller.reducesMotion = true
        #expect(h.controller.presentation().frame == nil && !h.controller.showsUnknownMark)
        h.controller.confidence = .stale
        #expect(h.controller.showsUnknownMark)
        #expect(h.controller.presentation().label == .text(BadgeController.unknownMark) && h.controller.presentation().frame != nil)
        #expect(h.controller.label == .hidden && h.controller.value == .none, "the value is still nothing")
        h.controller.value = .count(0)
        #expect(h.controller.presentation().label == .text("?"), "a 0 that cannot be trusted is not a 0")
        h.controller.value = .count(4)
        #expect(h.controller.presentation().label == .text("4") && !h.controller.showsUnknownMark)
        h.controller.value = .none
        h.controller.confidence = .current
        #expect(h.controller.presentation().frame == nil, "a current nothing is nothing")
        h.controller.confidence = .lastSession
        #expect(h.controller.presentation().frame == nil)
    }

    @Test("The revision grows with every change of what the badge says, and only then")
    func revisionFollowsWhatTheBadgeSays() {
        let h = Harness(content: .count(1))
        var seen = h.controller.revision
        func changed() -> Bool { defer { seen = h.controller.revision }; return h.controller.revision != seen }
        _ = h.controller.takeDamage()
        _ = h.controller.presentation()
        #expect(!changed(), "drawing is not a change")
        h.controller.value = .count(2)
        #expect(changed())
        h.controller.confidence = .stale
        #expect(changed(), "a confidence set straight on the badge (a source's) is a change")
        h.controller.confidence = .stale
        #expect(!changed())
        h.controller.sourceDescription = "~/Maildir"
        #expect(changed())
        h.controller.sourceDescription = "~/Maildir"
        #expect(!changed())
        h.controller.accessibilityLabel = "Inbox"
        #expect(changed())
        h.controller.showDot(blink: true)
        #expect(changed())
    }

    @Test func staleColourIsSanitized() {
        var style = BadgeStyle()
        style.staleColor = Color(red: .nan, green: 2, blue: -1)
        let clean = style.sanitized().staleColor
        #expect(clean.red == Color.staleGrey.red && clean.green == 1 && clean.blue == 0)
    }
}
