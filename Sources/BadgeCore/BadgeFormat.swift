/// How content becomes a label: count overflow, zero handling, digit grouping and text truncation.
///
/// Rules for unusual values (nothing traps):
/// - counts below 0 are shown as 0;
/// - `maximumCount` below 1 acts as 1 (so 2 shows "1+"); `Int.max` means no overflow;
/// - `maximumTextLength` below 1 acts as 1 (long text becomes just "…"); nil means no limit;
/// - text is trimmed of leading/trailing whitespace and its line breaks become spaces; empty or
///   whitespace-only text is hidden.
public struct BadgeFormat: Hashable, Sendable {
    /// Counts above this show "\(maximumCount)\(overflowSuffix)" (99 → "99+"; 999 → "999+"; 9 → "9+").
    public var maximumCount: Int = 99
    /// Appended to `maximumCount` when a count overflows.
    public var overflowSuffix: String = "+"
    /// Whether a zero count hides the badge (true) or shows "0" (false).
    public var hidesAtZero: Bool = true
    /// Whether counts are grouped by thousands ("1,234").
    public var groupsDigits: Bool = false
    /// The separator between digit groups when `groupsDigits` is on.
    public var groupingSeparator: String = ","
    /// Text longer than this many grapheme clusters is cut and ends in "…" (the result has exactly this many clusters).
    public var maximumTextLength: Int? = nil
    /// While Do Not Disturb is on, how a badge with something to show shows it (nil: Do Not Disturb
    /// is off). The default choice, `.dot`, says that something waits without a number.
    public var doNotDisturb: DoNotDisturbDisplay? = nil

    /// The default format: overflow at 99 with "+", hidden at zero, no grouping, no text limit.
    public init() {}

    /// The ellipsis appended to truncated text.
    public static let ellipsis = "…"

    /// The label for `content`: negative counts clamp to 0; empty/whitespace-only text → `.hidden`.
    public func label(for content: BadgeContent) -> BadgeLabel {
        let label = plainLabel(for: content)
        switch (doNotDisturb, label) {
        case (nil, _), (.count?, _), (_, .hidden): return label
        case (.dot?, _): return .dot
        case (.hidden?, _): return .hidden
        }
    }

    private func plainLabel(for content: BadgeContent) -> BadgeLabel {
        switch content {
        case .none:
            return .hidden
        case .dot:
            return .dot
        case .count(let value):
            let count = Swift.max(value, 0)
            if count == 0 && hidesAtZero { return .hidden }
            let parts = countParts(for: count)
            return .text(parts.body + parts.suffix)
        case .text(let text):
            let cleaned = BadgeFormat.cleaned(text)
            if cleaned.isEmpty { return .hidden }
            return .text(truncated(cleaned))
        }
    }

    /// The effective maximum count (at least 1).
    public var effectiveMaximumCount: Int { Swift.max(maximumCount, 1) }

    /// Whether `count` (clamped at 0) is above the maximum and shows the overflow suffix.
    public func overflows(_ count: Int) -> Bool {
        Swift.max(count, 0) > effectiveMaximumCount
    }

    /// The digits (grouped if requested) and the overflow suffix ("" unless overflowing) for a count.
    func countParts(for value: Int) -> (body: String, suffix: String) {
        let count = Swift.max(value, 0)
        if overflows(count) {
            return (formattedNumber(effectiveMaximumCount), overflowSuffix)
        }
        return (formattedNumber(count), "")
    }

    /// `number` (>= 0) in decimal, grouped by thousands when `groupsDigits` is on.
    func formattedNumber(_ number: Int) -> String {
        let digits = String(number)
        guard groupsDigits, digits.count > 3 else { return digits }
        var result = ""
        let characters = Array(digits)
        for (index, character) in characters.enumerated() {
            if index > 0 && (characters.count - index) % 3 == 0 { result += groupingSeparator }
            result.append(character)
        }
        return result
    }

    /// `text` cut to `maximumTextLength` grapheme clusters, ending in "…" when cut.
    func truncated(_ text: String) -> String {
        guard let limit = maximumTextLength else { return text }
        let maximum = Swift.max(limit, 1)
        guard text.count > maximum else { return text }
        var kept = String(text.prefix(maximum - 1))
        while let last = kept.last, last.isWhitespace { kept.removeLast() }
        return kept + BadgeFormat.ellipsis
    }

    /// Trims leading/trailing whitespace and turns line breaks into spaces so a badge stays one line.
    package static func cleaned(_ text: String) -> String {
        var characters = Substring(text)
        while let first = characters.first, first.isWhitespace { characters.removeFirst() }
        while let last = characters.last, last.isWhitespace { characters.removeLast() }
        var result = ""
        for character in characters {
            result.append(character.isNewline ? " " : character)
        }
        return result
    }
}
