import BadgeCore
import CCairo

/// Draws the icon a system tray shows for an application: an icon of the ``IconLibrary`` (the bell
/// by default) with a count drawn in as a badge, since the tray protocols (XEmbed, the
/// StatusNotifierItem) have no count field of their own.
///
/// The badge is the toolbar's: a `BadgeController` at rest lays it out on the icon's top-trailing
/// corner, kept inside the icon (at tray sizes it covers that corner), and ``BadgeRenderer`` paints
/// it, with its ring cut out of the icon underneath. Its lengths follow the icon's size, and
/// everything is placed on whole device pixels, so the icon is crisp at every size and scale.
/// Below 20 logical pixels a count above 9 shows as "9+"; below 32, a count above 99 shows as "9+"
/// too (a "99+" hid the whole bell); from 32 pixels on, above 99 as "99+".
/// For a background it cannot see (a StatusNotifierItem's host), the icon is drawn on a halo in
/// a contrasting colour (``haloColor(for:)``), so that it reads on a black bar and a white one.
/// The icon is drawn from the library's prerendered masks where one is close to the size
/// (``IconLibrary/prerenderedSide(of:atMost:)``), so a tray icon does not load librsvg.
///
/// Pure drawing into an image: no window, no bus. Not Sendable: one per event-loop thread, like the
/// ``IconLibrary`` and ``TextLayouts`` it draws with.
public final class TrayIconRenderer {
    /// The icon drawn under the badge.
    public let iconName: String
    private let icons: IconLibrary
    private let text: TextLayouts
    private let renderer: BadgeRenderer
    private let clock = ManualClock()

    /// A renderer of `iconName` from `icons`, the count's text shaped by `text`.
    public init(icons: IconLibrary, text: TextLayouts, iconName: String = "bell") {
        self.icons = icons
        self.text = text
        self.iconName = iconName
        renderer = BadgeRenderer(text: text)
    }

    /// The icon for `count` in a `width` × `height` device-pixel image at device `scale`: the
    /// largest centred square holds the icon in `theme`'s foreground colour, on `background` (nil:
    /// transparent, for a tray that composites). A count of 0 or less draws the icon alone.
    /// Throws when cairo cannot draw or the text cannot be shaped.
    /// With `backdrop` (the tray's own pixels behind the icon, read back from the screen), the icon
    /// is drawn over them, so it sits on the bar's colour or picture instead of a square of its own.
    /// With `halo`, the icon is drawn on a halo of that colour (its silhouette, holes filled,
    /// grown by a twentieth of the side, at least a device pixel), for a background the caller
    /// cannot see: pass a colour that contrasts with `theme`'s foreground (``haloColor(for:)``).
    /// The badge is drawn as without it.
    public func image(width: Int, height: Int, scale: Double = 1, count: Int, theme: Theme,
                      background: Color? = nil, backdrop: ImageSurface? = nil, halo: Color? = nil) throws -> ImageSurface {
        let image = try ImageSurface(width: max(width, 1), height: max(height, 1))
        try text.load()
        let scale = scale.isFinite && scale > 0 ? scale : 1
        let surface = backdrop?.averageColor ?? background ?? theme.background
        try image.draw { context in
            if let backdrop {
                context.withUnsafeHandle { cr in
                    backdrop.withUnsafeSurface { source in
                        cairo_set_source_surface(cr, source, 0, 0)
                        cairo_paint(cr)
                    }
                }
            } else if let background {
                context.paint(background)
            }
            let side = Double(min(image.width, image.height))
            // The square, on whole device pixels, in logical units.
            let square = Rect(x: ((Double(image.width) - side) / 2).rounded(.down) / scale,
                              y: ((Double(image.height) - side) / 2).rounded(.down) / scale,
                              width: side / scale, height: side / scale)
            context.scale(by: scale)
            let badge = badgeController(count: count, in: square, scale: scale)
            let presentation = badge.presentation(at: clock.now)
            context.withUnsafeHandle { cr in cairo_push_group(cr) }
            let iconBox = iconRect(in: square, scale: scale)
            if let halo {
                // Under the icon, in the same group: the badge's ring is cut out of both.
                let mask = try haloMask(around: iconBox, scale: scale, width: image.width, height: image.height,
                                        side: Int(side))
                context.withUnsafeHandle { cr in
                    cairo_save(cr)
                    cairo_identity_matrix(cr)
                    CairoPaths.setColor(cr, halo)
                    mask.withUnsafeSurface { cairo_mask_surface(cr, $0, 0, 0) }
                    cairo_restore(cr)
                }
            }
            icons.draw(iconName, in: iconBox, color: theme.foreground, scale: scale, context: context)
            renderer.cutOutRing(presentation, style: badge.style, in: context)
            context.withUnsafeHandle { cr in
                cairo_pop_group_to_source(cr)
                cairo_paint(cr)
            }
            renderer.draw(presentation, style: badge.style, surface: surface, ringIsCutOut: true, in: context)
        }
        return image
    }

