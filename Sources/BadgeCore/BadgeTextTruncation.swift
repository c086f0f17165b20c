/// Width-based truncation of label text at grapheme-cluster boundaries.
public enum BadgeTextTruncation {
    /// Cuts `text` at grapheme boundaries so that measure(result) <= maximumWidth, appending `ellipsis` when cut.
    ///
    /// Rules: text that fits is returned unchanged; a NaN `maximumWidth` means no limit; trailing whitespace
    /// before the ellipsis is dropped; when not even the ellipsis fits, the result is "" (which hides a badge).
    /// A measurement that is NaN counts as not fitting. Assumes `measure` grows with the prefix (binary search).
    public static func truncate(_ text: String, maximumWidth: Double, ellipsis: String = "…",
                                measure: (String) -> Double) -> String {
        if maximumWidth.isNaN { return text }
        func fits(_ string: String) -> Bool {
            let width = measure(string)
            return !width.isNaN && width <= maximumWidth
        }
        if fits(text) { return text }
        let clusters = Array(text)
        func candidate(_ count: Int) -> String {
            var prefix = String(clusters[0..<count])
            while let last = prefix.last, last.isWhitespace { prefix.removeLast() }
            return prefix + ellipsis
        }
        // Largest prefix length in 0..<clusters.count whose candidate fits.
        var low = 0, high = clusters.count - 1, best = -1
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
