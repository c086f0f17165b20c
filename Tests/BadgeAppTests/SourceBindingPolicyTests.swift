import BadgeCore
@testable import BadgeApp
import BadgeSources
import Testing

/// The source bindings' confidence and override rules, pinned without a window.
@Suite struct SourceBindingPolicyTests {
    static func reading(_ content: BadgeContent?, stale: Bool = false, error: String? = nil) -> SourceReading {
        SourceReading(content: content, description: "~/Maildir", updated: content == nil ? nil : 1, error: error, isStale: stale)
    }

    @Test("A value sets the badge and makes it current; 0 shows nothing; the same value changes nothing but trust")
    func values() throws {
        let first = try #require(SourceBindingPolicy.outcome(of: Self.reading(.count(3)), value: .none, blinking: false,
                                                            confidence: .current, applied: false, optional: false))
        #expect(first == .init(value: .count(3), confidence: .current, description: "~/Maildir", applied: true))
        let zero = try #require(SourceBindingPolicy.outcome(of: Self.reading(.count(0)), value: .count(3), blinking: false,
                                                           confidence: .current, applied: true, optional: false))
        #expect(zero.value == BadgeContent.none)
        let confirmed = try #require(SourceBindingPolicy.outcome(of: Self.reading(.count(7)), value: .count(7), blinking: false,
                                                                confidence: .lastSession, applied: false, optional: false))
        #expect(confirmed.value == nil && confirmed.confidence == .current, "a restored 7 confirmed: current, no new value")
        let blinking = try #require(SourceBindingPolicy.outcome(of: Self.reading(.dot), value: .dot, blinking: true,
                                                               confidence: .current, applied: true, optional: false))
        #expect(blinking.value == .dot, "a blinking dot becomes the source's steady dot")
    }

    @Test("Nothing known yet keeps a restored value 'last session'; an optional binding is left alone until it has a value")
    func nothingYet() throws {
        let waiting = try #require(SourceBindingPolicy.outcome(of: Self.reading(nil), value: .count(7), blinking: false,
                                                              confidence: .lastSession, applied: false, optional: false))
        #expect(waiting.value == nil && waiting.confidence == .lastSession && !waiting.applied)
        #expect(SourceBindingPolicy.outcome(of: Self.reading(nil), value: .count(3), blinking: false, confidence: .current,
                                            applied: false, optional: true) == nil, "the demo's 3 stays while no daemon answers")
        let optionalValue = try #require(SourceBindingPolicy.outcome(of: Self.reading(.count(1)), value: .count(3), blinking: false,
                                                                    confidence: .current, applied: false, optional: true))
        #expect(optionalValue.value == .count(1) && optionalValue.applied)
    }

    @Test("Before its source first answers, a bound badge is 'pending', never 'current'; a reading of nothing is current")
    func pendingUntilRead() throws {
        let first = try #require(SourceBindingPolicy.outcome(of: Self.reading(nil), value: .none, blinking: false,
                                                            confidence: .pending, applied: false, optional: false))
        #expect(first.confidence == .pending && first.value == nil, "a server that never greets, a command still running")
        let fromCurrent = try #require(SourceBindingPolicy.outcome(of: Self.reading(nil), value: .none, blinking: false,
                                                                  confidence: .current, applied: false, optional: false))
        #expect(fromCurrent.confidence == .pending)
        var readNothing = Self.reading(nil)
        readNothing.updated = 5
        #expect(SourceBindingPolicy.outcome(of: readNothing, value: .none, blinking: false, confidence: .pending,
                                            applied: false, optional: false)?.confidence == .current, "an answer of nothing is an answer")
        #expect(SourceBindingPolicy.endingOverride(with: Self.reading(nil), value: .count(4), blinking: false).confidence == .pending,
                "an override ended before the source answered: pending again")
        let answered = try #require(SourceBindingPolicy.outcome(of: Self.reading(.count(2)), value: .none, blinking: false,
                                                               confidence: .pending, applied: false, optional: false))
        #expect(answered.confidence == .current && answered.value == .count(2))
    }

    @Test("An optional binding goes back to the button's own value when its source is absent again (a window manager's daemon quit)")
    func absentAgain() {
        var gone = Self.reading(.count(2), stale: true, error: "no notification daemon on the session bus")
        gone.isAbsent = true
        #expect(SourceBindingPolicy.returnsToUnbound(after: gone, optional: true, applied: true))
        #expect(!SourceBindingPolicy.returnsToUnbound(after: gone, optional: false, applied: true), "a configured bell stays grey, with the reason")
        #expect(!SourceBindingPolicy.returnsToUnbound(after: gone, optional: true, applied: false), "never applied: nothing to undo")
        #expect(SourceBindingPolicy.outcome(of: gone, value: .count(3), blinking: false, confidence: .current,
                                            applied: false, optional: true) == nil, "the demo's 3 stays while no daemon is there")
        #expect(!SourceBindingPolicy.returnsToUnbound(after: Self.reading(.count(2), stale: true), optional: true, applied: true),
                "a failing daemon is not an absent one")
    }

    @Test("A failing source keeps its last value in the stale style, with the error in the description; one that never succeeded shows nothing, stale")
    func failures() throws {
        let failed = try #require(SourceBindingPolicy.outcome(of: Self.reading(.count(9), stale: true, error: "folder gone"), value: .count(4),
                                                             blinking: false, confidence: .current, applied: true, optional: false))
        #expect(failed.value == nil && failed.confidence == .stale && failed.description == "~/Maildir: folder gone")
        let never = try #require(SourceBindingPolicy.outcome(of: Self.reading(nil, stale: true, error: "exit 3"), value: .none,
                                                            blinking: false, confidence: .current, applied: false, optional: false))
        #expect(never.value == nil && never.confidence == .stale && !never.applied)
        // A stale reading with a value before any good one: that value is shown (stale), the only one there is.
        let staleFirst = try #require(SourceBindingPolicy.outcome(of: Self.reading(.count(2), stale: true), value: .none,
                                                                 blinking: false, confidence: .current, applied: false, optional: false))
        #expect(staleFirst.value == .count(2) && staleFirst.confidence == .stale)
    }

    @Test("Ending an override shows the source's reading at once, or nothing when it has none")
    func endingOverrides() {
        #expect(SourceBindingPolicy.endingOverride(with: Self.reading(.count(1)), value: .count(40), blinking: false)
                == .init(value: .count(1), confidence: .current, description: "~/Maildir", applied: true))
        #expect(SourceBindingPolicy.endingOverride(with: Self.reading(nil), value: .count(40), blinking: false).value == BadgeContent.none)
        #expect(SourceBindingPolicy.endingOverride(with: Self.reading(.count(40)), value: .count(40), blinking: false).value == nil)
        #expect(SourceBindingPolicy.endingOverride(with: Self.reading(.count(3), stale: true, error: "x"), value: .count(40), blinking: false).confidence == .stale)
    }
}
