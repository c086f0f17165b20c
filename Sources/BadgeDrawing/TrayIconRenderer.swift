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
    public func image(width: Int, height: Int, scale: Double = 1, count: Int, theme: Theme,
                      background: Color? = nil, backdrop: ImageSurface? = nil) throws -> ImageSurface {
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
            icons.draw(iconName, in: iconRect(in: square, scale: scale), color: theme.foreground, scale: scale, context: context)
            renderer.cutOutRing(presentation, style: badge.style, in: context)
            context.withUnsafeHandle { cr in
                cairo_pop_group_to_source(cr)
                cairo_paint(cr)
            }
            renderer.draw(presentation, style: badge.style, surface: surface, ringIsCutOut: true, in: context)
        }
        return image
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

    private func badgeController(count: Int, in square: Rect, scale: Double) -> BadgeController {
        let badge = BadgeController(accessibilityLabel: "", content: count > 0 ? .count(count) : .none,
                                    format: Self.format(side: square.width, count: count), style: Self.style(side: square.width, scale: scale),
                                    clock: clock, measurer: text)
        badge.reducesMotion = true
        badge.layout(host: square, bounds: square, direction: .leftToRight, scale: scale)
        return badge
    }
}
