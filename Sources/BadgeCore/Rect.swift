/// An axis-aligned rectangle in logical units (origin top-left, y down).
///
/// Sizes are used as given: a negative width or height makes the rectangle empty
/// (`isEmpty`), and empty rectangles are ignored by `union(_:)`.
public struct Rect: Hashable, Sendable {
    /// The top-left corner.
    public var origin: Point
    /// The extents.
    public var size: Size

    /// Creates a rectangle from its origin and size.
    public init(origin: Point, size: Size) {
        self.origin = origin
        self.size = size
    }

    /// Creates a rectangle from its origin coordinates and extents.
    public init(x: Double, y: Double, width: Double, height: Double) {
        self.init(origin: Point(x: x, y: y), size: Size(width: width, height: height))
    }

    /// The empty rectangle at the origin.
    public static let zero = Rect(x: 0, y: 0, width: 0, height: 0)

    /// The left edge.
    public var minX: Double { origin.x }
    /// The top edge.
    public var minY: Double { origin.y }
    /// The right edge.
    public var maxX: Double { origin.x + size.width }
    /// The bottom edge.
    public var maxY: Double { origin.y + size.height }
    /// The horizontal centre.
    public var midX: Double { origin.x + size.width / 2 }
    /// The vertical centre.
    public var midY: Double { origin.y + size.height / 2 }
    /// The width.
    public var width: Double { size.width }
    /// The height.
    public var height: Double { size.height }

    /// The centre point.
    public var center: Point { Point(x: midX, y: midY) }

    /// True when the rectangle covers no area (width or height <= 0, or NaN).
    public var isEmpty: Bool { !(size.width > 0) || !(size.height > 0) }

    /// Whether `point` lies inside, half-open: `minX <= x < maxX` and `minY <= y < maxY`.
    public func contains(_ point: Point) -> Bool {
        point.x >= minX && point.x < maxX && point.y >= minY && point.y < maxY
    }

    /// The smallest rectangle containing both; empty rectangles are ignored (two empties give `.zero`).
    public func union(_ other: Rect) -> Rect {
        if isEmpty { return other.isEmpty ? .zero : other }
        if other.isEmpty { return self }
        let x0 = Swift.min(minX, other.minX), y0 = Swift.min(minY, other.minY)
        let x1 = Swift.max(maxX, other.maxX), y1 = Swift.max(maxY, other.maxY)
        return Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// The overlapping area, or nil when the rectangles don't overlap (touching edges do not overlap).
    public func intersection(_ other: Rect) -> Rect? {
        if isEmpty || other.isEmpty { return nil }
        let x0 = Swift.max(minX, other.minX), y0 = Swift.max(minY, other.minY)
        let x1 = Swift.min(maxX, other.maxX), y1 = Swift.min(maxY, other.maxY)
        guard x1 > x0, y1 > y0 else { return nil }
        return Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// Shrinks by `dx` on the left and right and `dy` on the top and bottom (negative values grow).
    public func insetBy(dx: Double, dy: Double) -> Rect {
        Rect(x: minX + dx, y: minY + dy, width: width - 2 * dx, height: height - 2 * dy)
    }

    /// Moves by (`dx`, `dy`).
    public func offsetBy(dx: Double, dy: Double) -> Rect {
        Rect(x: minX + dx, y: minY + dy, width: width, height: height)
    }

    /// Scales by `factor` about `anchor` (a factor of 2 about the centre doubles the size around the same centre).
    public func scaled(by factor: Double, about anchor: Point) -> Rect {
        Rect(x: anchor.x + (minX - anchor.x) * factor,
             y: anchor.y + (minY - anchor.y) * factor,
             width: width * factor, height: height * factor)
    }

    /// The smallest rectangle on the device-pixel grid (multiples of 1/scale) that contains this one.
    /// A non-finite or non-positive scale is treated as 1. Edges within 1e-9 device px of a grid line
    /// count as on it, so already-snapped rectangles are returned unchanged.
    public func snappedOut(toScale scale: Double) -> Rect {
        let s = DeviceGrid.sanitizedScale(scale)
        let x0 = DeviceGrid.floor(minX * s), y0 = DeviceGrid.floor(minY * s)
        let x1 = DeviceGrid.ceil(maxX * s), y1 = DeviceGrid.ceil(maxY * s)
        return Rect(x: x0 / s, y: y0 / s, width: (x1 - x0) / s, height: (y1 - y0) / s)
    }
}
