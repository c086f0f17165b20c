import BadgeCore
import BadgeControl
/// An 8-bit-per-channel colour.
public struct RGB: Equatable, Hashable, Sendable, CustomStringConvertible {
    /// Red, green and blue, 0...255.
    public var r: UInt8, g: UInt8, b: UInt8

    /// A colour from its channels.
    public init(r: UInt8, g: UInt8, b: UInt8) {
        self.r = r; self.g = g; self.b = b
    }

    /// A colour from 0xRRGGBB.
    public init(hex: UInt32) {
        r = UInt8((hex >> 16) & 0xff); g = UInt8((hex >> 8) & 0xff); b = UInt8(hex & 0xff)
    }

    /// The largest per-channel difference to `other` (0...255).
    public func distance(to other: RGB) -> Int {
        max(abs(Int(r) - Int(other.r)), abs(Int(g) - Int(other.g)), abs(Int(b) - Int(other.b)))
    }

    /// Whether every channel is within `tolerance` of `other`.
    public func isClose(to other: RGB, tolerance: Int) -> Bool { distance(to: other) <= tolerance }

    /// "#RRGGBB".
    public var description: String {
        func hex(_ v: UInt8) -> String { let s = String(v, radix: 16, uppercase: true); return s.count == 1 ? "0" + s : s }
        return "#" + hex(r) + hex(g) + hex(b)
    }
}

extension PixelRect {
    /// Parses {"x":..,"y":..,"width":..,"height":..} as in the app's `state` event; nil if a field
    /// is missing or not an integer.
    package init?(json: JSONValue?) {
        guard let json, let x = json["x"]?.int, let y = json["y"]?.int,
              let w = json["width"]?.int, let h = json["height"]?.int else { return nil }
        self.init(x: x, y: y, width: w, height: h)
    }
}

/// Pixels read back from the X server (GetImage), decoded to RGB.
public struct CapturedImage: Equatable, Sendable {
    /// Size in pixels.
    public let width: Int, height: Int
    /// Where the capture came from, in window coordinates (its top-left pixel).
    public let origin: (x: Int, y: Int)
    /// Row-major pixels.
    public let pixels: [RGB]

    /// An image from decoded pixels (`pixels.count == width * height`).
    public init(width: Int, height: Int, origin: (x: Int, y: Int) = (0, 0), pixels: [RGB]) {
        precondition(pixels.count == width * height, "pixel count does not match the size")
        self.width = width; self.height = height; self.origin = origin; self.pixels = pixels
    }

    /// Same size, origin and pixels.
    public static func == (a: CapturedImage, b: CapturedImage) -> Bool {
        a.width == b.width && a.height == b.height && a.origin == b.origin && a.pixels == b.pixels
    }

    /// The rectangle covered, in window coordinates.
    public var bounds: PixelRect { PixelRect(x: origin.x, y: origin.y, width: width, height: height) }

    /// The pixel at window coordinates (x, y). Traps when outside `bounds`.
    public func pixel(x: Int, y: Int) -> RGB {
        precondition(bounds.contains(x: x, y: y), "pixel (\(x),\(y)) outside the capture \(bounds)")
        return pixels[(y - origin.y) * width + (x - origin.x)]
    }

    /// Calls `body` for each pixel of `rect` (clipped to the capture).
    public func forEachPixel(in rect: PixelRect? = nil, _ body: (Int, Int, RGB) -> Void) {
        let r = (rect ?? bounds).intersection(bounds)
        guard r.area > 0 else { return }
        for y in r.y..<(r.y + r.height) {
            let row = (y - origin.y) * width - origin.x
            for x in r.x..<(r.x + r.width) { body(x, y, pixels[row + x]) }
        }
    }

    /// Number of pixels in `rect` satisfying `predicate`.
    public func count(in rect: PixelRect? = nil, where predicate: (RGB) -> Bool) -> Int {
        var n = 0
        forEachPixel(in: rect) { _, _, p in if predicate(p) { n += 1 } }
        return n
    }

    /// Number of pixels in `rect` within `tolerance` (per channel) of `colour`.
    public func count(near colour: RGB, tolerance: Int, in rect: PixelRect? = nil) -> Int {
        count(in: rect) { $0.isClose(to: colour, tolerance: tolerance) }
    }

    /// Mean colour of `rect` (clipped); black for an empty rectangle.
    public func meanColour(in rect: PixelRect? = nil) -> RGB {
        var sum = (0, 0, 0), n = 0
        forEachPixel(in: rect) { _, _, p in sum.0 += Int(p.r); sum.1 += Int(p.g); sum.2 += Int(p.b); n += 1 }
        guard n > 0 else { return RGB(r: 0, g: 0, b: 0) }
        return RGB(r: UInt8(sum.0 / n), g: UInt8(sum.1 / n), b: UInt8(sum.2 / n))
    }

