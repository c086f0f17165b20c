/// How one pixel of a window's visual is laid out in a ZPixmap image: its bits per pixel, where red,
/// green and blue sit (the visual's masks), the scanline padding and the server's byte order; and
/// the conversion into it from cairo's ARGB32 words.
///
/// Cairo draws x8r8g8b8 native-endian words. A 24-bit TrueColor visual at 32 bits per pixel in the
/// machine's byte order takes them as they are (``matchesCairo``); every other TrueColor layout —
/// 30-bit 2:10:10:10 (either channel order), 16-bit 5:6:5, 15-bit 5:5:5, 24 bits packed in 3 bytes,
/// the other byte order — goes through ``convertRow(from:into:count:)``.
package struct PixelFormat: Equatable, Sendable {
    /// The visual's depth (the bits that hold colour).
    package let depth: Int
    /// Bits per pixel of images at that depth: 16, 24 or 32.
    package let bitsPerPixel: Int
    /// Every scanline is padded to a multiple of this many bits (8, 16 or 32).
    package let scanlinePad: Int
    /// Where red sits in a pixel value.
    package let redMask: UInt32
    /// Where green sits in a pixel value.
    package let greenMask: UInt32
    /// Where blue sits in a pixel value.
    package let blueMask: UInt32
    /// True when the server wants image data least-significant byte first.
    package let leastSignificantByteFirst: Bool
    /// Per channel, the pixel bits each 8-bit value becomes: red at 0..<256, green at 256..<512,
    /// blue at 512..<768.
    private let table: [UInt32]

    /// The layouts a window can be drawn in: each mask a contiguous, non-empty run of bits, the
    /// three disjoint and together exactly `depth` bits (no alpha or unused bits), and 16, 24 or 32
    /// bits per pixel. Nil for anything else (a colour-mapped or an alpha visual).
    package init?(depth: Int, bitsPerPixel: Int, scanlinePad: Int, redMask: UInt32, greenMask: UInt32, blueMask: UInt32,
                  leastSignificantByteFirst: Bool) {
        let masks = [redMask, greenMask, blueMask]
        guard [16, 24, 32].contains(bitsPerPixel), [8, 16, 32].contains(scanlinePad),
              masks.allSatisfy({ $0 != 0 && Self.isContiguous($0) }),
              redMask & greenMask == 0, redMask & blueMask == 0, greenMask & blueMask == 0,
              (redMask | greenMask | blueMask).nonzeroBitCount == depth, depth <= bitsPerPixel,
              Int(32 - (redMask | greenMask | blueMask).leadingZeroBitCount) <= bitsPerPixel else { return nil }
        self.depth = depth
        self.bitsPerPixel = bitsPerPixel
        self.scanlinePad = scanlinePad
        self.redMask = redMask
        self.greenMask = greenMask
        self.blueMask = blueMask
        self.leastSignificantByteFirst = leastSignificantByteFirst
        table = masks.flatMap { mask in (0...UInt32(UInt8.max)).map { Self.place($0, in: mask) } }
    }

    /// Whether cairo's ARGB32 words can be copied unchanged: 32 bits per pixel, red, green and blue
    /// in the low three bytes in that order, and the machine's byte order.
    package var matchesCairo: Bool {
        bitsPerPixel == 32 && redMask == 0xff_0000 && greenMask == 0xff00 && blueMask == 0xff
            && leastSignificantByteFirst == Self.machineIsLittleEndian
    }

    /// Bits of each channel, for tolerances and messages ("5:6:5", "10:10:10").
    package var channelBits: (red: Int, green: Int, blue: Int) {
        (redMask.nonzeroBitCount, greenMask.nonzeroBitCount, blueMask.nonzeroBitCount)
    }

    /// Bytes one row of `pixels` pixels takes, padded as the server expects.
    package func bytesPerRow(pixels: Int) -> Int {
        let bits = pixels * bitsPerPixel
        return (bits + scanlinePad - 1) / scanlinePad * scanlinePad / 8
    }

    /// The pixel value for an 8-bit-per-channel colour.
    package func pixel(red: UInt8, green: UInt8, blue: UInt8) -> UInt32 {
        table[Int(red)] | table[256 + Int(green)] | table[512 + Int(blue)]
    }

    /// Converts `count` cairo ARGB32 words at `source` into pixels of this format at `target`, in
    /// the server's byte order. Cairo's alpha is ignored: windows are opaque.
    package func convertRow(from source: UnsafeRawPointer, into target: UnsafeMutableRawPointer, count: Int) {
        let bytes = bitsPerPixel / 8
        let lsb = leastSignificantByteFirst
        table.withUnsafeBufferPointer { table in
            for i in 0..<count {
                let word = source.loadUnaligned(fromByteOffset: i * 4, as: UInt32.self)
                let value = table[Int((word >> 16) & 0xff)] | table[256 + Int((word >> 8) & 0xff)] | table[512 + Int(word & 0xff)]
                let out = target + i * bytes
                for b in 0..<bytes {
                    let shift = UInt32(8 * (lsb ? b : bytes - 1 - b))
                    out.storeBytes(of: UInt8(truncatingIfNeeded: value >> shift), toByteOffset: b, as: UInt8.self)
                }
            }
        }
    }

    /// An 8-bit channel value in a mask's bits: cut to its top bits for a narrower channel (5 or 6
    /// bits, as the screen shows it), repeated into the low bits for a wider one (10 bits: 0xff
    /// becomes 0x3ff, so white stays white).
    static func place(_ value: UInt32, in mask: UInt32) -> UInt32 {
        let bits = mask.nonzeroBitCount, shift = mask.trailingZeroBitCount
        var repeated: UInt32 = 0, filled = 0
        while filled < bits {
            repeated = (repeated << 8) | value
            filled += 8
        }
        return (repeated >> UInt32(filled - bits)) << UInt32(shift)
    }

    private static func isContiguous(_ mask: UInt32) -> Bool {
        let shifted = mask >> UInt32(mask.trailingZeroBitCount)
        return shifted & (shifted &+ 1) == 0
    }

    private static var machineIsLittleEndian: Bool { UInt32(1).littleEndian == 1 }
}
