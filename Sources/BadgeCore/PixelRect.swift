/// A rectangle of whole device pixels (origin top-left, y down).
public struct PixelRect: Hashable, Sendable, CustomStringConvertible {
    /// The left edge, in device pixels.
    public var x: Int
    /// The top edge, in device pixels.
    public var y: Int
    /// The width, in device pixels (never negative).
    public var width: Int
    /// The height, in device pixels (never negative).
    public var height: Int

    /// Creates a rectangle; a negative width or height becomes 0.
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = max(0, width)
        self.height = max(0, height)
    }

    /// The right edge (exclusive).
    public var maxX: Int { x + width }
    /// The bottom edge (exclusive).
    public var maxY: Int { y + height }
    /// True when it covers no pixel.
    public var isEmpty: Bool { width == 0 || height == 0 }
    /// The number of pixels it covers.
    public var area: Int { width * height }
    /// The centre, rounded down.
    public var center: (x: Int, y: Int) { (x + width / 2, y + height / 2) }
    /// "WxH+X+Y", as X geometry strings are written.
    public var description: String { "\(width)x\(height)+\(x)+\(y)" }

    /// Whether the pixel at (`px`, `py`) is inside.
    public func contains(x px: Int, y py: Int) -> Bool { px >= x && py >= y && px < maxX && py < maxY }

    /// Shrunk by `dx`, `dy` on each side (grown when negative).
    public func insetBy(dx: Int, dy: Int) -> PixelRect {
        PixelRect(x: x + dx, y: y + dy, width: width - 2 * dx, height: height - 2 * dy)
    }

    /// The part of this rectangle inside `other` (empty when they do not overlap).
    public func intersection(_ other: PixelRect) -> PixelRect {
        let left = max(x, other.x), top = max(y, other.y)
        return PixelRect(x: left, y: top, width: min(maxX, other.maxX) - left, height: min(maxY, other.maxY) - top)
    }

    /// The smallest rectangle holding both (an empty one is ignored).
    public func union(_ other: PixelRect) -> PixelRect {
        if isEmpty { return other }
        if other.isEmpty { return self }
        let left = min(x, other.x), top = min(y, other.y)
        return PixelRect(x: left, y: top, width: max(maxX, other.maxX) - left, height: max(maxY, other.maxY) - top)
    }
}

/// How a logical rectangle becomes whole device pixels.
public enum PixelRounding: Sendable {
    /// Every pixel the rectangle touches (edges rounded outwards): for damage and redraw.
    case outward
    /// Each edge to the nearest pixel boundary: for reporting where something is drawn.
    case nearest
}

extension Rect {
    /// This logical rectangle in device pixels at `scale`. Edges beyond ±2³⁰ pixels (or not finite)
    /// are clamped, so a wild geometry never traps.
    public func pixels(scale: Double, rounding: PixelRounding) -> PixelRect {
        func edge(_ value: Double, _ rule: FloatingPointRoundingRule) -> Int {
            let scaled = (value * scale).rounded(rule)
            guard scaled.isFinite else { return 0 }
            return Int(max(-1_073_741_824, min(1_073_741_824, scaled)))
        }
        let down: FloatingPointRoundingRule = rounding == .outward ? .down : .toNearestOrAwayFromZero
        let up: FloatingPointRoundingRule = rounding == .outward ? .up : .toNearestOrAwayFromZero
        let x0 = edge(minX, down), y0 = edge(minY, down)
        return PixelRect(x: x0, y: y0, width: edge(maxX, up) - x0, height: edge(maxY, up) - y0)
    }
}

extension Size {
    /// This logical size in whole device pixels at `scale`, rounded up, at least 1 × 1 and at most
    /// 32767 on each side (the X protocol's limit).
    public func pixels(scale: Double) -> (width: Int, height: Int) {
        func side(_ value: Double) -> Int {
            let scaled = (value * scale).rounded(.up)
            guard scaled.isFinite else { return 1 }
            return Int(max(1, min(32_767, scaled)))
        }
        return (side(width), side(height))
    }
}