    /// Number of pixels in `rect` (window coordinates, clipped to both captures) that differ by more
    /// than `tolerance` in some channel between this capture and `other`.
    public func differingPixels(from other: CapturedImage, in rect: PixelRect? = nil, tolerance: Int = 0) -> Int {
        let r = (rect ?? bounds).intersection(bounds).intersection(other.bounds)
        var n = 0
        forEachPixel(in: r) { x, y, p in if p.distance(to: other.pixel(x: x, y: y)) > tolerance { n += 1 } }
        return n
    }

    /// The image as a 16-bit (RGB565) screen shows it: each channel cut to its top 5/6/5 bits, then
    /// expanded back to 8 bits the way `XTestClient.capture` decodes a depth-16 window. Compare a
    /// 24-bit reference with a depth-16 capture through this.
    public func quantizedToRGB565() -> CapturedImage {
        func expand(_ v: UInt8, bits: Int) -> UInt8 {
            let maxValue = UInt32(1 << bits) - 1
            let cut = UInt32(v) >> UInt32(8 - bits)
            return UInt8((cut * 255 + maxValue / 2) / maxValue)
        }
        let quantized = pixels.map { RGB(r: expand($0.r, bits: 5), g: expand($0.g, bits: 6), b: expand($0.b, bits: 5)) }
        return CapturedImage(width: width, height: height, origin: origin, pixels: quantized)
    }

    /// The part of the capture inside `rect` (clipped), keeping window coordinates.
    public func cropped(to rect: PixelRect) -> CapturedImage {
        let r = rect.intersection(bounds)
        var out: [RGB] = []
        out.reserveCapacity(r.area)
        forEachPixel(in: r) { _, _, p in out.append(p) }
        return CapturedImage(width: r.width, height: r.height, origin: (r.x, r.y), pixels: out)
    }

    /// Reads a binary PPM (P6, maxval 255) file, e.g. one written by `writePPM` or by ImageMagick's
    /// `convert in.png out.ppm` (the harness has no PNG decoder).
    public init(ppmFile path: String) throws {
        let bytes = try readSmallFile(path)
        var index = 0
        func token() throws -> String {
            while index < bytes.count {
                if bytes[index] == UInt8(ascii: "#") {
                    while index < bytes.count && bytes[index] != 0x0A { index += 1 }
                } else if [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) {
                    index += 1
                } else { break }
            }
            let start = index
            while index < bytes.count, ![0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }
        guard try token() == "P6", let w = Int(try token()), let h = Int(try token()), let maxval = Int(try token()),
              w > 0, h > 0, w <= 32_767, h <= 32_767, maxval == 255 else {
            throw HarnessError("\(path) is not a binary PPM (P6, 1...32767 pixels a side, maxval 255)")
        }
        index += 1  // the single whitespace after maxval
        guard bytes.count - index >= w * h * 3 else { throw HarnessError("\(path): truncated PPM data") }
        var pixels: [RGB] = []
        pixels.reserveCapacity(w * h)
        for i in 0..<(w * h) {
            let o = index + 3 * i
            pixels.append(RGB(r: bytes[o], g: bytes[o + 1], b: bytes[o + 2]))
        }
        self.init(width: w, height: h, pixels: pixels)
    }

    /// Binary PPM (P6) bytes.
    public var ppm: [UInt8] {
        var out = Array("P6\n\(width) \(height)\n255\n".utf8)
        out.reserveCapacity(out.count + pixels.count * 3)
        for p in pixels { out.append(p.r); out.append(p.g); out.append(p.b) }
        return out
    }

    /// Writes the image as a PPM file at `path`.
    public func writePPM(to path: String) throws {
        try writeFile(path, ppm)
    }

    /// Writes the image as `<artifacts>/<name>.ppm`, prints and returns the path. Use on a failed
    /// pixel assertion so a human can look (`display file.ppm`, or convert with ImageMagick).
    @discardableResult
    public func saveArtifact(named name: String) -> String {
        do {
            let path = try Artifacts.path(for: name + ".ppm")
            try writePPM(to: path)
            print("XvfbHarness: wrote captured image \(width)x\(height) to \(path)")
            return path
        } catch {
            print("XvfbHarness: could not save artifact \(name): \(error)")
            return "(not saved: \(error))"
        }
    }
}
