/// An sRGB colour with straight (non-premultiplied) alpha; components are in 0...1.
public struct Color: Hashable, Sendable {
    /// Red component, 0...1.
    public var red: Double
    /// Green component, 0...1.
    public var green: Double
    /// Blue component, 0...1.
    public var blue: Double
    /// Opacity, 0 (transparent) ... 1 (opaque).
    public var alpha: Double

    /// Creates a colour from components in 0...1 (stored as given; see `sanitized(default:)`).
    public init(red: Double, green: Double, blue: Double, alpha: Double = 1) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }

    /// Parses "#RRGGBB" or "#RRGGBBAA" (hex digits in either case); nil for anything else.
    public init?(hex: String) {
        let scalars = Array(hex.unicodeScalars)
        guard scalars.first == "#", scalars.count == 7 || scalars.count == 9 else { return nil }
        var bytes: [Double] = []
        var index = 1
        while index < scalars.count {
            guard let high = Color.hexValue(scalars[index]), let low = Color.hexValue(scalars[index + 1]) else {
                return nil
            }
            bytes.append(Double(high * 16 + low) / 255)
            index += 2
        }
        self.init(red: bytes[0], green: bytes[1], blue: bytes[2], alpha: bytes.count == 4 ? bytes[3] : 1)
    }

    /// The same colour with `alpha` instead of its own.
    public func withAlpha(_ alpha: Double) -> Color {
        Color(red: red, green: green, blue: blue, alpha: alpha)
    }

    /// Opaque white.

    public static let white = Color(red: 1, green: 1, blue: 1)
    /// Opaque black.
    public static let black = Color(red: 0, green: 0, blue: 0)
    /// The default badge background, #E53935.
    public static let badgeRed = Color(red: 229.0 / 255, green: 57.0 / 255, blue: 53.0 / 255)
    /// The fill of a stale badge, #757575: white text on it has a 4.6:1 contrast.
    public static let staleGrey = Color(red: 117.0 / 255, green: 117.0 / 255, blue: 117.0 / 255)

    /// This colour with each component clamped to 0...1; a NaN or infinite component takes `fallback`'s value.
    public func sanitized(default fallback: Color) -> Color {
        func fix(_ value: Double, _ replacement: Double) -> Double {
            value.isFinite ? Swift.min(Swift.max(value, 0), 1) : replacement
        }
        return Color(red: fix(red, fallback.red), green: fix(green, fallback.green),
                     blue: fix(blue, fallback.blue), alpha: fix(alpha, fallback.alpha))
    }

    private static func hexValue(_ scalar: Unicode.Scalar) -> Int? {
        switch scalar.value {
        case 0x30...0x39: return Int(scalar.value - 0x30)
        case 0x41...0x46: return Int(scalar.value - 0x41 + 10)
        case 0x61...0x66: return Int(scalar.value - 0x61 + 10)
        default: return nil
        }
    }
}
