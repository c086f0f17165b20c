import BadgeCore
import BadgeDrawing
import CCairo

/// Draws a tooltip: one line of text in a rounded dark box, measured and drawn through Pango.
///
/// Not Sendable: uses the event-loop thread's `TextLayouts`.
package final class TooltipRenderer {
    /// The tooltip's font.
    package static let font = BadgeFont(family: "DejaVu Sans", size: 12, weight: .regular)
    /// Space between the text and the box, in logical units.
    package static let padding = (horizontal: 8.0, vertical: 5.0)
    /// The box colour.
    package static let background = Color(red: 0.16, green: 0.16, blue: 0.17)
    /// The text colour.
    package static let foreground = Color(red: 0.96, green: 0.96, blue: 0.96)

    private let text: TextLayouts

    /// Creates a renderer that shapes text with `text`.
    package init(text: TextLayouts) {
        self.text = text
    }

    /// The tooltip's size in device pixels for `label` at `scale`.
    package func size(of label: String, scale: Double) -> (width: Int, height: Int) {
        let extents = text.extents(of: label, font: Self.font).logical
        let width = (extents.width + 2 * Self.padding.horizontal) * scale
        let height = (extents.height + 2 * Self.padding.vertical) * scale
        // Clamped before converting: Int(_:) traps on a value out of range (a very long label).
        return (max(1, Int(min(4000, width).rounded(.up))), max(1, Int(min(1000, height).rounded(.up))))
    }

    /// Paints the tooltip for `label` into `cr` (device pixels), filling `width` × `height`.
    package func draw(_ label: String, scale: Double, width: Int, height: Int, in context: CairoContext) {
        context.withUnsafeHandle { cr in draw(label, scale: scale, width: width, height: height, context: context, cr: cr) }
    }

    private func draw(_ label: String, scale: Double, width: Int, height: Int, context: CairoContext, cr: OpaquePointer) {
        cairo_save(cr)
        defer { cairo_restore(cr) }
        cairo_set_operator(cr, CAIRO_OPERATOR_SOURCE)
        cairo_set_source_rgb(cr, Self.background.red, Self.background.green, Self.background.blue)
        cairo_paint(cr)
        cairo_set_operator(cr, CAIRO_OPERATOR_OVER)
        // A one-pixel lighter outline keeps the box visible on dark desktops.
        cairo_set_source_rgba(cr, 1, 1, 1, 0.18)
        cairo_set_line_width(cr, 1)
        cairo_rectangle(cr, 0.5, 0.5, Double(width) - 1, Double(height) - 1)
        cairo_stroke(cr)
        cairo_scale(cr, scale, scale)
        cairo_set_source_rgb(cr, Self.foreground.red, Self.foreground.green, Self.foreground.blue)
        text.draw(label, font: Self.font, at: Point(x: Self.padding.horizontal, y: Self.padding.vertical), in: context)
    }
}
