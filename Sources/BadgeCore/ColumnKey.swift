/// Identifies a text column across label changes: count digits are aligned from the right.
enum ColumnKey: Hashable, Comparable {
    /// A digit (or group separator) of a count, 0 = rightmost.
    case body(Int)
    /// The overflow suffix ("+"), kept apart so "99" → "99+" leaves the digits in place.
    case suffix
    /// The whole text of a non-count label (never rolls).
    case whole

    /// Left-to-right visual order: leftmost digit first, then the suffix.
    static func < (lhs: ColumnKey, rhs: ColumnKey) -> Bool {
        lhs.order < rhs.order
    }

    private var order: (Int, Int) {
        switch self {
        case .body(let index): return (0, -index)
        case .suffix: return (1, 0)
        case .whole: return (2, 0)
        }
    }

}
