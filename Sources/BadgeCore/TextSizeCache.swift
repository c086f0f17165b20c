/// Remembers measured text sizes per (text, font) so a frame never re-measures.
///
/// Sizes are sanitised (NaN, infinite or negative extents become 0). The cache holds at most `capacity`
/// entries and is emptied when it would grow past that, bounding memory for ever-changing counts.
///
/// The few most recently used entries are also kept in a short list that is searched before the
/// dictionary: a frame asks for the same two or three short strings over and over, and comparing them
/// is much cheaper than hashing them. That list only ever holds entries of the dictionary, so it never
/// changes what is measured.
struct TextSizeCache {
    private struct Key: Hashable {
        var text: String
        var font: BadgeFont
    }

    static let capacity = 512
    /// Length of the most-recently-used list.
    private static let recentCapacity = 8

    private var sizes: [Key: Size] = [:]
    private var recent: [(key: Key, size: Size)] = []
    private var nextRecent = 0

    /// Bumped whenever cached sizes are dropped, so callers can tell that derived values are stale.
    private(set) var generation = 0

    /// Number of cached sizes.
    var count: Int { sizes.count }

    /// The size of `text` in `font`, measuring through `measurer` only on a miss.
    mutating func size(of text: String, font: BadgeFont, measurer: any TextMeasuring) -> Size {
        for index in recent.indices where recent[index].key.text == text && recent[index].key.font == font {
            return recent[index].size
        }
        let key = Key(text: text, font: font)
        if let size = sizes[key] {
            remember(key, size)
            return size
        }
        let measured = measurer.size(of: text, font: font)
        func fix(_ value: Double) -> Double { value.isFinite && value > 0 ? value : 0 }
        let size = Size(width: fix(measured.width), height: fix(measured.height))
        if sizes.count >= TextSizeCache.capacity { dropAll(keepingCapacity: true) }
        sizes[key] = size
        remember(key, size)
        return size
    }

    /// Forgets every size.
    mutating func removeAll() {
        dropAll(keepingCapacity: false)
    }

    private mutating func dropAll(keepingCapacity: Bool) {
        sizes.removeAll(keepingCapacity: keepingCapacity)
        recent.removeAll(keepingCapacity: true)
        nextRecent = 0
        generation &+= 1
    }

    private mutating func remember(_ key: Key, _ size: Size) {
        if recent.count < TextSizeCache.recentCapacity {
            recent.append((key, size))
        } else {
            recent[nextRecent] = (key, size)
            nextRecent = (nextRecent + 1) % TextSizeCache.recentCapacity
        }
    }
}
