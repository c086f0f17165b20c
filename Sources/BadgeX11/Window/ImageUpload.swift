import BadgeCore
import BadgeDrawing
import CCairo
import CXCB

/// Copies rectangles of a client-side cairo image to a window with PutImage, split into requests
/// the server accepts, in the window visual's pixel layout (``PixelFormat``): cairo's words as they
/// are for a 24-bit visual in the machine's byte order, converted for any other TrueColor layout.
enum ImageUpload {
    /// Copies the device-pixel rectangle `rect` (clipped to the image) of `image` to the same place
    /// in `window`, a window of `visual`.
    static func put(_ image: ImageSurface, x: XConnection, visual: WindowVisual, window: xcb_window_t, gc: xcb_gcontext_t,
                    rect: PixelRect) {
        image.withUnsafeSurface { surface in
            put(surface, width: image.width, height: image.height, x: x, visual: visual, window: window, gc: gc, rect: rect)
        }
    }

    private static func put(_ surface: OpaquePointer, width: Int, height: Int, x: XConnection, visual: WindowVisual,
                            window: xcb_window_t, gc: xcb_gcontext_t, rect: PixelRect) {
        let visible = rect.intersection(PixelRect(x: 0, y: 0, width: width, height: height))
        guard !visible.isEmpty, let data = cairo_image_surface_get_data(surface) else { return }
        let left = visible.x, top = visible.y, bottom = visible.maxY
        let stride = Int(cairo_image_surface_get_stride(surface))
        let columns = visible.width
        let format = visual.format
        let copyUnchanged = format.matchesCairo
        let rowBytes = format.bytesPerRow(pixels: columns)
        // The request header is 24 bytes; keep a margin for it.
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
                    if copyUnchanged {
                        target.copyMemory(from: source, byteCount: columns * 4)
                    } else {
                        format.convertRow(from: source, into: target, count: columns)
                    }
                }
            }
            strip.withUnsafeBufferPointer { buffer in
                _ = xcb_put_image(x.handle, UInt8(XCB_IMAGE_FORMAT_Z_PIXMAP.rawValue), window, gc,
                                  UInt16(clamping: columns), UInt16(clamping: rows), Int16(clamping: left), Int16(clamping: row), 0,
                                  visual.depth, UInt32(rowBytes * rows), buffer.baseAddress)
            }
            row += rows
        }
    }
}
