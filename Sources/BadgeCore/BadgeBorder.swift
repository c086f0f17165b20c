/// A ring drawn OUTSIDE the badge body, `width` logical px thick (it grows the painted area).
public struct BadgeBorder: Hashable, Sendable {
    /// Ring thickness in logical px.
    public var width: Double
    /// Ring colour.
    public var color: BorderColor

    /// Creates a border ring.
    public init(width: Double, color: BorderColor) {
        self.width = width
        self.color = color
    }
}
