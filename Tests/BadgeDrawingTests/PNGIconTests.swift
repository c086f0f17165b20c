import BadgeCore
import BadgeDrawing
import Glibc
import TestSupport
import Testing

/// PNG application icons in the icon library: written with cairo here, loaded by their signature,
/// drawn as masks in the toolbar's colour at the size asked for.
@Suite(.drawsWithCairo) struct PNGIconTests {
    /// A `width`×`height` PNG file: opaque blue on the left half, transparent on the right.
    func writePNG(width: Int, height: Int, named name: String) throws -> String {
        let image = try ImageSurface(width: width, height: height)
        for y in 0..<height {
            for x in 0..<width / 2 { image.setPixel(x: x, y: y, alpha: 255, red: 0, green: 0, blue: 255) }
        }
        let path = "/tmp/badgekit-png-\(name)-\(getpid()).svg"  // the name says SVG: the bytes decide
        try image.writePNG(to: path)
        return path
    }

    func draw(_ icons: IconLibrary, _ name: String, pixels: Int) throws -> ImageSurface {
        let image = try ImageSurface(width: pixels, height: pixels)
        let side = Double(pixels)
        try image.draw { context in
            #expect(icons.draw(name, in: Rect(x: 0, y: 0, width: side, height: side), color: Color(red: 1, green: 0, blue: 0),
                               scale: 1, context: context))
        }
        return image
    }

    @Test func aPNGIsAMaskScaledToEachSize() throws {
        let path = try writePNG(width: 64, height: 64, named: "square")
        defer { unlink(path) }
        let icons = try IconLibrary()
        try icons.loadIcon(named: "telegram", fromFile: path)
        #expect(icons.names.contains("telegram"))
        for pixels in [32, 48, 64, 96, 20] {
            let image = try draw(icons, "telegram", pixels: pixels)
            // The left half is the toolbar colour (red, premultiplied), the right half empty.
            for y in [1, pixels / 2, pixels - 2] {
                #expect(argb(image, x: 1, y: y) == [255, 255, 0, 0], "at \(pixels) px, left edge row \(y)")
                #expect(argb(image, x: pixels / 2 - 2, y: y) == [255, 255, 0, 0], "at \(pixels) px, left half row \(y)")
                #expect(image.pixel(x: pixels / 2 + 1, y: y).alpha == 0, "at \(pixels) px, right half row \(y)")
                #expect(image.pixel(x: pixels - 1, y: y).alpha == 0, "at \(pixels) px, right edge row \(y)")
            }
        }
    }

    @Test func aWidePNGIsCentredWithItsAspectKept() throws {
        let path = try writePNG(width: 64, height: 32, named: "wide")
        defer { unlink(path) }
        let icons = try IconLibrary()
        try icons.loadIcon(named: "app", fromFile: path)
        let image = try draw(icons, "app", pixels: 32)
        // 64×32 into 32×32: 32×16, from y 8 to 24; its left half opaque.
        #expect(image.pixel(x: 4, y: 4).alpha == 0, "above the image")
        #expect(image.pixel(x: 4, y: 16).alpha == 255)
        #expect(image.pixel(x: 4, y: 27).alpha == 0, "below the image")
        #expect(image.pixel(x: 24, y: 16).alpha == 0)
    }

    @Test func aPNGReplacesABundledIconAndAnSVGReplacesThePNG() throws {
        let path = try writePNG(width: 24, height: 24, named: "replace")
        defer { unlink(path) }
        let icons = try IconLibrary()
        try icons.loadIcon(named: "bell", fromFile: path)
        #expect(try draw(icons, "bell", pixels: 24).pixel(x: 20, y: 12).alpha == 0, "the PNG's empty right half")
        let square = Array("<svg xmlns='http://www.w3.org/2000/svg' width='24' height='24'><rect width='24' height='24'/></svg>".utf8)
        try icons.loadIcon(named: "bell", svg: square, source: "square.svg")
        #expect(try draw(icons, "bell", pixels: 24).pixel(x: 20, y: 12).alpha == 255, "the SVG's full square")
    }

    @Test func brokenAndOversizedPNGsSayWhy() throws {
        let icons = try IconLibrary()
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        #expect(failure { try icons.loadIcon(named: "x", png: signature + [1, 2, 3], source: "bad.png") }
            == "cannot load the PNG icon bad.png: the PNG file has no image header")
        // A header that declares 5000×5000 pixels is refused before anything is decoded.
        func header(width: UInt32, height: UInt32) -> [UInt8] {
            func bigEndian(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) } }
            return signature + [0, 0, 0, 13] + Array("IHDR".utf8) + bigEndian(width) + bigEndian(height) + [8, 6, 0, 0, 0] + [0, 0, 0, 0]
        }
        #expect(failure { try icons.loadIcon(named: "x", png: header(width: 5000, height: 5000), source: "huge.png") }
            == "cannot load the PNG icon huge.png: the PNG image is 5000×5000 pixels; an icon may be at most 1024×1024")
        let cut = failure { try icons.loadIcon(named: "x", png: header(width: 16, height: 16), source: "cut.png") }
        #expect(cut?.hasPrefix("cannot load the PNG icon cut.png: the PNG image cannot be decoded") == true, "\(cut ?? "no error")")
        #expect(!icons.names.contains("x"), "a failed load adds nothing")
    }
}

/// The premultiplied (alpha, red, green, blue) bytes of a pixel, as an array to compare.
private func argb(_ image: ImageSurface, x: Int, y: Int) -> [UInt8] {
    let pixel = image.pixel(x: x, y: y)
    return [pixel.alpha, pixel.red, pixel.green, pixel.blue]
}

/// The message `body` throws, or nil.
private func failure(_ body: () throws -> Void) -> String? {
    do {
        try body()
        return nil
    } catch {
        return "\(error)"
    }
}
