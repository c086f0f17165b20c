import BadgeCore
import BadgeDrawing
import TestSupport
import Testing

/// The tray icon: the bell with the count drawn in, at the sizes trays ask for.
@Suite(.drawsWithCairo) struct TrayIconTests {
    static let sizes = [16, 22, 32, 48]
    static let counts = [3, 42, 120]

    @Test("Golden tray icons: 16, 22, 32 and 48 px with 3, 42 and 120, light and dark",
          arguments: sizes)
    func golden(size: Int) throws {
        let renderer = try TrayIconRenderer(icons: IconLibrary(), text: TextLayouts())
        for theme in [Theme.light, Theme.dark] {
            for count in Self.counts {
                let image = try renderer.image(width: size, height: size, count: count, theme: theme)
                try GoldenImage.assertMatches(image, named: "tray-\(theme.name)-\(size)-\(count)")
            }
        }
    }

    @Test("The badge is red, in the top-trailing corner, and inside the icon")
    func badgeInCorner() throws {
        let renderer = try TrayIconRenderer(icons: IconLibrary(), text: TextLayouts())
        for size in Self.sizes {
            let image = try renderer.image(width: size, height: size, count: 3, theme: .light)
            let reds = redPixels(image)
            #expect(!reds.isEmpty, "\(size) px: no red badge pixels")
            // Every red pixel is in the top-right quadrant's neighbourhood (the badge, not the bell).
            #expect(reds.allSatisfy { $0.x >= size / 3 && $0.y < size * 2 / 3 }, "\(size) px: red outside the corner")
            let plain = try renderer.image(width: size, height: size, count: 0, theme: .light)
            #expect(redPixels(plain).isEmpty, "\(size) px: a count of 0 draws a badge")
        }
    }

    @Test("At scale 2 the icon is the scale-1 icon drawn with twice the pixels (crisp, same place)")
    func deviceScale() throws {
        let renderer = try TrayIconRenderer(icons: IconLibrary(), text: TextLayouts())
        let one = try renderer.image(width: 24, height: 24, scale: 1, count: 5, theme: .light)
        let two = try renderer.image(width: 48, height: 48, scale: 2, count: 5, theme: .light)
        let boxOne = bounds(redPixels(one)), boxTwo = bounds(redPixels(two))
        #expect(abs(boxTwo.minX - 2 * boxOne.minX) <= 2 && abs(boxTwo.maxY - 2 * boxOne.maxY) <= 2,
                "badge at 1x \(boxOne), at 2x \(boxTwo)")
    }

    @Test("A wide tray slot draws the icon in the centred square, with a background when asked")
    func wideSlot() throws {
        let renderer = try TrayIconRenderer(icons: IconLibrary(), text: TextLayouts())
        let image = try renderer.image(width: 40, height: 24, count: 7, theme: .dark, background: Theme.dark.background)
        #expect(image.pixel(x: 0, y: 12).alpha == 255, "the background is painted")
        let reds = redPixels(image)
        #expect(!reds.isEmpty && reds.allSatisfy { $0.x >= 8 && $0.x < 32 }, "the badge stays in the square")
    }

    @Test("Straight-alpha bytes are A, R, G, B in network order")
    func networkOrder() throws {
        let image = try ImageSurface(width: 1, height: 1)
        image.setPixel(x: 0, y: 0, alpha: 128, red: 64, green: 32, blue: 0)
        #expect(image.straightAlphaBytesBigEndian() == [128, 128, 64, 0])
    }

    private func redPixels(_ image: ImageSurface) -> [(x: Int, y: Int)] {
        var found: [(x: Int, y: Int)] = []
        for y in 0..<image.height {
            for x in 0..<image.width {
                let p = image.pixel(x: x, y: y)
                if p.alpha > 200, p.red > 170, p.green < 120, p.blue < 120 { found.append((x, y)) }
            }
        }
        return found
    }

    private func bounds(_ points: [(x: Int, y: Int)]) -> (minX: Int, maxY: Int) {
        (points.map(\.x).min() ?? 0, points.map(\.y).max() ?? 0)
    }
}
