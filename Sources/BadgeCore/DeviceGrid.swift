/// Helpers for snapping logical coordinates to the device-pixel grid, with a tolerance for float noise.
enum DeviceGrid {
    /// Device-space tolerance: values this close to an integer count as that integer.
    static let tolerance = 1e-9

    /// The device scale to use: non-finite or non-positive scales become 1.
    static func sanitizedScale(_ scale: Double) -> Double {
        scale.isFinite && scale > 0 ? scale : 1
    }

    /// Floor with tolerance: 12.9999999999 → 13.
    static func floor(_ value: Double) -> Double {
        (value + tolerance).rounded(.down)
    }

    /// Ceil with tolerance: 13.0000000001 → 13.
    static func ceil(_ value: Double) -> Double {
        (value - tolerance).rounded(.up)
    }

    /// Round half up (deterministic for both signs).
    static func round(_ value: Double) -> Double {
        (value + 0.5).rounded(.down)
    }
}
