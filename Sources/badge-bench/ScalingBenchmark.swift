import BadgeCore
import Glibc
import BadgeDrawing
import CCairo

/// Frame cost against the number of badge buttons: a frame in which one badge animates
/// (damage-limited: only the changed rectangle is redrawn) must stay flat, a full redraw grows linearly.
enum ScalingBenchmark {
    struct Point {
        var buttons: Int
        var damageLimited: Double
        var fullRedraw: Double
    }

    static let counts = [1, 10, 100, 1000]

    static func run(text: TextLayouts, icons: IconLibrary) throws -> [Point] {
        try counts.map { count in
            let clock = ManualClock(now: 1)
            let buttons = (0..<count).map { index in
                ToolbarButton(id: "b\(index)", iconName: index % 2 == 0 ? "bell" : "mail",
                              badge: BadgeController(accessibilityLabel: "B", content: .count(index % 120 + 1), clock: clock, measurer: text))
            }
            var metrics = ToolbarMetrics()
            metrics.maximumColumns = 40
            let toolbar = Toolbar(buttons: buttons, metrics: metrics)
            toolbar.layout(size: toolbar.preferredSize, scale: 1, direction: .leftToRight)
            let renderer = ToolbarRenderer(theme: .light, text: text, icons: icons)
            let image = try ImageSurface(width: Int(toolbar.bounds.width), height: Int(toolbar.bounds.height))
            try image.draw { context in renderer.draw(toolbar, at: clock.now, in: context) }
            _ = toolbar.takeDamage()

            var full: [Double] = []
            for _ in 0..<max(5, 200 / count) {
                full.append(try Statistics.time { try image.draw { context in renderer.draw(toolbar, at: clock.now, in: context) } })
            }
            let animated = buttons[count / 2].badge
            var limited: [Double] = []
            for round in 0..<240 {
                if round % 20 == 0 { animated.increment() }
                clock.advance(by: 1.0 / 60)
                limited.append(try Statistics.time {
                    if let damage = toolbar.takeDamage() {
                        try image.draw { context in renderer.draw(toolbar, at: clock.now, in: context, clip: damage) }
                    }
                })
            }
            return Point(buttons: count, damageLimited: Statistics.median(limited), fullRedraw: Statistics.median(full))
        }
    }

    /// Writes a log-log plot of both curves as a PNG.
    static func plot(_ points: [Point], text: TextLayouts, to path: String) throws {
        let width = 640.0, height = 360.0, left = 70.0, right = 40.0, top = 40.0, bottom = 50.0
        let image = try ImageSurface(width: Int(width), height: Int(height))
        let values = points.flatMap { [$0.damageLimited, $0.fullRedraw] }.map { $0 * 1e3 }
        let lowest = log10(max(values.min() ?? 0.001, 1e-4)).rounded(.down)
        let highest = log10(max(values.max() ?? 1, 1e-3)).rounded(.up)
        func x(_ buttons: Int) -> Double { left + log10(Double(buttons)) / 3 * (width - left - right) }
        func y(_ ms: Double) -> Double {
            top + (1 - (log10(max(ms, 1e-4)) - lowest) / max(highest - lowest, 1)) * (height - top - bottom)
        }
        let font = BadgeFont(family: "DejaVu Sans", size: 12, weight: .regular)
        try image.draw { context in context.withUnsafeHandle { cr in
            cairo_set_source_rgb(cr, 1, 1, 1)
            cairo_paint(cr)
            cairo_set_source_rgb(cr, 0.2, 0.2, 0.2)
            text.draw("Frame cost vs. badge buttons (ms, log-log)", font: BadgeFont(family: "DejaVu Sans", size: 14, weight: .bold),
                      at: BadgeCore.Point(x: left, y: 10), in: context)
            cairo_set_line_width(cr, 1)
            for decade in stride(from: lowest, through: highest, by: 1) {
                let yy = y(pow10(decade)).rounded() + 0.5
                cairo_set_source_rgb(cr, 0.88, 0.88, 0.88)
                cairo_move_to(cr, left, yy); cairo_line_to(cr, width - right, yy); cairo_stroke(cr)
                cairo_set_source_rgb(cr, 0.3, 0.3, 0.3)
                text.draw(Statistics.format(pow10(decade), digits: decade < 0 ? Int(-decade) : 0), font: font,
                          at: BadgeCore.Point(x: 8, y: yy - 8), in: context)
            }
            for count in counts {
                let xx = x(count).rounded() + 0.5
                cairo_set_source_rgb(cr, 0.88, 0.88, 0.88)
                cairo_move_to(cr, xx, top); cairo_line_to(cr, xx, height - bottom); cairo_stroke(cr)
                cairo_set_source_rgb(cr, 0.3, 0.3, 0.3)
                let label = "\(count)"
                let labelWidth = text.extents(of: label, font: font).logical.width
                text.draw(label, font: font, at: BadgeCore.Point(x: xx - labelWidth / 2, y: height - bottom + 6), in: context)
            }
            text.draw("badge buttons in the window", font: font, at: BadgeCore.Point(x: width / 2 - 80, y: height - 22), in: context)
            let series: [(String, (Point) -> Double, (Double, Double, Double))] = [
                ("full redraw", { $0.fullRedraw }, (0.2, 0.4, 0.8)),
                ("one badge animating (damage-limited)", { $0.damageLimited }, (0.85, 0.2, 0.2)),
            ]
            for (index, (name, value, colour)) in series.enumerated() {
                cairo_set_source_rgb(cr, colour.0, colour.1, colour.2)
                cairo_set_line_width(cr, 2.5)
                for (i, point) in points.enumerated() {
                    let px = x(point.buttons), py = y(value(point) * 1e3)
                    if i == 0 { cairo_move_to(cr, px, py) } else { cairo_line_to(cr, px, py) }
                }
                cairo_stroke(cr)
                for point in points {
                    cairo_arc(cr, x(point.buttons), y(value(point) * 1e3), 4, 0, 2 * Double.pi)
                    cairo_fill(cr)
                }
                let legendY = top + 6 + Double(index) * 18
                cairo_rectangle(cr, left + 12, legendY + 4, 14, 4)
                cairo_fill(cr)
                cairo_set_source_rgb(cr, 0.2, 0.2, 0.2)
                text.draw(name, font: font, at: BadgeCore.Point(x: left + 32, y: legendY - 2), in: context)
            }
        } }
        try image.writePNG(to: path)
    }

    private static func log10(_ value: Double) -> Double { Glibc.log10(value) }
    private static func pow10(_ value: Double) -> Double { Glibc.pow(10, value) }
}
