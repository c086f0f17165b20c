import BadgeCore
import CCairo

/// Draws one badge presentation (body, ring, text runs with their roll offsets) into a cairo context.
///
/// Geometry comes from the badge core; this type only paints. The context's user space must be in
/// logical units (the caller applies the device scale).
public final class BadgeRenderer {
    private let text: TextLayouts

    /// Creates a renderer that shapes text through `text`.
    public init(text: TextLayouts) {
        self.text = text
    }

    /// Paints `presentation` in `style`. `surface` is the opaque colour behind the badge, used by a
    /// ring whose colour follows the surface (so the badge reads on light and dark toolbars).
    /// With `ringIsCutOut`, a surface-coloured ring is not painted: the caller has already cut it
    /// out of the icon underneath (see `cutOutRing`), which is exact over any background.
    /// `confidence` chooses the look of a source's value: current (the style as given), stale (the
    /// style's grey `staleColor` fill) or last session (outlined: the surface inside a ring of the
    /// badge colour, and the text in that colour).
    public func draw(_ presentation: BadgePresentation, style: BadgeStyle, surface: Color, ringIsCutOut: Bool = false,
                     confidence: BadgeConfidence = .current, in context: CairoContext) {
        context.withUnsafeHandle { cr in
            draw(presentation, style: style, surface: surface, ringIsCutOut: ringIsCutOut, confidence: confidence,
                 context: context, cr: cr)
        }
    }

    private func draw(_ presentation: BadgePresentation, style: BadgeStyle, surface: Color, ringIsCutOut: Bool,
                      confidence: BadgeConfidence, context: CairoContext, cr: OpaquePointer) {
        guard presentation.isVisible, let frame = presentation.frame, Self.isDrawable(presentation) else { return }
        cairo_save(cr)
        defer { cairo_restore(cr) }
        Self.applyScale(of: presentation, about: frame, cr)
        let translucent = presentation.opacity < 1
        if translucent { cairo_push_group(cr) }

        let radius = frame.height / 2
        if let border = style.border, border.width > 0, border.width.isFinite,
           !(ringIsCutOut && border.color == .matchesSurface) {
            let ring: Color
            switch border.color {
            case .fixed(let color): ring = color
            case .matchesSurface: ring = surface
            }
            CairoPaths.roundedRect(cr, frame.insetBy(dx: -border.width, dy: -border.width), radius: radius + border.width)
            CairoPaths.setColor(cr, ring)
            cairo_fill(cr)
        }
        CairoPaths.roundedRect(cr, frame, radius: radius)
        var textColor = style.textColor
        switch confidence {
        case .current:
            CairoPaths.setColor(cr, style.backgroundColor)
        case .stale:
            CairoPaths.setColor(cr, style.staleColor)
        case .lastSession, .pending:
            // Outlined: a ring of the badge colour (a tenth of the height, at least 1.25 px), the
            // surface inside, the text in the badge colour.
            CairoPaths.setColor(cr, style.backgroundColor)
            cairo_fill(cr)
            let ring = max(1.25, frame.height / 10)
            CairoPaths.roundedRect(cr, frame.insetBy(dx: ring, dy: ring), radius: max(0, radius - ring))
            CairoPaths.setColor(cr, surface)
            textColor = style.backgroundColor
        }
        if case .text(let label) = presentation.label {
            cairo_fill(cr)
            CairoPaths.roundedRect(cr, frame, radius: radius)
            cairo_clip(cr)
            CairoPaths.setColor(cr, textColor)
            drawText(label, runs: presentation.runs, font: style.font, frame: frame, in: context)
        } else {
            cairo_fill(cr)
        }

        if translucent {
            cairo_pop_group_to_source(cr)
            cairo_paint_with_alpha(cr, max(0, presentation.opacity))
        }
    }

    /// Whether the badge covers anything once its scale is quantised: the last frames of a shrink
    /// (scale below 1/64) round to 0, and scaling a cairo context by 0 would put it in an error
    /// state that fails the whole frame.
    private static func isDrawable(_ presentation: BadgePresentation) -> Bool {
        quantized(presentation.scale) > 0
    }

    /// Scales the context about the badge's centre by the presentation's (quantised) scale.
    private static func applyScale(of presentation: BadgePresentation, about frame: Rect, _ cr: OpaquePointer) {
        let scale = quantized(presentation.scale)
        guard scale != 1 else { return }
        cairo_translate(cr, frame.midX, frame.midY)
        cairo_scale(cr, scale, scale)
        cairo_translate(cr, -frame.midX, -frame.midY)
    }

    /// Animation scales in steps of 1/32: text is rasterised per distinct font matrix, so free-running
    /// scales would fill cairo's font and glyph caches with one entry per frame of every bounce.
    /// A 1/32 step is far below what the eye sees in a 0.2 s bounce.
    static func quantized(_ scale: Double) -> Double {
        guard scale.isFinite else { return 1 }
        return (scale * 32).rounded() / 32
    }

    /// Removes the badge's ring area from what is already drawn in the current group (the icons), so
    /// the surface behind shows through: a knockout ring that matches any theme, hover or pressed state.
    public func cutOutRing(_ presentation: BadgePresentation, style: BadgeStyle, in context: CairoContext) {
        guard presentation.isVisible, let frame = presentation.frame, let border = style.border,
              border.color == .matchesSurface, border.width > 0, border.width.isFinite,
              Self.isDrawable(presentation) else { return }
        context.withUnsafeHandle { cr in
            cairo_save(cr)
            defer { cairo_restore(cr) }
            Self.applyScale(of: presentation, about: frame, cr)
            CairoPaths.roundedRect(cr, frame.insetBy(dx: -border.width, dy: -border.width), radius: frame.height / 2 + border.width)
            cairo_set_operator(cr, CAIRO_OPERATOR_DEST_OUT)
            cairo_set_source_rgba(cr, 0, 0, 0, max(0, min(1, presentation.opacity)))
            cairo_fill(cr)
        }
    }

    /// Centres the label by its ink bounds; rolling runs are placed by their advances and shifted by
    /// the same ink correction, so the last frame of a roll matches the rest frame exactly.
    private func drawText(_ label: String, runs: [BadgeTextRun], font: BadgeFont, frame: Rect, in context: CairoContext) {
        let whole = text.extents(of: label, font: font)
        let top = frame.midY - whole.ink.midY
        let rolling = runs.contains { $0.outgoingText != nil || $0.rollOffset != 0 }
        guard rolling else {
            text.draw(label, font: font, at: Point(x: frame.midX - whole.ink.midX, y: top), in: context)
            return
        }
        let advance = runs.reduce(0) { $0 + $1.width }
        var x = frame.midX - advance / 2 + (whole.logical.midX - whole.ink.midX)
        let travel = frame.height
        for run in runs {
            if !run.text.isEmpty {
                text.draw(run.text, font: font, at: Point(x: x, y: top + run.rollOffset * travel), in: context)
            }
            if let outgoing = run.outgoingText, !outgoing.isEmpty {
                let offset = run.rollOffset - Double(run.direction)
                text.draw(outgoing, font: font, at: Point(x: x, y: top + offset * travel), in: context)
            }
            x += run.width
        }
    }
}
