import BadgeCore
import Testing

@Suite struct TruncationTests {
    /// 7 per grapheme cluster, like the fake measurer.
    let measure: (String) -> Double = { 7 * Double($0.count) }

    @Test func fittingTextIsUnchanged() {
        #expect(BadgeTextTruncation.truncate("Hello", maximumWidth: 35, measure: measure) == "Hello")
        #expect(BadgeTextTruncation.truncate("", maximumWidth: 0, measure: measure) == "")
    }

    @Test func cutsWithEllipsisToFit() {
        #expect(BadgeTextTruncation.truncate("Hello world", maximumWidth: 35, measure: measure) == "Hell…")
        #expect(BadgeTextTruncation.truncate("Hello world", maximumWidth: 34.9, measure: measure) == "Hel…")
        // Trailing whitespace before the ellipsis is dropped.
        #expect(BadgeTextTruncation.truncate("Hello world", maximumWidth: 49, measure: measure) == "Hello…")
        #expect(BadgeTextTruncation.truncate("Hello", maximumWidth: 7, measure: measure) == "…")
        #expect(BadgeTextTruncation.truncate("Hello", maximumWidth: 20, ellipsis: "...", measure: measure) == "")
        #expect(BadgeTextTruncation.truncate("Hello", maximumWidth: 28, ellipsis: "..", measure: measure) == "He..")
    }

    @Test func neverSplitsClusters() {
        let family = "👨‍👩‍👧‍👦"
        #expect(BadgeTextTruncation.truncate(family + family + family, maximumWidth: 14, measure: measure) == family + "…")
        #expect(BadgeTextTruncation.truncate("🇫🇷🇩🇪🇯🇵", maximumWidth: 20, measure: measure) == "🇫🇷…")
        #expect(BadgeTextTruncation.truncate("e\u{301}e\u{301}e\u{301}", maximumWidth: 14, measure: measure) == "e\u{301}…")
        // A scalar-counting measurer would cut inside; result is still whole clusters.
        let byScalars: (String) -> Double = { Double($0.unicodeScalars.count) }
        let result = BadgeTextTruncation.truncate(family + family, maximumWidth: 9, measure: byScalars)
        #expect(result == family + "…")
    }

    @Test func badWidthsAndMeasurements() {
        #expect(BadgeTextTruncation.truncate("Hello", maximumWidth: .nan, measure: measure) == "Hello")
        #expect(BadgeTextTruncation.truncate("Hello", maximumWidth: .infinity, measure: measure) == "Hello")
        #expect(BadgeTextTruncation.truncate("Hello", maximumWidth: -1, measure: measure) == "")
        #expect(BadgeTextTruncation.truncate("Hello", maximumWidth: -.infinity, measure: measure) == "")
        #expect(BadgeTextTruncation.truncate("Hello", maximumWidth: 100, measure: { _ in .nan }) == "")
        #expect(BadgeTextTruncation.truncate("\u{301}", maximumWidth: 7, measure: measure) == "\u{301}")
    }

    @Test func longText() {
        let long = String(repeating: "ab", count: 5_000)
        let result = BadgeTextTruncation.truncate(long, maximumWidth: 70, measure: measure)
        #expect(result == "ababababa…")
        #expect(measure(result) <= 70)
    }
}
