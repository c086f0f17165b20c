/// Width-based truncation of label text at grapheme-cluster boundaries.
public enum BadgeTextTruncation {
    /// Cuts `text` at grapheme boundaries so that measure(result) <= maximumWidth, appending `ellipsis` when cut.
    ///
    /// Rules: text that fits is returned unchanged; a NaN `maximumWidth` means no limit; trailing whitespace
    /// before the ellipsis is dropped; when not even the ellipsis fits, the result is "" (which hides a badge).
    /// A measurement that is NaN counts as not fitting. Assumes `measure` grows with the prefix (binary search).
    ///
    /// The cost is bounded whatever the input: only ``TextBounds/shapedText(_:)`` of `text` (at most
    /// ``TextBounds/maximumShapedBytes`` bytes) is looked at, and text longer than that is cut without
    /// measuring it whole. `measure` is called at most 2 + log2(``TextBounds/maximumShapedBytes``)
    /// times (12), each time with at most that many bytes plus the ellipsis.
    public static func truncate(_ text: String, maximumWidth: Double, ellipsis: String = "…",
                                measure: (String) -> Double) -> String {
        if maximumWidth.isNaN { return text }
        func fits(_ string: String) -> Bool {
            let width = measure(string)
            return !width.isNaN && width <= maximumWidth
        }
        let bounded = TextBounds.shapedText(text)
        // The cap keeps a prefix, so equal lengths mean nothing was cut.
        let wasCut = bounded.utf8.count != text.utf8.count
        if !wasCut, fits(text) { return text }
        let clusters = Array(bounded)
        func candidate(_ count: Int) -> String {
            var prefix = String(clusters[0..<count])
            while let last = prefix.last, last.isWhitespace { prefix.removeLast() }
            return prefix + ellipsis
        }
        // Largest prefix length whose candidate fits: in 0..<clusters.count, or up to all of them
        // when the cap already cut the text.
        var low = 0, high = wasCut ? clusters.count : clusters.count - 1, best = -1
        while low <= high {
            let mid = low + (high - low) / 2
            if fits(candidate(mid)) {
                best = mid
                low = mid + 1
            } else {
                high = mid - 1
            }
        }
        return best >= 0 ? candidate(best) : ""
    }
}
