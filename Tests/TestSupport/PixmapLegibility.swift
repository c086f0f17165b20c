import Glibc

/// How well a StatusNotifierItem pixmap's icon reads on a background it is composited over: the
/// measure of the tray tests, on the bytes `IconPixmap` carries (ARGB32, straight alpha, network
/// byte order, row by row).
///
/// The icon's pixels are those at least half opaque, leaving out the box of the red badge (and a
/// pixel around it): the badge is red on any bar. A pixel *contrasts* when, composited over the
/// background, its WCAG 2.1 contrast ratio with the background is at least ``threshold`` (3:1,
/// what WCAG asks of a graphical object against the colour next to it). The icon is legible when
/// the contrasting pixels are at least ``minimumFraction`` (15 %) of its pixels and span at least
/// ``minimumSpan`` (half) of its width and of its height: enough of it is seen, and what is seen
/// has the icon's extent (an outline does, a speck does not). The icon's pixels include a halo,
/// which is meant to be seen on one kind of background only: on the other, the icon's own line
/// is what contrasts, a thin part of the whole (about a quarter at 24 pixels).
package struct PixmapLegibility: CustomStringConvertible, Sendable {
    /// The contrast ratio a pixel needs against the background.
    package static let threshold = 3.0
    /// The share of the icon's pixels that must contrast.
    package static let minimumFraction = 0.15
    /// How much of the icon's width and height the contrasting pixels must span.
    package static let minimumSpan = 0.5

    /// The icon's pixels (at least half opaque, outside the badge's box).
    package var iconPixels = 0
    /// Those that contrast with the background.
    package var contrastingPixels = 0
    /// The share of the icon's width the contrasting pixels span (0…1).
    package var widthSpanned = 0.0
    /// The share of the icon's height the contrasting pixels span (0…1).
    package var heightSpanned = 0.0
    /// The median contrast ratio of the contrasting pixels (1 when there are none).
    package var medianContrast = 1.0

    /// The contrasting share of the icon's pixels.
    package var fraction: Double { iconPixels == 0 ? 0 : Double(contrastingPixels) / Double(iconPixels) }

    /// Whether enough of the icon contrasts, across its extent.
    package var isLegible: Bool {
        fraction >= Self.minimumFraction && min(widthSpanned, heightSpanned) >= Self.minimumSpan
    }

    package var description: String {
        func percent(_ value: Double) -> String { "\(Int((value * 100).rounded())) %" }
        return "\(contrastingPixels) of \(iconPixels) icon pixels (\(percent(fraction))) contrast ≥ \(Self.threshold):1, "
            + "spanning \(percent(widthSpanned)) × \(percent(heightSpanned)) of the icon, median \(Double(Int(medianContrast * 10)) / 10):1"
    }

    /// Measures the `side` × `side` pixmap `argb` composited over the opaque colour `background`
    /// (red, green, blue bytes). An empty measure (nothing legible) when the bytes are not `side`² × 4.
    package static func measure(argb: [UInt8], side: Int, over background: (red: UInt8, green: UInt8, blue: UInt8)) -> PixmapLegibility {
        var result = PixmapLegibility()
        guard side > 0, argb.count == side * side * 4 else { return result }
        let badge = badgeBox(argb: argb, side: side)
        let backgroundLuminance = luminance(background.red, background.green, background.blue)
        var icon = Box(), seen = Box()
        var ratios: [Double] = []
        for y in 0..<side {
            for x in 0..<side {
                let i = (y * side + x) * 4
                let alpha = argb[i]
                guard alpha >= 128, !(badge?.contains(x, y) ?? false) else { continue }
                result.iconPixels += 1
                icon.add(x, y)
                let over = composite(argb[i + 1], argb[i + 2], argb[i + 3], alpha: alpha, over: background)
                let ratio = contrast(luminance(over.0, over.1, over.2), backgroundLuminance)
                if ratio >= threshold {
                    result.contrastingPixels += 1
                    seen.add(x, y)
                    ratios.append(ratio)
                }
            }
        }
        if let width = icon.width, let height = icon.height {
            result.widthSpanned = Double(seen.width ?? 0) / Double(width)
            result.heightSpanned = Double(seen.height ?? 0) / Double(height)
        }
        if !ratios.isEmpty { result.medianContrast = ratios.sorted()[ratios.count / 2] }
        return result
    }

    /// The pixmap composited over `background`: red, green, blue bytes a pixel, row by row.
    package static func composited(argb: [UInt8], side: Int, over background: (red: UInt8, green: UInt8, blue: UInt8)) -> [UInt8] {
        guard side > 0, argb.count == side * side * 4 else { return [] }
        var rgb: [UInt8] = []
        rgb.reserveCapacity(side * side * 3)
        for i in stride(from: 0, to: argb.count, by: 4) {
            let over = composite(argb[i + 1], argb[i + 2], argb[i + 3], alpha: argb[i], over: background)
            rgb += [over.0, over.1, over.2]
        }
        return rgb
    }

    /// WCAG 2.1's relative luminance of an sRGB colour.
    package static func luminance(_ red: UInt8, _ green: UInt8, _ blue: UInt8) -> Double {
        func linear(_ byte: UInt8) -> Double {
            let c = Double(byte) / 255
            return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
        }
        return 0.2126 * linear(red) + 0.7152 * linear(green) + 0.0722 * linear(blue)
    }

    /// WCAG 2.1's contrast ratio of two relative luminances (1…21).
    package static func contrast(_ a: Double, _ b: Double) -> Double {
        (max(a, b) + 0.05) / (min(a, b) + 0.05)
    }

    private static func composite(_ red: UInt8, _ green: UInt8, _ blue: UInt8, alpha: UInt8,
                                  over background: (red: UInt8, green: UInt8, blue: UInt8)) -> (UInt8, UInt8, UInt8) {
        let a = Double(alpha) / 255
        func mix(_ top: UInt8, _ bottom: UInt8) -> UInt8 { UInt8((Double(top) * a + Double(bottom) * (1 - a)).rounded()) }
        return (mix(red, background.red), mix(green, background.green), mix(blue, background.blue))
    }

    /// The box of the badge's red pixels, a pixel larger all round; nil without a badge.
    private static func badgeBox(argb: [UInt8], side: Int) -> Box? {
        var box = Box()
        for y in 0..<side {
            for x in 0..<side {
                let i = (y * side + x) * 4
                if argb[i] > 200, argb[i + 1] > 170, argb[i + 2] < 120, argb[i + 3] < 120 { box.add(x, y) }
            }
        }
        guard box.width != nil else { return nil }
        box.minX -= 1; box.minY -= 1; box.maxX += 1; box.maxY += 1
        return box
    }

    private struct Box {
        var minX = Int.max, minY = Int.max, maxX = Int.min, maxY = Int.min
        mutating func add(_ x: Int, _ y: Int) {
            minX = min(minX, x); maxX = max(maxX, x)
            minY = min(minY, y); maxY = max(maxY, y)
        }
        func contains(_ x: Int, _ y: Int) -> Bool { x >= minX && x <= maxX && y >= minY && y <= maxY }
        var width: Int? { maxX >= minX ? maxX - minX + 1 : nil }
        var height: Int? { maxY >= minY ? maxY - minY + 1 : nil }
    }
}
