/// The most text BadgeKit keeps or shapes, so that what any text costs is bounded whatever a
/// producer sends: a badge shows a handful of characters, a tooltip or a label one line.
///
/// Text is cut by ``capped(_:maximumBytes:)``: whole grapheme clusters from the start while they
/// fit in the byte budget, and a cluster of more than ``maximumScalarsPerCluster`` scalars (a base
/// with thousands of combining marks) is cut after that many scalars and ends the text. Only the
/// first `maximumBytes` + ``lookaheadBytes`` bytes of the input are ever read, so a 100 KB text
/// costs what a 1 KB one does.
public enum TextBounds {
    /// Badge text is stored (and saved, and reported) with at most this many UTF-8 bytes.
    public static let maximumBadgeTextBytes = 256
    /// At most this many UTF-8 bytes of any string are shaped and measured: badge text, labels and
    /// tooltips alike.
    public static let maximumShapedBytes = 1024
    /// The most Unicode scalars kept of one grapheme cluster. The longest emoji ZWJ and tag
    /// sequences have about ten; more is a stack of combining marks.
    public static let maximumScalarsPerCluster = 32
    /// Bytes read past the budget to find where the last kept cluster ends: more than a cluster of
    /// ``maximumScalarsPerCluster`` scalars of 4 bytes each can take.
    public static let lookaheadBytes = 4 * maximumScalarsPerCluster + 4

    /// `text` cut to at most `maximumBytes` UTF-8 bytes (at least one cluster's worth is not
    /// promised: a first cluster larger than the budget gives ""), on grapheme-cluster boundaries
    /// except inside an overlong cluster, as described above. Text within the bounds is returned
    /// unchanged.
    public static func capped(_ text: String, maximumBytes: Int) -> String {
        let budget = Swift.max(maximumBytes, 0)
        let utf8 = text.utf8
        // Short text cannot hold an overlong cluster: nothing to look at.
        if utf8.count <= Swift.min(budget, maximumScalarsPerCluster) { return text }
        let window = prefix(of: text, bytes: budget + lookaheadBytes)
        let wholeTextRead = window.utf8.count == utf8.count
        var result = ""
        var used = 0
        for cluster in window {
            let scalars = cluster.unicodeScalars
            if scalars.count > maximumScalarsPerCluster {
                var kept = String.UnicodeScalarView()
                for scalar in scalars.prefix(maximumScalarsPerCluster) {
                    guard used + UTF8.width(scalar) <= budget else { break }
                    used += UTF8.width(scalar)
                    kept.append(scalar)
                }
                result.unicodeScalars.append(contentsOf: kept)
                return result
            }
            let size = cluster.utf8.count
            guard used + size <= budget else { return result }
            used += size
            result.append(cluster)
        }
        // Every cluster of the window fitted: it was the whole text (the lookahead exceeds any
        // cluster that is not overlong, so a window cut short ends beyond the budget).
        return wholeTextRead ? text : result
    }

    /// Badge text as BadgeKit stores it: ``capped(_:maximumBytes:)`` to ``maximumBadgeTextBytes``.
    public static func badgeText(_ text: String) -> String {
        capped(text, maximumBytes: maximumBadgeTextBytes)
    }

    /// A string as it is shaped: ``capped(_:maximumBytes:)`` to ``maximumShapedBytes``.
    public static func shapedText(_ text: String) -> String {
        capped(text, maximumBytes: maximumShapedBytes)
    }

    /// The first scalars of `text` that fit in `bytes` UTF-8 bytes, as a new string (reads no further).
    private static func prefix(of text: String, bytes: Int) -> String {
        let utf8 = text.utf8
        guard var end = utf8.index(utf8.startIndex, offsetBy: bytes, limitedBy: utf8.endIndex), end != utf8.endIndex else {
            return text
        }
        // Back to the start of a scalar: UTF-8 continuation bytes are 0b10xxxxxx.
        while end > utf8.startIndex, utf8[end] & 0xC0 == 0x80 { end = utf8.index(before: end) }
        return String(decoding: utf8[utf8.startIndex..<end], as: UTF8.self)
    }
}
