/// The image's pixels with straight (non-premultiplied) alpha, as window-manager and D-Bus icon
/// formats want them (`_NET_WM_ICON`, a StatusNotifierItem's `IconPixmap`).
extension ImageSurface {
    /// Every pixel, row by row, as a 0xAARRGGBB word with straight alpha (cairo keeps them
    /// premultiplied); fully transparent pixels are 0.
    package func straightAlphaPixels() -> [UInt32] {
        var values: [UInt32] = []
        values.reserveCapacity(width * height)
        for y in 0..<height {
            for x in 0..<width {
                let p = pixel(x: x, y: y)
                values.append(Self.straight(alpha: p.alpha, red: p.red, green: p.green, blue: p.blue))
            }
        }
        return values
    }

    /// Every pixel as four bytes A, R, G, B (network byte order of 0xAARRGGBB), straight alpha.
    package func straightAlphaBytesBigEndian() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(width * height * 4)
        for word in straightAlphaPixels() {
            bytes.append(UInt8(word >> 24))
            bytes.append(UInt8((word >> 16) & 0xff))
            bytes.append(UInt8((word >> 8) & 0xff))
            bytes.append(UInt8(word & 0xff))
        }
        return bytes
    }

    private static func straight(alpha: UInt8, red: UInt8, green: UInt8, blue: UInt8) -> UInt32 {
        guard alpha > 0 else { return 0 }
        func channel(_ v: UInt8) -> UInt32 { min(255, (UInt32(v) * 255 + UInt32(alpha) / 2) / UInt32(alpha)) }
        return UInt32(alpha) << 24 | channel(red) << 16 | channel(green) << 8 | channel(blue)
    }
}
