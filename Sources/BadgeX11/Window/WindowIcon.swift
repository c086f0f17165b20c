import BadgeCore
import BadgeDrawing
import CCairo

/// The window's icon for taskbars and switchers (_NET_WM_ICON): the bell at 16, 32 and 48 pixels
/// with the total count drawn on it as a red badge ("99+" above 99; a plain dot at 16 px).
///
/// Not Sendable: draws with the event-loop thread's icons and text.
package enum WindowIcon {
    /// The icon sizes published, in pixels.
    package static let sizes = [16, 32, 48]

    /// The _NET_WM_ICON property value: for each size, width, height, then width × height
    /// non-premultiplied 0xAARRGGBB pixels, row by row. Throws when cairo cannot draw an icon.
    package static func cardinals(badge: String, icons: IconLibrary, text: TextLayouts, iconName: String) throws -> [UInt32] {
        var values: [UInt32] = []
        for size in sizes {
            let image = try ImageSurface(width: size, height: size)
            try image.draw { context in
                context.withUnsafeHandle { cr in draw(badge: badge, size: size, icons: icons, text: text, iconName: iconName, context: context, cr: cr) }
            }
            values.append(UInt32(size))
            values.append(UInt32(size))
            values += image.straightAlphaPixels()
        }
        return values
    }

    private static func draw(badge label: String, size: Int, icons: IconLibrary, text: TextLayouts, iconName: String, context: CairoContext, cr: OpaquePointer) {
        let side = Double(size)
        // A light rounded tile so the dark glyph shows on dark panels too.
        cairo_set_source_rgba(cr, 0.97, 0.97, 0.97, 1)
        CairoPaths.roundedRect(cr, Rect(x: 0, y: 0, width: side, height: side), radius: side * 0.2)
        cairo_fill(cr)
        let inset = side * 0.12
        icons.draw(iconName, in: Rect(x: inset, y: inset, width: side - 2 * inset, height: side - 2 * inset),
                   color: Color(red: 0.13, green: 0.13, blue: 0.13), scale: 1, context: context)
        guard !label.isEmpty else { return }
        let red = Color.badgeRed
        cairo_set_source_rgb(cr, red.red, red.green, red.blue)
        if size < 32 {
            cairo_arc(cr, side * 0.75, side * 0.25, side * 0.25, 0, 2 * Double.pi)
            cairo_fill(cr)
            return
        }
        let font = BadgeFont(family: "DejaVu Sans", size: side * 0.3, weight: .bold)
        let extents = text.extents(of: label, font: font)
        let height = side * 0.46
        let width = max(height, extents.ink.width + side * 0.16)
        let box = Rect(x: side - width, y: 0, width: width, height: height)
        CairoPaths.roundedRect(cr, box, radius: height / 2)
        cairo_fill(cr)
        cairo_set_source_rgb(cr, 1, 1, 1)
        let origin = Point(x: box.midX - extents.ink.midX, y: box.midY - extents.ink.midY)
        text.draw(label, font: font, at: origin, in: context)
    }
}
