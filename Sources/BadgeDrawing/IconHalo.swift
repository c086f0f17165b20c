/// An outline around an icon's shape, for an icon shown on a background its drawer cannot see (a
/// StatusNotifierItem's host cannot be asked for its colour): the icon in its own colour, the
/// halo around it in a contrasting one, so that one of the two stands out on any background, dark
/// or light, and traces the icon's shape there.
///
/// The halo is the icon's silhouette (its alpha mask with the holes filled: the inside of a line
/// icon's bell too) grown by a round brush of ``radius(side:)`` device pixels, with anti-aliased
/// edges: pure arithmetic on the mask's bytes, no drawing. Filled, a line icon keeps one clear
/// shape on a background of the icon's own colour (a light bell with a dark line on black) instead
/// of a double line.
package enum IconHalo {
    /// How far the halo reaches beyond the icon's edge, in device pixels, for an icon drawn in a
    /// `side`-pixel square: a twentieth of the side, and never less than one pixel (1 at 16 and 22
    /// pixels, 1.2 at 24, 1.6 at 32, 2.4 at 48).
    package static func radius(side: Int) -> Double {
        max(1, Double(side) / 20)
    }

    /// The halo's coverage (0…255 a pixel, row by row) around the shape whose coverage is `alpha`
    /// (`width` × `height` bytes), reaching `radius` pixels beyond its edge. Where the shape
    /// itself is, and wherever it encloses, the halo is opaque too (the icon is drawn over it).
    ///
    /// A pixel `d` pixels away from a shape pixel of coverage `a` (0…1) is covered by
    /// `radius + a − d`, clamped to 0…1: a fully covered pixel's edge is half a pixel from its
    /// centre, a half-covered pixel's edge runs through it; the halo takes the most of what its
    /// neighbours give.
    package static func coverage(around alpha: [UInt8], width: Int, height: Int, radius: Double) -> [UInt8] {
        guard width > 0, height > 0, alpha.count == width * height, radius.isFinite, radius > 0 else {
            return [UInt8](repeating: 0, count: max(0, width) * max(0, height))
        }
        let reach = Int((radius + 1).rounded(.up))
        var halo = [UInt8](repeating: 0, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                var best = 0.0
                for dy in -reach...reach {
                    let qy = y + dy
                    guard qy >= 0, qy < height else { continue }
                    for dx in -reach...reach {
                        let qx = x + dx
                        guard qx >= 0, qx < width else { continue }
                        let a = Double(alpha[qy * width + qx]) / 255
                        guard a > 0 else { continue }
                        let distance = Double(dx * dx + dy * dy).squareRoot()
                        best = max(best, min(1, radius + a - distance))
                        if best >= 1 { break }
                    }
                    if best >= 1 { break }
                }
                halo[y * width + x] = UInt8((best * 255).rounded())
            }
        }
        return filled(halo, width: width, height: height)
    }

    /// `coverage` with every hole filled: a pixel under half covered that the image's edge cannot
    /// reach through such pixels (stepping up, down, left and right, so a diagonal wall holds)
    /// becomes opaque.
    package static func filled(_ coverage: [UInt8], width: Int, height: Int) -> [UInt8] {
        guard width > 0, height > 0, coverage.count == width * height else { return coverage }
        var outside = [Bool](repeating: false, count: width * height)
        var stack: [Int] = []
        func visit(_ i: Int) {
            guard !outside[i], coverage[i] < 128 else { return }
            outside[i] = true
            stack.append(i)
        }
        for x in 0..<width {
            visit(x)
            visit((height - 1) * width + x)
        }
        for y in 0..<height {
            visit(y * width)
            visit(y * width + width - 1)
        }
        while let i = stack.popLast() {
            let x = i % width, y = i / width
            if x > 0 { visit(i - 1) }
            if x < width - 1 { visit(i + 1) }
            if y > 0 { visit(i - width) }
            if y < height - 1 { visit(i + width) }
        }
        var result = coverage
        for i in result.indices where !outside[i] && result[i] < 128 { result[i] = 255 }
        return result
    }
}