    /// The icon at each of `sides` (pixels, at scale 1) as a StatusNotifierItem's `IconPixmap`
    /// carries it: ARGB32 with straight alpha, the bytes in network order. A host's background
    /// cannot be known (swaybar's is black, many panels are white), so the bell is haloed in
    /// ``haloColor(for:)``: in the light theme a dark line bell on a near-white bell shape, in the
    /// dark theme a light one on a dark shape, legible on either. A size cairo cannot draw is left out.
    package func statusNotifierPixmaps(sides: [Int], count: Int, theme: Theme) -> [(side: Int, argb: [UInt8])] {
        sides.compactMap { side in
            guard let image = try? image(width: side, height: side, count: count, theme: theme, halo: Self.haloColor(for: theme)) else {
                return nil
            }
            return (side, image.straightAlphaBytesBigEndian())
        }
    }

    /// The halo for an icon in `theme`'s foreground: the theme's background colour, which the
    /// foreground is made to stand out on (a near-white halo round the light theme's dark bell, a
    /// dark grey one round the dark theme's light bell).
    public static func haloColor(for theme: Theme) -> Color {
        theme.background.withAlpha(1)
    }

    /// The badge's look for an icon `side` logical pixels square: a bold font of about a third of
    /// the side, a body at least about half the side, a ring of a sixteenth (at least one device pixel).
    package static func style(side: Double, scale: Double) -> BadgeStyle {
        var style = BadgeStyle()
        style.font = BadgeFont(size: max(6, side * 0.36), weight: .bold)
        style.minimumSize = side * 0.48
        style.horizontalPadding = side * 0.06
        style.verticalPadding = side * 0.02
        style.border = BadgeBorder(width: max(1 / scale, side / 16), color: .matchesSurface)
        return style
    }

    /// How `count` is written for an icon `side` logical pixels square: "9+" above 9 below 20
    /// pixels; below 32, two digits up to 99 and "9+" above (a "99+" badge would cover the whole
    /// icon there; the tooltip has the number); from 32 pixels on, "99+" above 99.
    package static func format(side: Double, count: Int = 0) -> BadgeFormat {
        var format = BadgeFormat()
        format.maximumCount = side < 20 || (side < 32 && count > 99) ? 9 : 99
        return format
    }

    /// Where the icon goes in `square`: 84 % of it, or the prerendered mask size just below that
    /// when it is at least 75 % (drawn without loading librsvg, which costs megabytes), centred
    /// on whole device pixels.
    private func iconRect(in square: Rect, scale: Double) -> Rect {
        let wanted = square.width * scale * 0.84
        var side = wanted.rounded()
        if let prerendered = icons.prerenderedSide(of: iconName, atMost: Int(wanted)), Double(prerendered) >= wanted * 0.75 {
            side = Double(prerendered)
        }
        let left = (square.minX * scale + (square.width * scale - side) / 2).rounded(.down)
        let top = (square.minY * scale + (square.height * scale - side) / 2).rounded(.down)
        return Rect(x: left / scale, y: top / scale, width: side / scale, height: side / scale)
    }

    /// The halo's mask for the icon drawn in `rect` (logical units) in a `width` × `height`
    /// device-pixel image: the icon's own mask, drawn alone, grown by ``IconHalo``.
    private func haloMask(around rect: Rect, scale: Double, width: Int, height: Int, side: Int) throws -> ImageSurface {
        let shape = try ImageSurface(width: width, height: height)
        try shape.draw { context in
            context.scale(by: scale)
            icons.draw(iconName, in: rect, color: .black, scale: scale, context: context)
        }
        var alpha = [UInt8](repeating: 0, count: width * height)
        for y in 0..<height {
            for x in 0..<width { alpha[y * width + x] = shape.pixel(x: x, y: y).alpha }
        }
        let coverage = IconHalo.coverage(around: alpha, width: width, height: height, radius: IconHalo.radius(side: side))
        let mask = try ImageSurface(width: width, height: height)
        for y in 0..<height {
            for x in 0..<width {
                let c = coverage[y * width + x]
                if c > 0 { mask.setPixel(x: x, y: y, alpha: c, red: c, green: c, blue: c) }
            }
        }
        return mask
    }

    private func badgeController(count: Int, in square: Rect, scale: Double) -> BadgeController {
        let badge = BadgeController(accessibilityLabel: "", content: count > 0 ? .count(count) : .none,
                                    format: Self.format(side: square.width, count: count), style: Self.style(side: square.width, scale: scale),
                                    clock: clock, measurer: text)
        badge.reducesMotion = true
        badge.layout(host: square, bounds: square, direction: .leftToRight, scale: scale)
        return badge
    }
}
