import BadgeCore
import Testing

@Suite struct FormatTests {
    static let defaultCases: [(BadgeContent, BadgeLabel)] = [
        (.none, .hidden), (.dot, .dot),
        (.count(0), .hidden), (.count(1), .text("1")), (.count(9), .text("9")), (.count(99), .text("99")),
        (.count(100), .text("99+")), (.count(-1), .hidden), (.count(Int.min), .hidden),
        (.count(Int.max), .text("99+")), (.count(1234), .text("99+")),
        (.text("New"), .text("New")), (.text("一个信息"), .text("一个信息")), (.text("👍"), .text("👍")),
        (.text("جديد"), .text("جديد")), (.text(""), .hidden), (.text("   "), .hidden), (.text("\n\t "), .hidden),
        (.text("  New  "), .text("New")), (.text("a\nb"), .text("a b")), (.text("\u{301}"), .text("\u{301}")),
    ]

    @Test(arguments: defaultCases)
    func defaultFormat(content: BadgeContent, expected: BadgeLabel) {
        #expect(BadgeFormat().label(for: content) == expected)
    }

    static let maximumCases: [(Int, Int, String)] = [
        (99, 99, "99"), (99, 100, "99+"), (999, 999, "999"), (999, 1000, "999+"), (9, 9, "9"), (9, 10, "9+"),
        (0, 1, "1"), (0, 2, "1+"), (-5, 2, "1+"), (Int.min, 1, "1"), (Int.min, 5, "1+"),
        (Int.max, Int.max, "\(Int.max)"), (Int.max, 1_000_000, "1000000"),
    ]

    @Test(arguments: maximumCases)
    func maximumCount(maximum: Int, count: Int, expected: String) {
        var format = BadgeFormat()
        format.maximumCount = maximum
        #expect(format.label(for: .count(count)) == .text(expected))
    }

    @Test func overflowSuffixIsConfigurable() {
        var format = BadgeFormat()
        format.overflowSuffix = "…"
        #expect(format.label(for: .count(120)) == .text("99…"))
        format.overflowSuffix = ""
        #expect(format.label(for: .count(120)) == .text("99"))
    }

    @Test func showsZeroWhenAsked() {
        var format = BadgeFormat()
        format.hidesAtZero = false
        #expect(format.label(for: .count(0)) == .text("0"))
        #expect(format.label(for: .count(-3)) == .text("0"))
        #expect(format.label(for: .count(Int.min)) == .text("0"))
    }

    static let groupingCases: [(Int, String)] = [
        (0, "0"), (7, "7"), (999, "999"), (1000, "1,000"), (1234, "1,234"), (12345, "12,345"),
        (123_456, "123,456"), (1_234_567, "1,234,567"), (Int.max, "9,223,372,036,854,775,807"),
    ]

    @Test(arguments: groupingCases)
    func digitGrouping(count: Int, expected: String) {
        var format = BadgeFormat()
        format.groupsDigits = true
        format.hidesAtZero = false
        format.maximumCount = Int.max
        #expect(format.label(for: .count(count)) == .text(expected))
    }

    @Test func groupingAppliesToOverflowAndCustomSeparator() {
        var format = BadgeFormat()
        format.groupsDigits = true
        format.maximumCount = 9999
        format.groupingSeparator = "\u{202F}"
        #expect(format.label(for: .count(12000)) == .text("9\u{202F}999+"))
        #expect(format.label(for: .count(4321)) == .text("4\u{202F}321"))
    }

    static let lengthCases: [(Int?, String, String)] = [
        (nil, "Notifications", "Notifications"), (5, "Hello", "Hello"), (5, "Hello!", "Hell…"),
        (3, "ab cd", "ab…"), (1, "New", "…"), (0, "New", "…"), (-7, "New", "…"), (Int.min, "Ne", "…"),
        (1, "N", "N"), (Int.max, "New", "New"),
        (2, "👨‍👩‍👧‍👦👨‍👩‍👧‍👦👨‍👩‍👧‍👦", "👨‍👩‍👧‍👦…"), (3, "🇫🇷🇩🇪🇯🇵🇺🇸", "🇫🇷🇩🇪…"), (2, "e\u{301}e\u{301}e\u{301}", "e\u{301}…"),
        (2, "👍🏽👍🏽👍🏽", "👍🏽…"),
    ]

    @Test(arguments: lengthCases)
    func maximumTextLength(limit: Int?, text: String, expected: String) {
        var format = BadgeFormat()
        format.maximumTextLength = limit
        let label = format.label(for: .text(text))
        #expect(label == .text(expected))
        if let limit, let shown = label.text { #expect(shown.count <= max(limit, 1)) }
    }

    @Test func truncationNeverSplitsClusters() {
        var format = BadgeFormat()
        format.maximumTextLength = 2
        let family = "👨‍👩‍👧‍👦"
        let label = format.label(for: .text(family + family + family))
        #expect(label == .text(family + "…"))
        // The family survives as one unit: all its scalars are present.
        #expect(label.text?.unicodeScalars.count == family.unicodeScalars.count + 1)
    }

    @Test func tenThousandCharacterText() {
        let long = String(repeating: "x", count: 10_000)
        #expect(BadgeFormat().label(for: .text(long)) == .text(long))
        var format = BadgeFormat()
        format.maximumTextLength = 12
        #expect(format.label(for: .text(long)) == .text(String(repeating: "x", count: 11) + "…"))
    }

    @Test func labelText() {
        #expect(BadgeLabel.text("3").text == "3")
        #expect(BadgeLabel.dot.text == nil && BadgeLabel.hidden.text == nil)
    }

    @Test func overflowQueries() {
        var format = BadgeFormat()
        #expect(format.overflows(100) && !format.overflows(99) && !format.overflows(Int.min))
        format.maximumCount = -10
        #expect(format.effectiveMaximumCount == 1)
        #expect(format.overflows(2) && !format.overflows(1))
    }
}
