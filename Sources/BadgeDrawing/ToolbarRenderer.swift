import BadgeCore
import CCairo

/// Paints a whole toolbar (surface, button states, icons, badges) into any cairo context.
///
/// The same code draws the live window's back buffer, `--screenshot`, the golden-image tests and
/// the benchmarks. Not Sendable: one per event-loop thread.
public final class ToolbarRenderer {
    /// The shaped-text cache; also the badges' text measurer.
    public let text: TextLayouts
    /// The icons the buttons show.
    public let icons: IconLibrary
    /// The toolbar's colours.
    public var theme: Theme
    private let badges: BadgeRenderer

    /// Creates a renderer with the bundled icons.
    public init(theme: Theme, text: TextLayouts, icons: IconLibrary) {
        self.theme = theme
        self.text = text
        self.icons = icons
        badges = BadgeRenderer(text: text)
    }

    /// Paints `toolbar` as it looks at `time` into `cr`, whose user space is in device pixels.
    /// With `clip`, only that logical rectangle is repainted (damage-limited redraw).
    public func draw(_ toolbar: Toolbar, at time: Double, in context: CairoContext, clip: Rect? = nil) {
        context.withUnsafeHandle { cr in draw(toolbar, at: time, context: context, cr: cr, clip: clip) }
    }

    private func draw(_ toolbar: Toolbar, at time: Double, context: CairoContext, cr: OpaquePointer, clip: Rect?) {
        let scale = toolbar.scale
        cairo_save(cr)
        defer { cairo_restore(cr) }
        cairo_scale(cr, scale, scale)
        if let clip {
            cairo_rectangle(cr, clip.minX, clip.minY, clip.width, clip.height)
            cairo_clip(cr)
        }
        let bounds = toolbar.bounds
        cairo_set_operator(cr, CAIRO_OPERATOR_SOURCE)
        CairoPaths.setColor(cr, theme.background)
        cairo_paint(cr)
        cairo_set_operator(cr, CAIRO_OPERATOR_OVER)
        // A hairline of one device pixel along the bottom edge.
        CairoPaths.setColor(cr, theme.separator)
        cairo_rectangle(cr, 0, bounds.height - 1 / scale, bounds.width, 1 / scale)
        cairo_fill(cr)

        // A clipped redraw only touches the buttons (and badges) inside the clip: the cost of a frame
        // in which one badge animates does not grow with the number of buttons.
        let visibleButtons = clip.map { toolbar.buttons(intersecting: $0) } ?? toolbar.buttons
        for button in visibleButtons {
            drawButtonSurface(button, ring: button.isFocused && toolbar.focusIsVisible, toolbarScale: scale, cr: cr)
        }
        let presentations = visibleButtons.map { $0.badge.presentation(at: time) }
        // Icons go into a group from which the badges' rings are cut out (libadwaita-style knockout).
        cairo_push_group(cr)
        for button in visibleButtons {
            drawIcon(button, scale: scale, context: context, cr: cr)
        }
        for (button, presentation) in zip(visibleButtons, presentations) {
            badges.cutOutRing(presentation, style: button.badge.style, in: context)
        }
        cairo_pop_group_to_source(cr)
        cairo_paint(cr)
        for (button, presentation) in zip(visibleButtons, presentations) where presentation.isVisible {
            badges.draw(presentation, style: button.badge.style, surface: surfaceColor(of: button), ringIsCutOut: true,
                        confidence: button.badge.confidence, in: context)
        }
    }

    /// Renders `toolbar` off-screen at its current size and scale.
    public func renderImage(_ toolbar: Toolbar, at time: Double) throws -> ImageSurface {
        let size = toolbar.bounds.size.pixels(scale: toolbar.scale)
        let image = try ImageSurface(width: size.width, height: size.height)
        try image.draw { cr in draw(toolbar, at: time, in: cr) }
        return image
    }

    /// The opaque colour behind a button's badge: the toolbar, or the hover or pressed surface.
    public func surfaceColor(of button: ToolbarButton) -> Color {
        if button.isPressed { return theme.pressedBackground.composited(over: theme.background) }
        if button.isHovered { return theme.hoverBackground.composited(over: theme.background) }
        return theme.background
    }

    private func drawButtonSurface(_ button: ToolbarButton, ring: Bool, toolbarScale: Double, cr: OpaquePointer) {
        let frame = button.frame
        if button.isPressed || button.isHovered {
            CairoPaths.roundedRect(cr, frame, radius: 8)
            CairoPaths.setColor(cr, button.isPressed ? theme.pressedBackground : theme.hoverBackground)
            cairo_fill(cr)
        }
        if ring {
            // A ring of whole device pixels (2 logical, rounded), stroked on the pixel grid.
            let scale = max(toolbarScale, 0.5)
            let width = max(1, (2 * scale).rounded()) / scale
            CairoPaths.roundedRect(cr, frame.insetBy(dx: width / 2, dy: width / 2), radius: 8 - width / 2)
            cairo_set_line_width(cr, width)
            CairoPaths.setColor(cr, theme.focusRing)
            cairo_stroke(cr)
        }
    }

    private func drawIcon(_ button: ToolbarButton, scale: Double, context: CairoContext, cr: OpaquePointer) {
        if !icons.draw(button.iconName, in: button.iconFrame, color: theme.foreground, scale: scale, context: context) {
            // An icon that cannot be drawn still shows a visible placeholder, never a blank button.
            CairoPaths.roundedRect(cr, button.iconFrame.insetBy(dx: 3, dy: 3), radius: 3)
            cairo_set_line_width(cr, 1.5)
            CairoPaths.setColor(cr, theme.foreground)
            cairo_stroke(cr)
        }
    }
}
