/// The font of the badge text, resolved by the drawing layer's text measurer.
public struct BadgeFont: Hashable, Sendable {
    /// Font family name, e.g. "DejaVu Sans".
    public var family: String = "DejaVu Sans"
    /// Font size in logical px.
    public var size: Double = 11
    /// Font weight.
    public var weight: FontWeight = .bold

    /// Creates a font; every argument has the badge default.
    public init(family: String = "DejaVu Sans", size: Double = 11, weight: FontWeight = .bold) {
        self.family = family
        self.size = size
        self.weight = weight
    }

    /// A usable font: an empty/whitespace family becomes "DejaVu Sans"; a NaN, infinite or <= 0 size
    /// becomes 11; sizes above `BadgeStyle.maximumLength` are clamped to it.
    public func sanitized() -> BadgeFont {
        var font = self
        if family.allSatisfy(\.isWhitespace) { font.family = BadgeFont().family }  // = cleaned(family).isEmpty
        if !(size.isFinite && size > 0) { font.size = BadgeFont().size }
        font.size = Swift.min(font.size, BadgeStyle.maximumLength)
        return font
    }
}
