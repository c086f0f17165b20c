import BadgeCore
import BadgeDrawing
import TestSupport
import Testing

/// The peek's drawing: golden images in both themes and directions, the width kept within the
/// work area with text cut by "…", and the highlighted row drawn apart.
@Suite(.drawsWithCairo) struct PeekRenderingTests {
    static let rows = [
        PeekRow(title: "Bob", detail: "The build is broken again", trailing: "just now", iconName: "mail"),
        PeekRow(title: "Alice Smith", detail: "Lunch at noon?", trailing: "2 min ago"),
        PeekRow(title: "Carol", trailing: "yesterday"),
        PeekRow(title: "and 30 more", isActionable: false),
    ]

    func image(_ rows: [PeekRow], theme: Theme, direction: LayoutDirection, highlighted: Int?, scale: Double = 1,
               maximumWidth: Double = .infinity) throws -> (ImageSurface, PeekRenderer.Layout) {
        let renderer = PeekRenderer(text: try TextLayouts(), icons: try IconLibrary())
        let layout = renderer.layout(rows, scale: scale, maximumWidth: maximumWidth)
        let (width, height) = layout.pixelSize
        let image = try ImageSurface(width: width, height: height)
        try image.draw { renderer.draw(rows, layout: layout, highlighted: highlighted, theme: theme, direction: direction, in: $0) }
        return (image, layout)
    }

    @Test("Golden peeks: light and dark, left-to-right and right-to-left, the second row highlighted")
    func golden() throws {
        for theme in [Theme.light, Theme.dark] {
            for direction in [LayoutDirection.leftToRight, .rightToLeft] {
                let (image, _) = try image(Self.rows, theme: theme, direction: direction, highlighted: 1)
                try GoldenImage.assertMatches(image, named: "peek-\(theme.name)-\(direction == .leftToRight ? "ltr" : "rtl")")
            }
        }
    }

    @Test("A bundled icon is drawn at the row's start from its prerendered mask; an unknown one leaves no room")
    func icons() throws {
        let plain = [PeekRow(title: "Bob", iconName: "no-such-icon")]
        let (_, without) = try image(plain, theme: .light, direction: .leftToRight, highlighted: nil)
        let (withIcon, with) = try image([PeekRow(title: "Bob", iconName: "mail")], theme: .light, direction: .leftToRight, highlighted: nil)
        #expect(with.size.width >= without.size.width)
        // Ink in the icon's square at the row's start (padding 4 + 10).
        var ink = 0
        for y in 10..<26 {
            for x in 14..<30 where withIcon.pixel(x: x, y: y).blue < 0x90 { ink += 1 }
        }
        #expect(ink > 10, "no icon drawn")
    }

    @Test("Rows stack without gaps; the widest row sets the width within the range and the work area")
    func layout() throws {
        let (_, layout) = try image(Self.rows, theme: .light, direction: .leftToRight, highlighted: nil)
        #expect(layout.rows.count == 4)
        for (upper, lower) in zip(layout.rows, layout.rows.dropFirst()) { #expect(upper.maxY == lower.minY) }
        #expect(layout.rows[0].height > layout.rows[2].height, "a row with a detail is taller")
        #expect(layout.size.width >= PeekRenderer.widthRange.minimum && layout.size.width <= PeekRenderer.widthRange.maximum)
        let long = [PeekRow(title: String(repeating: "very long title ", count: 20))]
        let (narrow, cut) = try image(long, theme: .light, direction: .leftToRight, highlighted: nil, scale: 2, maximumWidth: 300)
        #expect(cut.size.width <= 300 && narrow.width <= 600)
        #expect(cut.row(atPixelX: 10, y: Int(cut.rows[0].midY * 2)) == 0)
        #expect(cut.row(atPixelX: 10, y: 0) == nil)
    }
}
