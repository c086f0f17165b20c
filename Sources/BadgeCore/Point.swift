/// A location in logical units, origin top-left, y pointing down.
public struct Point: Hashable, Sendable {
    /// Horizontal coordinate in logical units.
    public var x: Double
    /// Vertical coordinate in logical units (down is positive).
    public var y: Double

    /// Creates a point from its coordinates.
    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    /// The origin, (0, 0).
    public static let zero = Point(x: 0, y: 0)
}
