import BadgeCore
import CCairo

/// Draws a peek: its rows (title, a quieter detail under it, a relative time at the far end), the
/// highlighted row, notes in italics-free grey, in the toolbar's theme, at a device scale and
/// mirrored for right-to-left. Text too wide for the row ends in "…".
///
/// Not Sendable: uses the event-loop thread's ``TextLayouts``.
public final class PeekRenderer {
    /// The title's font.
    public static let titleFont = BadgeFont(family: "DejaVu Sans", size: 13, weight: .regular)
    /// The detail's and the time's font.
    public static let detailFont = BadgeFont(family: "DejaVu Sans", size: 11, weight: .regular)
    /// The narrowest and widest a peek is, in logical units.
    public static let widthRange = (minimum: 220.0, maximum: 420.0)
    /// Space around the rows and inside each, in logical units.
    public static let padding = (outer: 4.0, horizontal: 10.0, vertical: 6.0)

    /// Where each row is, in logical units, and the whole size in device pixels.
    public struct Layout: Hashable, Sendable {
        /// Each row's frame (logical units, from the popup's top-left).
        public var rows: [Rect]
        /// The popup's size in logical units.
        public var size: Size
        /// The device scale it was laid out at.
        public var scale: Double

        /// The popup's size in device pixels.
        public var pixelSize: (width: Int, height: Int) {
            (max(1, Int((size.width * scale).rounded(.up))), max(1, Int((size.height * scale).rounded(.up))))
        }

        /// The row under the point (`x`, `y`) in device pixels from the popup's top-left, or nil.
        public func row(atPixelX x: Int, y: Int) -> Int? {
            let point = Point(x: (Double(x) + 0.5) / scale, y: (Double(y) + 0.5) / scale)
            return rows.firstIndex { $0.contains(point) }
        }
    }

    private let text: TextLayouts
    private let icons: IconLibrary?

    /// The side of a row's origin icon, and the space after it, in logical units.
    public static let iconSide = 16.0, iconGap = 8.0

    /// A renderer that shapes text with `text` and draws rows' origin icons from `icons` (only
    /// from their prerendered masks: a peek never loads librsvg).
    public init(text: TextLayouts, icons: IconLibrary? = nil) {
        self.text = text
        self.icons = icons
    }

    /// Whether `row`'s icon is drawn at `scale`: a bundled icon with a prerendered mask near 16 px.
    private func drawsIcon(_ row: PeekRow, scale: Double) -> Bool {
        guard let name = row.iconName, let icons else { return false }
        return icons.prerenderedSide(of: name, atMost: Int((Self.iconSide * scale).rounded())) != nil
    }

    /// The room the icons take at the start of every row (0 when no row draws one).
    private func iconIndent(_ rows: [PeekRow], scale: Double) -> Double {
        rows.contains { drawsIcon($0, scale: scale) } ? Self.iconSide + Self.iconGap : 0
    }

    /// Lays `rows` out at `scale`: as wide as the widest row needs, within ``widthRange`` and
    /// `maximumWidth` (logical units: the work area's width, so text is cut with "…", never by the edge).
    public func layout(_ rows: [PeekRow], scale: Double, maximumWidth: Double = .infinity) -> Layout {
        let pad = Self.padding
        var widest = 0.0
        for row in rows {
            let trailing = row.trailing.map { text.size(of: $0, font: Self.detailFont).width + pad.horizontal } ?? 0
            let title = text.size(of: row.title, font: Self.titleFont).width
            let detail = row.detail.map { text.size(of: $0, font: Self.detailFont).width } ?? 0
            widest = max(widest, max(title + trailing, detail))
        }
        widest += iconIndent(rows, scale: scale)
        let fitting = min(Self.widthRange.maximum, max(Self.widthRange.minimum, widest + 2 * pad.horizontal + 2 * pad.outer))
        let width = max(40, min(fitting, maximumWidth.isFinite ? (maximumWidth * scale).rounded(.down) / scale : fitting))
        var y = pad.outer
        var frames: [Rect] = []
        for row in rows {
            let height = rowHeight(row)
            frames.append(Rect(x: pad.outer, y: y, width: width - 2 * pad.outer, height: height))
            y += height
        }
        return Layout(rows: frames, size: Size(width: width, height: y + pad.outer), scale: scale)
    }

    /// The height of `row`, in logical units: a title line, and a detail line when it has one
    /// (what a note that stands for cut rows takes: `PeekPlacement`'s fit).
    public func rowHeight(_ row: PeekRow) -> Double {
        let title = text.size(of: "Ag", font: Self.titleFont).height
        let detail = row.detail == nil ? 0 : text.size(of: "Ag", font: Self.detailFont).height + 1
        return (title + detail + 2 * Self.padding.vertical).rounded(.up)
    }

