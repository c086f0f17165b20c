/// A CSS cubic-bezier timing curve from (0,0) to (1,1), solved exactly like WebKit's UnitBezier.
///
/// `x1`/`x2` are clamped to 0...1 (as CSS requires, so x(t) is monotone); a non-finite control value
/// makes the curve `linear`. `y1`/`y2` may leave 0...1 (overshoot).
public struct CubicBezier: Hashable, Sendable {
    /// First control point x (0...1).
    public let x1: Double
    /// First control point y.
    public let y1: Double
    /// Second control point x (0...1).
    public let x2: Double
    /// Second control point y.
    public let y2: Double

    /// Solver precision in x, as in WebKit.
    public static let epsilon = 1e-7

    /// Creates `cubic-bezier(x1, y1, x2, y2)`.
    public init(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double) {
        if [x1, y1, x2, y2].allSatisfy({ $0.isFinite }) {
            self.x1 = Swift.min(Swift.max(x1, 0), 1)
            self.y1 = y1
            self.x2 = Swift.min(Swift.max(x2, 0), 1)
            self.y2 = y2
        } else {
            (self.x1, self.y1, self.x2, self.y2) = (0, 0, 1, 1)
        }
    }

    /// The eased value for `progress`: solve x(t) = progress (Newton, then bisection), return y(t).
    /// Progress is clamped to 0...1 (NaN → 0); 0 gives exactly 0 and 1 exactly 1; linear curves return `progress` exactly.
    public func value(at progress: Double) -> Double {
        guard progress > 0 else { return 0 }
        guard progress < 1 else { return 1 }
        if x1 == y1 && x2 == y2 { return progress }  // the identity curve (linear): exact
        return sampleY(solveX(progress))
    }

    /// `linear`: no easing.
    public static let linear = CubicBezier(0, 0, 1, 1)
    /// CSS `ease`.
    public static let ease = CubicBezier(0.25, 0.1, 0.25, 1)
    /// CSS `ease-in`.
    public static let easeIn = CubicBezier(0.42, 0, 1, 1)
    /// CSS `ease-out`.
    public static let easeOut = CubicBezier(0, 0, 0.58, 1)
    /// CSS `ease-in-out`.
    public static let easeInOut = CubicBezier(0.42, 0, 0.58, 1)
    /// cubic-bezier(0.4, 1.3, 1, 1): the badge's change bounce (overshoots past 1).
    public static let bounce = CubicBezier(0.4, 1.3, 1, 1)
    /// cubic-bezier(0.12, 0.4, 0.29, 1.46): Ant Design's roll/zoom curve (overshoots past 1).
    public static let easeOutBack = CubicBezier(0.12, 0.4, 0.29, 1.46)

    private var coefficientsX: (a: Double, b: Double, c: Double) { CubicBezier.coefficients(x1, x2) }
    private var coefficientsY: (a: Double, b: Double, c: Double) { CubicBezier.coefficients(y1, y2) }

    private static func coefficients(_ p1: Double, _ p2: Double) -> (a: Double, b: Double, c: Double) {
        let c = 3 * p1
        let b = 3 * (p2 - p1) - c
        return (1 - c - b, b, c)
    }

    /// x(t) of the curve.
    func sampleX(_ t: Double) -> Double {
        let (a, b, c) = coefficientsX
        return ((a * t + b) * t + c) * t
    }

    /// y(t) of the curve.
    func sampleY(_ t: Double) -> Double {
        let (a, b, c) = coefficientsY
        return ((a * t + b) * t + c) * t
    }

    private func derivativeX(_ t: Double) -> Double {
        let (a, b, c) = coefficientsX
        return (3 * a * t + 2 * b) * t + c
    }

    /// The parameter t with x(t) = x, to within `epsilon`.
    func solveX(_ x: Double) -> Double {
        var t = x
        for _ in 0..<8 {
            let error = sampleX(t) - x
            if abs(error) < CubicBezier.epsilon { return t }
            let slope = derivativeX(t)
            if abs(slope) < 1e-6 { break }
            t -= error / slope
        }
        var low = 0.0, high = 1.0
        t = x
        if t < low { return low }
        if t > high { return high }
        for _ in 0..<200 where low < high {
            let value = sampleX(t)
            if abs(value - x) < CubicBezier.epsilon { return t }
            if x > value { low = t } else { high = t }
            t = (high - low) * 0.5 + low
        }
        return t
    }
}
