/// A width and height in logical units.
public struct Size: Hashable, Sendable {
    /// Horizontal extent in logical units.
    public var width: Double
    /// Vertical extent in logical units.
    public var height: Double

    /// Creates a size from its extents.
    public init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }

    /// The empty size, 0 × 0.
    public static let zero = Size(width: 0, height: 0)
}
