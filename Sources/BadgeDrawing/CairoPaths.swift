import BadgeCore
import CCairo

/// Small helpers that turn BadgeCore values into cairo calls.
package enum CairoPaths {
    /// Sets the source colour of `cr`.
    package static func setColor(_ cr: OpaquePointer, _ color: Color, alpha: Double = 1) {
        cairo_set_source_rgba(cr, color.red, color.green, color.blue, color.alpha * alpha)
    }

    /// Adds a rectangle with corner radius `radius` (clamped to half the shorter side) to the path.
    package static func roundedRect(_ cr: OpaquePointer, _ rect: Rect, radius: Double) {
        let r = max(0, min(radius, rect.width / 2, rect.height / 2))
        guard r > 0 else {
            cairo_rectangle(cr, rect.minX, rect.minY, rect.width, rect.height)
            return
        }
        cairo_new_sub_path(cr)
        cairo_arc(cr, rect.maxX - r, rect.minY + r, r, -Double.pi / 2, 0)
        cairo_arc(cr, rect.maxX - r, rect.maxY - r, r, 0, Double.pi / 2)
        cairo_arc(cr, rect.minX + r, rect.maxY - r, r, Double.pi / 2, Double.pi)
        cairo_arc(cr, rect.minX + r, rect.minY + r, r, Double.pi, 3 * Double.pi / 2)
        cairo_close_path(cr)
    }
}

extension Color {
    /// This colour drawn with `alpha` over an opaque `background`, as an opaque colour.
    public func composited(over background: Color) -> Color {
        let a = alpha
        return Color(red: red * a + background.red * (1 - a),
                     green: green * a + background.green * (1 - a),
                     blue: blue * a + background.blue * (1 - a),
                     alpha: 1)
    }
}
