@testable import BadgeX11
import CXCB
import Testing

/// The visual policy and the pixel conversion, without a server: synthetic screens and pixels.
@Suite struct WindowVisualTests {
    static let trueColor = UInt8(XCB_VISUAL_CLASS_TRUE_COLOR.rawValue)
    static let directColor = UInt8(XCB_VISUAL_CLASS_DIRECT_COLOR.rawValue)
    static let pseudoColor = UInt8(XCB_VISUAL_CLASS_PSEUDO_COLOR.rawValue)
    static let formats: [(depth: Int, bitsPerPixel: Int, scanlinePad: Int)] =
        [(1, 1, 32), (8, 8, 32), (15, 16, 32), (16, 16, 32), (24, 32, 32), (30, 32, 32), (32, 32, 32)]

    static func visual(_ id: UInt32, _ visualClass: UInt8, depth: Int, _ masks: (UInt32, UInt32, UInt32)) -> VisualDescription {
        VisualDescription(id: id, visualClass: visualClass, depth: depth, redMask: masks.0, greenMask: masks.1, blueMask: masks.2)
    }
    static let rgb888 = (UInt32(0xff_0000), UInt32(0xff00), UInt32(0xff))
    static let rgb101010 = (UInt32(0x3ff0_0000), UInt32(0xf_fc00), UInt32(0x3ff))
    static let rgb565 = (UInt32(0xf800), UInt32(0x7e0), UInt32(0x1f))
    static let rgb555 = (UInt32(0x7c00), UInt32(0x3e0), UInt32(0x1f))
    static let argb32 = visual(0x60, trueColor, depth: 32, rgb888)

    static func choose(root: UInt32, _ visuals: [VisualDescription]) -> Result<WindowVisual, X11Error> {
        WindowVisual.choose(rootVisual: root, visuals: visuals, pixmapFormats: formats, leastSignificantByteFirst: true)
    }

