import BadgeCore
import BadgeDrawing
import CCairo
import CXCB

/// Copies rectangles of a client-side cairo image to a window with PutImage, split into requests
/// the server accepts, converting to RGB565 on 16-bit screens and to the server's byte order.
enum ImageUpload {
    /// Copies the device-pixel rectangle `rect` (clipped to the image) of `image` to the same place in `window`.
    static func put(_ image: ImageSurface, x: XConnection, window: xcb_window_t, gc: xcb_gcontext_t, rect: PixelRect) {
        image.withUnsafeSurface { surface in put(surface, width: image.width, height: image.height, x: x, window: window, gc: gc, rect: rect) }
    }

    private static func put(_ surface: OpaquePointer, width: Int, height: Int, x: XConnection, window: xcb_window_t,
                            gc: xcb_gcontext_t, rect: PixelRect) {
        let visible = rect.intersection(PixelRect(x: 0, y: 0, width: width, height: height))
        guard !visible.isEmpty, let data = cairo_image_surface_get_data(surface) else { return }
        let left = visible.x, top = visible.y, right = visible.maxX, bottom = visible.maxY
        let stride = Int(cairo_image_surface_get_stride(surface))
        let columns = right - left
        let bytesPerPixel = x.bitsPerPixel == 16 ? 2 : 4
        // Cairo's pixels are native-endian words; swap them for a server that wants the other order.
        let swapBytes = x.imageByteOrderIsLSB != (UInt32(1).littleEndian == 1)
        let rowBytes = ((columns * bytesPerPixel) + 3) & ~3
        let rowsPerRequest = max(1, min(bottom - top, (x.maximumRequestBytes - 64) / max(rowBytes, 1)))
        var row = top
        var strip = [UInt8](repeating: 0, count: rowBytes * rowsPerRequest)
        while row < bottom {
            let rows = min(rowsPerRequest, bottom - row)
            strip.withUnsafeMutableBytes { buffer in
                guard let base = buffer.baseAddress else { return }
                for r in 0..<rows {
                    let source = UnsafeRawPointer(data + (row + r) * stride + left * 4)
                    let target = base + r * rowBytes
                    if bytesPerPixel == 2 {
                        convertToRGB565(source, target, count: columns, swapBytes: swapBytes)
                    } else if swapBytes {
                        for i in 0..<columns {
                            let pixel = source.loadUnaligned(fromByteOffset: i * 4, as: UInt32.self)
                            target.storeBytes(of: pixel.byteSwapped, toByteOffset: i * 4, as: UInt32.self)
                        }
                    } else {
                        target.copyMemory(from: source, byteCount: columns * 4)
                    }
                }
            }
            strip.withUnsafeBufferPointer { buffer in
                _ = xcb_put_image(x.handle, UInt8(XCB_IMAGE_FORMAT_Z_PIXMAP.rawValue), window, gc,
                                  UInt16(clamping: columns), UInt16(clamping: rows), Int16(clamping: left), Int16(clamping: row), 0,
                                  x.rootDepth, UInt32(rowBytes * rows), buffer.baseAddress)
            }
            row += rows
        }
    }

    private static func convertToRGB565(_ source: UnsafeRawPointer, _ target: UnsafeMutableRawPointer, count: Int, swapBytes: Bool) {
        for i in 0..<count {
            let pixel = source.loadUnaligned(fromByteOffset: i * 4, as: UInt32.self)
            let r = (pixel >> 19) & 0x1f, g = (pixel >> 10) & 0x3f, b = (pixel >> 3) & 0x1f
            let packed = UInt16(truncatingIfNeeded: (r << 11) | (g << 5) | b)
            target.storeBytes(of: swapBytes ? packed.byteSwapped : packed, toByteOffset: i * 2, as: UInt16.self)
        }
    }
}
