/// Remembers measured text sizes per (text, font) so a frame never re-measures.
///
/// Sizes are sanitised (NaN, infinite or negative extents become 0). The cache holds at most `capacity`
/// entries and is emptied when it would grow past that, bounding memory for ever-changing counts.
struct TextSizeCache {
    private struct Key: Hashable {
        var text: String
        var font: BadgeFont
    }

    static let capacity = 512
    private var sizes: [Key: Size] = [:]

    /// Number of cached sizes.
    var count: Int { sizes.count }

    /// The size of `text` in `font`, measuring through `measurer` only on a miss.
    mutating func size(of text: String, font: BadgeFont, measurer: any TextMeasuring) -> Size {
        let key = Key(text: text, font: font)
        if let size = sizes[key] { return size }
        let measured = measurer.size(of: text, font: font)
        func fix(_ value: Double) -> Double { value.isFinite && value > 0 ? value : 0 }
        let size = Size(width: fix(measured.width), height: fix(measured.height))
        if sizes.count >= TextSizeCache.capacity { sizes.removeAll(keepingCapacity: true) }
        sizes[key] = size
        return size
    }

    /// Forgets every size.
    mutating func removeAll() {
        sizes.removeAll()
    }
}