    /// Paints `rows` laid out as `layout` into `context` (device pixels), `highlighted` drawn as
    /// the theme's hover, mirrored when `direction` is right-to-left.
    public func draw(_ rows: [PeekRow], layout: Layout, highlighted: Int?, theme: Theme, direction: LayoutDirection,
                     in context: CairoContext) {
        let scale = layout.scale
        context.withUnsafeHandle { cr in
            cairo_save(cr)
            cairo_set_operator(cr, CAIRO_OPERATOR_SOURCE)
            cairo_set_source_rgb(cr, theme.background.red, theme.background.green, theme.background.blue)
            cairo_paint(cr)
            cairo_set_operator(cr, CAIRO_OPERATOR_OVER)
            cairo_set_source_rgb(cr, theme.separator.red, theme.separator.green, theme.separator.blue)
            cairo_set_line_width(cr, 1)
            let (width, height) = layout.pixelSize
            cairo_rectangle(cr, 0.5, 0.5, Double(width) - 1, Double(height) - 1)
            cairo_stroke(cr)
            cairo_scale(cr, scale, scale)
        }
        let quiet = theme.foreground.withAlpha(0.62)
        let pad = Self.padding
        let indent = iconIndent(rows, scale: scale)
        for (index, row) in rows.enumerated() where index < layout.rows.count {
            let frame = layout.rows[index]
            if index == highlighted {
                context.fill(frame, color: theme.hoverBackground.withAlpha(max(theme.hoverBackground.alpha, 0.12)), cornerRadius: 4)
                context.fill(frame, color: theme.focusRing.withAlpha(0.18), cornerRadius: 4)
            }
            if drawsIcon(row, scale: scale), let name = row.iconName, let icons,
               let side = icons.prerenderedSide(of: name, atMost: Int((Self.iconSide * scale).rounded())) {
                let logical = Double(side) / scale
                let x = direction == .rightToLeft ? frame.maxX - pad.horizontal - logical : frame.minX + pad.horizontal
                icons.draw(name, in: Rect(x: x, y: frame.minY + pad.vertical + 1, width: logical, height: logical),
                           color: row.isActionable ? theme.foreground : quiet, scale: scale, context: context)
            }
            let inner = frame.width - 2 * pad.horizontal - indent
            var trailingWidth = 0.0
            if let trailing = row.trailing {
                trailingWidth = text.size(of: trailing, font: Self.detailFont).width
                let x = direction == .rightToLeft ? frame.minX + pad.horizontal : frame.maxX - pad.horizontal - trailingWidth
                text.draw(trailing, font: Self.detailFont, at: Point(x: x, y: frame.minY + pad.vertical + 2), color: quiet, in: context)
                trailingWidth += pad.horizontal
            }
            let title = fitted(row.title, font: Self.titleFont, width: inner - trailingWidth)
            let titleWidth = text.size(of: title, font: Self.titleFont).width
            let titleX = direction == .rightToLeft ? frame.maxX - pad.horizontal - indent - titleWidth : frame.minX + pad.horizontal + indent
            text.draw(title, font: Self.titleFont, at: Point(x: titleX, y: frame.minY + pad.vertical),
                      color: row.isActionable ? theme.foreground : quiet, in: context)
            if let detail = row.detail {
                let shown = fitted(detail, font: Self.detailFont, width: inner)
                let detailWidth = text.size(of: shown, font: Self.detailFont).width
                let x = direction == .rightToLeft ? frame.maxX - pad.horizontal - indent - detailWidth : frame.minX + pad.horizontal + indent
                let y = frame.minY + pad.vertical + text.size(of: "Ag", font: Self.titleFont).height + 1
                text.draw(shown, font: Self.detailFont, at: Point(x: x, y: y), color: quiet, in: context)
            }
        }
        context.withUnsafeHandle { cairo_restore($0) }
    }

    /// `text` as it fits in `width`: whole, or its first characters and "…".
    private func fitted(_ string: String, font: BadgeFont, width: Double) -> String {
        guard text.size(of: string, font: font).width > width else { return string }
        var characters = Array(string)
        // Halve, then step: at most a few dozen measurements for a 512-byte title.
        while characters.count > 8, text.size(of: String(characters.prefix(characters.count / 2)) + "…", font: font).width > width {
            characters = Array(characters.prefix(characters.count / 2))
        }
        while !characters.isEmpty, text.size(of: String(characters) + "…", font: font).width > width {
            characters.removeLast(max(1, characters.count / 16))
        }
        return String(characters) + "…"
    }
}
