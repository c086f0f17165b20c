import BadgeCore
import CCairo

/// A contact sheet of every badge kind and state, and frames of each animation (bounce, roll,
/// blink, appear, disappear), at 1× and 2×, in the light and dark themes (`badge-demo --gallery`).
///
/// Every cell is a one-button toolbar drawn by `ToolbarRenderer`, with a manual clock, so the
/// sheet is deterministic and shows exactly what the live window shows.
package enum BadgeGallery {
    /// One cell: a caption and a toolbar button whose badge is set up by `prepare` at time 1.
    struct Cell {
        var caption: String
        var format = BadgeFormat()
        var initial: BadgeContent = .none
        var direction = LayoutDirection.leftToRight
        var change: ((BadgeController) -> Void)?
        var time = 1.0
        var confidence = BadgeConfidence.current
    }

    struct Row {
        var title: String
        var cells: [Cell]
    }

    static let cellSize = 64.0
    static let captionHeight = 14.0
    static let titleWidth = 86.0

    static var rows: [Row] {
        func count(_ n: Int, _ caption: String, format: BadgeFormat = BadgeFormat()) -> Cell {
            Cell(caption: caption, format: format, initial: .count(n))
        }
        var showZero = BadgeFormat(); showZero.hidesAtZero = false
        var thousands = BadgeFormat(); thousands.maximumCount = 999
        var grouped = BadgeFormat(); grouped.maximumCount = 99_999; grouped.groupsDigits = true
        var short = BadgeFormat(); short.maximumTextLength = 6
        var quietDot = BadgeFormat(); quietDot.doNotDisturb = .dot
        var quietHidden = BadgeFormat(); quietHidden.doNotDisturb = .hidden
        func frames(_ title: String, from: BadgeContent, duration: Double, change: @escaping (BadgeController) -> Void) -> Row {
            Row(title: title, cells: (0..<6).map { index in
                let t = duration * Double(index) / 5
                return Cell(caption: "\(Int((t * 1000).rounded())) ms", initial: from, change: change, time: 1 + t)
            })
        }
        return [
            Row(title: "Counts", cells: [count(3, "3"), count(12, "12"), count(120, "120 → 99+"),
                                         count(1500, "999+", format: thousands), count(0, "zero shown", format: showZero),
                                         count(0, "zero hidden")]),
            Row(title: "Text, dot", cells: [
                Cell(caption: "New", initial: .text("New")), Cell(caption: "一个信息", initial: .text("一个信息")),
                Cell(caption: "emoji", initial: .text("🔥")), Cell(caption: "Arabic", initial: .text("جديد")),
                Cell(caption: "truncated", format: short, initial: .text("Super long text")),
                Cell(caption: "dot", initial: .dot),
            ]),
            Row(title: "More", cells: [
                count(12_345, "grouped", format: grouped), Cell(caption: "RTL", initial: .count(7), direction: .rightToLeft),
                Cell(caption: "RTL text", initial: .text("جديد"), direction: .rightToLeft),
                count(8, "8"), count(42, "42"), count(99, "99"),
            ]),
            Row(title: "Trust", cells: [
                count(12, "current"), Cell(caption: "stale", initial: .count(12), confidence: .stale),
                Cell(caption: "last session", initial: .count(12), confidence: .lastSession),
                Cell(caption: "stale dot", initial: .dot, confidence: .stale),
                Cell(caption: "DND: dot", format: quietDot, initial: .count(12)),
                Cell(caption: "DND: hidden", format: quietHidden, initial: .count(12)),
            ]),
            frames("Bounce", from: .text("New"), duration: 0.2) { $0.setText("Hot") },
            frames("Roll 9 → 10", from: .count(9), duration: 0.3) { $0.increment() },
            frames("Roll 12 → 11", from: .count(12), duration: 0.3) { $0.decrement() },
            frames("Appear", from: .count(0), duration: 0.2) { $0.value = .count(5) },
            frames("Disappear", from: .count(5), duration: 0.2) { $0.clear() },
            frames("Blink", from: .none, duration: 1.2) { $0.showDot(blink: true) },
        ]
    }

    /// Renders the sheet and writes it as a PNG file.
    package static func render(to path: String) throws {
        try renderImage().writePNG(to: path)
    }

    /// Renders the sheet: light and dark at 1× on top, light and dark at 2× below.
    package static func renderImage() throws -> ImageSurface {
        let text = try TextLayouts()
        let icons = try IconLibrary()
        let panels = try [(Theme.light, 1.0), (Theme.dark, 1.0), (Theme.light, 2.0), (Theme.dark, 2.0)].map { theme, scale in
            try renderPanel(theme: theme, scale: scale, text: text, icons: icons)
        }
        let width = max(panels[0].width + panels[1].width, panels[2].width + panels[3].width)
        let height = max(panels[0].height, panels[1].height) + max(panels[2].height, panels[3].height)
        let sheet = try ImageSurface(width: width, height: height)
        try sheet.draw { context in
            context.withUnsafeHandle { cr in
                cairo_set_source_rgb(cr, 0.5, 0.5, 0.5)
                cairo_paint(cr)
                let origins = [(0, 0), (panels[0].width, 0), (0, panels[0].height), (panels[2].width, panels[0].height)]
                for (panel, origin) in zip(panels, origins) {
                    panel.withUnsafeSurface { cairo_set_source_surface(cr, $0, Double(origin.0), Double(origin.1)) }
                    cairo_paint(cr)
                }
            }
        }
        return sheet
    }

    static func renderPanel(theme: Theme, scale: Double, text: TextLayouts, icons: IconLibrary) throws -> ImageSurface {
        let rows = rows
        let columns = rows.map(\.cells.count).max() ?? 1
        let rowHeight = cellSize + captionHeight
        let logicalWidth = titleWidth + Double(columns) * cellSize + 8
        let logicalHeight = 26 + Double(rows.count) * rowHeight + 4
        let panel = try ImageSurface(width: Int(logicalWidth * scale), height: Int(logicalHeight * scale))
        let renderer = ToolbarRenderer(theme: theme, text: text, icons: icons)
        let captionFont = BadgeFont(family: "DejaVu Sans", size: 10, weight: .regular)
        let titleFont = BadgeFont(family: "DejaVu Sans", size: 11, weight: .bold)
        try panel.draw { context in context.withUnsafeHandle { cr in
            CairoPaths.setColor(cr, theme.background)
            cairo_paint(cr)
            cairo_save(cr)
            cairo_scale(cr, scale, scale)
            CairoPaths.setColor(cr, theme.foreground)
            text.draw("\(theme.name) · \(Int(scale))×", font: titleFont, at: Point(x: 8, y: 6), in: context)
            cairo_restore(cr)
            for (rowIndex, row) in rows.enumerated() {
                let top = 26 + Double(rowIndex) * rowHeight
                cairo_save(cr)
                cairo_scale(cr, scale, scale)
                CairoPaths.setColor(cr, theme.foreground)
                text.draw(row.title, font: titleFont, at: Point(x: 8, y: top + cellSize / 2 - 7), in: context)
                cairo_restore(cr)
                for (columnIndex, cell) in row.cells.enumerated() {
                    let left = titleWidth + Double(columnIndex) * cellSize
                    drawCell(cell, at: Point(x: left, y: top), scale: scale, renderer: renderer, text: text, context: context, cr: cr)
                    cairo_save(cr)
                    cairo_scale(cr, scale, scale)
                    CairoPaths.setColor(cr, theme.foreground, alpha: 0.7)
                    let width = text.extents(of: cell.caption, font: captionFont).logical.width
                    text.draw(cell.caption, font: captionFont, at: Point(x: left + (cellSize - width) / 2, y: top + cellSize - 2), in: context)
                    cairo_restore(cr)
                }
            }
        } }
        return panel
    }

    static func drawCell(_ cell: Cell, at origin: Point, scale: Double, renderer: ToolbarRenderer, text: TextLayouts, context: CairoContext, cr: OpaquePointer) {
        let clock = ManualClock(now: 0)
        let badge = BadgeController(accessibilityLabel: "Gallery", content: cell.initial, format: cell.format,
                                    clock: clock, measurer: text)
        let toolbar = Toolbar(buttons: [ToolbarButton(id: "cell", iconName: "bell", badge: badge)])
        toolbar.layout(size: Size(width: cellSize, height: cellSize), scale: scale, direction: cell.direction)
        clock.now = 1
        cell.change?(badge)
        badge.confidence = cell.confidence
        // The renderer paints the whole surface unless clipped: confine it to the cell, on whole device pixels.
        let x = (origin.x * scale).rounded(), y = (origin.y * scale).rounded()
        cairo_save(cr)
        cairo_rectangle(cr, x, y, (cellSize * scale).rounded(), (cellSize * scale).rounded())
        cairo_clip(cr)
        cairo_translate(cr, x, y)
        renderer.draw(toolbar, at: cell.time, in: context)
        cairo_restore(cr)
    }
}