    /// `words` converted by `format` into `bytes` bytes.
    static func convert(_ words: [UInt32], with format: PixelFormat, bytes: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: bytes)
        words.withUnsafeBytes { source in
            out.withUnsafeMutableBytes { target in
                guard let from = source.baseAddress, let into = target.baseAddress else { return }
                format.convertRow(from: from, into: into, count: words.count)
            }
        }
        return out
    }

    @Test("A 24-bit TrueColor default visual is used as it is")
    func defaultTrueColor() throws {
        let chosen = try Self.choose(root: 0x21, [Self.visual(0x21, Self.trueColor, depth: 24, Self.rgb888), Self.argb32]).get()
        #expect(chosen.id == 0x21 && chosen.depth == 24 && !chosen.needsColormap && chosen.format.matchesCairo)
    }

    @Test("A 24-bit TrueColor visual is preferred, with a colormap, over a 30-bit or DirectColor default")
    func prefers24Bit() throws {
        let deep = try Self.choose(root: 0x21, [Self.visual(0x21, Self.trueColor, depth: 30, Self.rgb101010),
                                               Self.visual(0x40, Self.trueColor, depth: 24, Self.rgb888)]).get()
        #expect(deep.id == 0x40 && deep.depth == 24 && deep.needsColormap)
        let direct = try Self.choose(root: 0x22, [Self.visual(0x22, Self.directColor, depth: 24, Self.rgb888),
                                                 Self.visual(0x21, Self.trueColor, depth: 24, Self.rgb888)]).get()
        #expect(direct.id == 0x21 && direct.needsColormap)
        let paletted = try Self.choose(root: 0x21, [Self.visual(0x21, Self.pseudoColor, depth: 8, (0, 0, 0)),
                                                   Self.visual(0x50, Self.trueColor, depth: 16, Self.rgb565),
                                                   Self.visual(0x51, Self.trueColor, depth: 24, Self.rgb888)]).get()
        #expect(paletted.id == 0x51 && paletted.needsColormap)
    }

    @Test("Without a 24-bit visual the default TrueColor one is converted to; ARGB visuals are never used")
    func convertsOtherwise() throws {
        for (depth, masks) in [(15, Self.rgb555), (16, Self.rgb565), (30, Self.rgb101010)] {
            let chosen = try Self.choose(root: 0x21, [Self.visual(0x21, Self.trueColor, depth: depth, masks), Self.argb32]).get()
            #expect(chosen.id == 0x21 && Int(chosen.depth) == depth && !chosen.needsColormap && !chosen.format.matchesCairo)
        }
        let other = try Self.choose(root: 0x21, [Self.visual(0x21, Self.pseudoColor, depth: 8, (0, 0, 0)),
                                                Self.visual(0x50, Self.trueColor, depth: 16, Self.rgb565), Self.argb32]).get()
        #expect(other.id == 0x50 && other.needsColormap)
    }

    @Test("A screen of colour-mapped or 8-bit visuals has none: the error names what it offers and what to do")
    func noUsableVisual() {
        let result = Self.choose(root: 0x21, [Self.visual(0x21, Self.pseudoColor, depth: 8, (0, 0, 0)),
                                              Self.visual(0x22, Self.trueColor, depth: 8, (0x7, 0x38, 0xc0))])
        guard case .failure(let error) = result else {
            Issue.record("chose \(result)")
            return
        }
        #expect(error.description.contains("TrueColor visual of depth 15 or more"))
        #expect(error.description.contains("PseudoColor at depth 8 (default)") && error.description.contains("depth 24"))
    }

    @Test("Conversion: 5:6:5 and 5:5:5 keep the top bits, 10:10:10 repeats them, in either byte order")
    func conversion() throws {
        let f565 = try #require(PixelFormat(depth: 16, bitsPerPixel: 16, scanlinePad: 32, redMask: 0xf800, greenMask: 0x7e0,
                                            blueMask: 0x1f, leastSignificantByteFirst: true))
        #expect(f565.pixel(red: 0xE5, green: 0x39, blue: 0x35) == (0x1C << 11 | 0x0E << 5 | 0x06))
        let f555 = try #require(PixelFormat(depth: 15, bitsPerPixel: 16, scanlinePad: 32, redMask: 0x7c00, greenMask: 0x3e0,
                                            blueMask: 0x1f, leastSignificantByteFirst: false))
        #expect(f555.pixel(red: 0xff, green: 0xff, blue: 0xff) == 0x7fff)
        let f30 = try #require(PixelFormat(depth: 30, bitsPerPixel: 32, scanlinePad: 32, redMask: 0x3ff, greenMask: 0xffc00,
                                           blueMask: 0x3ff0_0000, leastSignificantByteFirst: true))
        #expect(f30.pixel(red: 0xff, green: 0, blue: 0) == 0x3ff)
        #expect(f30.pixel(red: 0xF7, green: 0xF6, blue: 0xF4) == (0x3DF | 0x3DB << 10 | 0x3D3 << 20))
        #expect(f30.bytesPerRow(pixels: 3) == 12 && f565.bytesPerRow(pixels: 3) == 8)

        // Two ARGB32 words (native order) through convertRow.
        let words: [UInt32] = [0xFFE5_3935, 0xFFF7_F6F4]
        let out16 = Self.convert(words, with: f555, bytes: 4)
        let first = f555.pixel(red: 0xE5, green: 0x39, blue: 0x35), second = f555.pixel(red: 0xF7, green: 0xF6, blue: 0xF4)
        #expect(out16 == [UInt8(first >> 8), UInt8(first & 0xff), UInt8(second >> 8), UInt8(second & 0xff)], "MSB first")
        let out32 = Self.convert(words, with: f30, bytes: 8)
        let value = f30.pixel(red: 0xE5, green: 0x39, blue: 0x35)
        #expect(Array(out32[0..<4]) == [0, 8, 16, 24].map { UInt8(truncatingIfNeeded: value >> UInt32($0)) }, "LSB first")
    }

    @Test("A visual's colormap and border pixel are merged into CreateWindow's values in mask-bit order")
    func createWindowValues() {
        let mask = XCB_CW_BACK_PIXMAP.rawValue | XCB_CW_BIT_GRAVITY.rawValue | XCB_CW_EVENT_MASK.rawValue
        let (merged, values) = XConnection.adding([(XCB_CW_BORDER_PIXEL.rawValue, 0), (XCB_CW_COLORMAP.rawValue, 0x77)], to: mask, [10, 20, 30])
        #expect(merged == mask | XCB_CW_BORDER_PIXEL.rawValue | XCB_CW_COLORMAP.rawValue)
        #expect(values == [10, 0, 20, 30, 0x77])
    }

    @Test("Layouts that cannot be drawn in are refused: alpha bits, overlapping or split masks, 8 bits per pixel")
    func refusedLayouts() {
        #expect(PixelFormat(depth: 32, bitsPerPixel: 32, scanlinePad: 32, redMask: 0xff_0000, greenMask: 0xff00, blueMask: 0xff,
                            leastSignificantByteFirst: true) == nil)
        #expect(PixelFormat(depth: 16, bitsPerPixel: 16, scanlinePad: 32, redMask: 0xf800, greenMask: 0xfe0, blueMask: 0x1f,
                            leastSignificantByteFirst: true) == nil)
        #expect(PixelFormat(depth: 16, bitsPerPixel: 16, scanlinePad: 32, redMask: 0xf801, greenMask: 0x7e0, blueMask: 0x1e,
                            leastSignificantByteFirst: true) == nil)
        #expect(PixelFormat(depth: 8, bitsPerPixel: 8, scanlinePad: 32, redMask: 0x7, greenMask: 0x38, blueMask: 0xc0,
                            leastSignificantByteFirst: true) == nil)
    }
}
