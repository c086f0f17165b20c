import BadgeCore
import Testing

/// Text costs are bounded whatever the input: what is kept, measured and shaped has a fixed size,
/// and the number of measurements does not grow with the input. (No timing: sizes and call counts.)
@Suite struct TextBoundsTests {
    static let mark = "\u{301}"
    /// "a" and 100,000 combining acute accents: one grapheme cluster of 200,001 bytes.
    static let hundredThousandMarks = "a" + String(repeating: mark, count: 100_000)
    static let family = "👨‍👩‍👧‍👦"
    /// 10,000 family emoji: 10,000 clusters of 7 scalars (25 bytes) each.
    static let manyFamilies = String(repeating: family, count: 10_000)
    /// One ZWJ chain of 10,001 people: a single cluster of 20,001 scalars.
    static let endlessChain = "👨" + String(repeating: "\u{200D}👩", count: 10_000)
    static let longPlain = String(repeating: "ab", count: 50_000)

    @Test("Short text is kept unchanged")
    func shortTextUnchanged() {
        for text in ["", "4", "New", "e\u{301}", Self.family, "🇫🇷🇩🇪", "一个信息", "جديد"] {
            #expect(TextBounds.badgeText(text) == text)
            #expect(TextBounds.shapedText(text) == text)
        }
        let exactly = String(repeating: "x", count: TextBounds.maximumBadgeTextBytes)
        #expect(TextBounds.badgeText(exactly) == exactly)
    }

    @Test("100,000 combining marks: the base and the first marks, within the byte cap")
    func combiningMarks() {
        let capped = TextBounds.badgeText(Self.hundredThousandMarks)
        #expect(capped.unicodeScalars.count == TextBounds.maximumScalarsPerCluster)
        #expect(capped.utf8.count <= TextBounds.maximumBadgeTextBytes)
        #expect(capped.unicodeScalars.starts(with: "a\u{301}".unicodeScalars))
        #expect(capped.count == 1)
        // Separate clusters of a few marks each are kept whole, as many as fit.
        let accented = String(repeating: "e" + Self.mark + Self.mark, count: 50_000)
        let kept = TextBounds.badgeText(accented)
        #expect(kept.utf8.count <= TextBounds.maximumBadgeTextBytes && kept.utf8.count > TextBounds.maximumBadgeTextBytes - 5)
        #expect(kept.count == kept.utf8.count / 5 && kept.allSatisfy { $0 == Character("e" + Self.mark + Self.mark) })
    }

    @Test("Emoji ZWJ sequences: whole sequences within the cap; an endless chain is cut inside")
    func emojiSequences() {
        let families = TextBounds.badgeText(Self.manyFamilies)
        #expect(families == String(repeating: Self.family, count: TextBounds.maximumBadgeTextBytes / Self.family.utf8.count))
        let chain = TextBounds.shapedText(Self.endlessChain)
        #expect(chain.unicodeScalars.count == TextBounds.maximumScalarsPerCluster)
        #expect(chain.count == 1 && chain.utf8.count <= TextBounds.maximumShapedBytes)
    }

    @Test("Long plain text is cut at the byte cap")
    func longPlainText() {
        #expect(TextBounds.badgeText(Self.longPlain) == String(Self.longPlain.prefix(TextBounds.maximumBadgeTextBytes)))
        #expect(TextBounds.shapedText(Self.longPlain).utf8.count == TextBounds.maximumShapedBytes)
        // A multi-byte character never straddles the cap.
        let wide = String(repeating: "信", count: 1_000)
        let cut = TextBounds.badgeText(wide)
        #expect(cut.utf8.count == TextBounds.maximumBadgeTextBytes / 3 * 3 && cut.allSatisfy { $0 == "信" })
    }

    @Test("Only a bounded prefix is read: what lies beyond it changes nothing")
    func onlyAPrefixIsRead() {
        let reach = TextBounds.maximumShapedBytes + TextBounds.lookaheadBytes
        for head in [Self.longPlain, Self.manyFamilies, Self.hundredThousandMarks] {
            let prefix = String(decoding: head.utf8.prefix(reach), as: UTF8.self)
            #expect(TextBounds.shapedText(prefix + "TAIL") == TextBounds.shapedText(prefix + String(repeating: "Z", count: 9_999)))
        }
    }

    @Test("Truncation measures a bounded number of bounded strings", arguments: [
        ("100,000 combining marks", hundredThousandMarks), ("10,000 family emoji", manyFamilies),
        ("a 10,001-person ZWJ chain", endlessChain), ("100,000 letters", longPlain),
    ])
    func truncationIsBounded(name: String, text: String) {
        var calls = 0, longest = 0
        let result = BadgeTextTruncation.truncate(text, maximumWidth: 70) { string in
            calls += 1
            longest = max(longest, string.utf8.count)
            return 7 * Double(string.unicodeScalars.count)
        }
        #expect(calls <= 12, "\(name): \(calls) measurements")
        #expect(longest <= TextBounds.maximumShapedBytes + BadgeFormat.ellipsis.utf8.count, "\(name): measured \(longest) bytes")
        #expect(result.hasSuffix(BadgeFormat.ellipsis) && 7 * Double(result.unicodeScalars.count) <= 70, "\(name): \(result)")
        // The same input, a hundred times shorter, costs as many measurements or fewer: no growth.
        var shortCalls = 0
        _ = BadgeTextTruncation.truncate(String(text.unicodeScalars.prefix(text.unicodeScalars.count / 100)), maximumWidth: 70) {
            shortCalls += 1
            return 7 * Double($0.unicodeScalars.count)
        }
        #expect(calls <= max(shortCalls, 12))
    }

    @Test("A badge set to 100,000 marks stores, measures and reports the capped text")
    func controllerCapsText() {
        let h = Harness(content: .text(Self.hundredThousandMarks))
        let stored: String? = if case .text(let text) = h.controller.value { text } else { nil }
        #expect(stored == TextBounds.badgeText(Self.hundredThousandMarks))
        for text in [Self.longPlain, Self.manyFamilies, Self.endlessChain] {
            h.controller.setText(text)
            _ = h.controller.presentation(at: h.clock.now + 5)
        }
        #expect(h.measurer.measured.allSatisfy { $0.utf8.count <= TextBounds.maximumBadgeTextBytes },
                "measured: \(h.measurer.measured.map(\.utf8.count))")
        #expect(h.controller.accessibilityDescription.utf8.count <= TextBounds.maximumBadgeTextBytes + 64)
    }
}
