import BadgeCore
import BadgeDrawing
import TestSupport
import Testing
import XvfbHarness

/// The StatusNotifierItem's pixmaps read on any bar: a host cannot be asked for its background
/// (swaybar's is black, many panels are white or light grey), so the bell is haloed. Measured on
/// the bytes `IconPixmap` carries, composited over each background (``PixmapLegibility``).
///
/// Each run writes contact sheets, every size on each background magnified 4 times, for a human
/// to look at: `.build/test-artifacts/sni-pixmaps/<theme>-<count>.png` and `…-unhaloed.png` (the icon
/// as it was, which the XEmbed tray still draws over its backdrop).
@Suite(.drawsWithCairo) struct TrayPixmapLegibilityTests {
    /// What `TrayIcon.pixmapSizes` offers (BadgeX11; the end-to-end test checks the list).
    static let sides = [16, 22, 24, 32, 48]
    static let black: (red: UInt8, green: UInt8, blue: UInt8) = (0, 0, 0)
    static let lightGrey: (red: UInt8, green: UInt8, blue: UInt8) = (0xDD, 0xDD, 0xDD)
    static let white: (red: UInt8, green: UInt8, blue: UInt8) = (0xFF, 0xFF, 0xFF)
    static let backgrounds = [("black", black), ("#DDDDDD", lightGrey), ("white", white)]

    @Test("Every pixmap offered reads on black, #DDDDDD and white, light and dark theme, with and without a badge",
          arguments: [0, 3, 120])
    func legibleEverywhere(count: Int) throws {
        let renderer = try TrayIconRenderer(icons: IconLibrary(), text: TextLayouts())
        var least = (fraction: 1.0, span: 1.0, contrast: 21.0)
        for theme in [Theme.light, Theme.dark] {
            let pixmaps = renderer.statusNotifierPixmaps(sides: Self.sides, count: count, theme: theme)
            #expect(pixmaps.map(\.side) == Self.sides)
            for pixmap in pixmaps {
                for (name, background) in Self.backgrounds {
                    let measure = PixmapLegibility.measure(argb: pixmap.argb, side: pixmap.side, over: background)
                    #expect(measure.isLegible, "\(theme.name) theme, \(pixmap.side) px, count \(count), on \(name): \(measure)")
                    least = (min(least.fraction, measure.fraction), min(least.span, measure.widthSpanned, measure.heightSpanned),
                             min(least.contrast, measure.medianContrast))
                }
            }
        }
        // The figures docs/tray.md quotes.
        print("count \(count): the least contrasting share \(Int((least.fraction * 100).rounded())) %, span "
              + "\(Int((least.span * 100).rounded())) %, median contrast \(Double(Int(least.contrast * 10)) / 10):1")
    }

    @Test("The measure fails the icon as it was on the bar it was lost on (the light theme's dark bell on black, the dark theme's light bell on #DDDDDD) and passes it on the other")
    func unhaloedIconFails() throws {
        let renderer = try TrayIconRenderer(icons: IconLibrary(), text: TextLayouts())
        for side in Self.sides {
            for (theme, lost, seen) in [(Theme.light, Self.black, Self.lightGrey), (Theme.dark, Self.lightGrey, Self.black)] {
                let old = try renderer.image(width: side, height: side, count: 3, theme: theme).straightAlphaBytesBigEndian()
                let onLost = PixmapLegibility.measure(argb: old, side: side, over: lost)
                #expect(!onLost.isLegible, "\(theme.name) theme, \(side) px, on \(lost): \(onLost)")
                #expect(onLost.fraction < 0.02, "\(theme.name) theme, \(side) px, on \(lost): \(onLost)")
                let onSeen = PixmapLegibility.measure(argb: old, side: side, over: seen)
                #expect(onSeen.isLegible, "\(theme.name) theme, \(side) px, on \(seen): \(onSeen)")
            }
        }
    }

    @Test("The halo leaves the badge as it was: the same red pixels at every size and count")
    func badgeUnchanged() throws {
        let renderer = try TrayIconRenderer(icons: IconLibrary(), text: TextLayouts())
        for count in [3, 42, 120] {
            let pixmaps = renderer.statusNotifierPixmaps(sides: Self.sides, count: count, theme: .light)
            for pixmap in pixmaps {
                let old = try renderer.image(width: pixmap.side, height: pixmap.side, count: count, theme: .light)
                    .straightAlphaBytesBigEndian()
                #expect(redPixels(pixmap.argb) == redPixels(old), "\(pixmap.side) px, count \(count)")
                #expect(!redPixels(old).isEmpty)
            }
        }
    }

    @Test("Golden StatusNotifierItem pixmaps: 16, 22, 24, 32 and 48 px with 3 and 120, light and dark", arguments: sides)
    func golden(side: Int) throws {
        let renderer = try TrayIconRenderer(icons: IconLibrary(), text: TextLayouts())
        for theme in [Theme.light, Theme.dark] {
            for count in [3, 120] {
                let image = try renderer.image(width: side, height: side, count: count, theme: theme,
                                               halo: TrayIconRenderer.haloColor(for: theme))
                try GoldenImage.assertMatches(image, named: "tray-sni-\(theme.name)-\(side)-\(count)")
            }
        }
    }

    @Test("Contact sheets of the pixmaps on each background are written for a human to look at")
    func contactSheets() throws {
        let renderer = try TrayIconRenderer(icons: IconLibrary(), text: TextLayouts())
        for theme in [Theme.light, Theme.dark] {
            for count in [3, 120] {
                let haloed = renderer.statusNotifierPixmaps(sides: Self.sides, count: count, theme: theme)
                let unhaloed = try Self.sides.map { side in
                    (side: side, argb: try renderer.image(width: side, height: side, count: count, theme: theme).straightAlphaBytesBigEndian())
                }
                for (pixmaps, suffix) in [(haloed, ""), (unhaloed, "-unhaloed")] {
                    let sheet = try Self.contactSheet(pixmaps)
                    let path = try Artifacts.path(for: "sni-pixmaps/\(theme.name)-\(count)\(suffix).png")
                    try sheet.writePNG(to: path)
                    #expect(sheet.width == Self.sides.reduce(8) { $0 + $1 * 4 + 8 })
                }
            }
        }
    }

    /// Each background a row, each pixmap magnified `zoom` times on it, with a gap between.
    static func contactSheet(_ pixmaps: [(side: Int, argb: [UInt8])], zoom: Int = 4) throws -> ImageSurface {
        let gap = 8
        let width = pixmaps.reduce(gap) { $0 + $1.side * zoom + gap }
        let rowHeight = (pixmaps.map(\.side).max() ?? 0) * zoom + 2 * gap
        let sheet = try ImageSurface(width: width, height: rowHeight * backgrounds.count)
        for (row, (_, background)) in backgrounds.enumerated() {
            for y in row * rowHeight..<(row + 1) * rowHeight {
                for x in 0..<width { sheet.setPixel(x: x, y: y, alpha: 255, red: background.red, green: background.green, blue: background.blue) }
            }
            var left = gap
            for pixmap in pixmaps {
                let rgb = PixmapLegibility.composited(argb: pixmap.argb, side: pixmap.side, over: background)
                for y in 0..<pixmap.side * zoom {
                    for x in 0..<pixmap.side * zoom {
                        let i = ((y / zoom) * pixmap.side + x / zoom) * 3
                        sheet.setPixel(x: left + x, y: row * rowHeight + gap + y, alpha: 255, red: rgb[i], green: rgb[i + 1], blue: rgb[i + 2])
                    }
                }
                left += pixmap.side * zoom + gap
            }
        }
        return sheet
    }

    /// The opaque red pixels' indices (what the end-to-end watcher counts as the badge).
    private func redPixels(_ argb: [UInt8]) -> [Int] {
        stride(from: 0, to: argb.count, by: 4).filter { i in
            argb[i] > 200 && argb[i + 1] > 170 && argb[i + 2] < 120 && argb[i + 3] < 120
        }
    }
}
