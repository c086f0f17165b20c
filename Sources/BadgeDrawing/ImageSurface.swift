import BadgeCore
import CCairo

/// An in-memory ARGB32 Cairo image: the off-screen target for screenshots, goldens and benchmarks.
///
/// Owns its `cairo_surface_t`; not Sendable, use it on one thread. Draw into it with ``draw(_:)``.
public final class ImageSurface {
    /// The underlying cairo surface; valid for the lifetime of this object.
    private let surface: OpaquePointer
    /// Width in device pixels.
    public let width: Int
    /// Height in device pixels.
    public let height: Int

    /// Creates a transparent image of `width` × `height` device pixels.
    public init(width: Int, height: Int) throws(DrawingError) {
        guard width > 0, height > 0, width <= 32_767, height <= 32_767 else {
            throw DrawingError("cannot create a \(width)×\(height) image: each side must be 1…32767 pixels")
        }
        guard let created = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(width), Int32(height)) else {
            throw DrawingError("cairo could not create a \(width)×\(height) image")
        }
        let status = cairo_surface_status(created)
        guard status == CAIRO_STATUS_SUCCESS else {
            cairo_surface_destroy(created)
            throw DrawingError("cairo could not create a \(width)×\(height) image: \(String(cString: cairo_status_to_string(status)))")
        }
        surface = created
        self.width = width
        self.height = height
    }

    /// An ARGB32 image over `width` × `height` pixels of memory someone else owns (rows of
    /// `stride` bytes), which must outlive the image: for a back buffer in shared memory.
    package init(wrapping data: UnsafeMutableRawPointer, width: Int, height: Int, stride: Int) throws(DrawingError) {
        guard width > 0, height > 0, width <= 32_767, height <= 32_767,
              stride >= Int(cairo_format_stride_for_width(CAIRO_FORMAT_ARGB32, Int32(width))) else {
            throw DrawingError("cannot wrap a \(width)×\(height) image with rows of \(stride) bytes")
        }
        guard let created = cairo_image_surface_create_for_data(data.assumingMemoryBound(to: UInt8.self), CAIRO_FORMAT_ARGB32,
                                                                Int32(width), Int32(height), Int32(stride)) else {
            throw DrawingError("cairo could not wrap a \(width)×\(height) image")
        }
        guard cairo_surface_status(created) == CAIRO_STATUS_SUCCESS else {
            cairo_surface_destroy(created)
            throw DrawingError("cairo could not wrap a \(width)×\(height) image")
        }
        surface = created
        self.width = width
        self.height = height
    }

    /// Loads a PNG file into a new image.
    public init(contentsOfPNG path: String) throws {
        guard let loaded = cairo_image_surface_create_from_png(path) else {
            throw DrawingError("cannot read PNG \(path)")
        }
        let status = cairo_surface_status(loaded)
        guard status == CAIRO_STATUS_SUCCESS else {
            cairo_surface_destroy(loaded)
            throw DrawingError("cannot read PNG \(path): \(String(cString: cairo_status_to_string(status)))")
        }
        // Normalise to ARGB32 so pixel access has one layout.
        let w = Int(cairo_image_surface_get_width(loaded)), h = Int(cairo_image_surface_get_height(loaded))
        guard let converted = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(w), Int32(h)),
              cairo_surface_status(converted) == CAIRO_STATUS_SUCCESS else {
            cairo_surface_destroy(loaded)
            throw DrawingError("cannot convert PNG \(path) to ARGB32")
        }
        if let cr = cairo_create(converted) {
            cairo_set_source_surface(cr, loaded, 0, 0)
            cairo_set_operator(cr, CAIRO_OPERATOR_SOURCE)
            cairo_paint(cr)
            cairo_destroy(cr)
        }
        cairo_surface_destroy(loaded)
        cairo_surface_flush(converted)
        surface = converted
        width = w
        height = h
    }

    deinit { cairo_surface_destroy(surface) }

    /// Calls `body` with a new context drawing into this image, in device pixels. Throws when
    /// cairo cannot make the context, or when drawing left it in an error state.
    public func draw(_ body: (CairoContext) throws -> Void) throws {
        guard let cr = cairo_create(surface) else { throw DrawingError("cairo could not create a context") }
        let context = CairoContext(handle: cr, owned: true)
        try body(context)
        let status = cairo_status(cr)
        guard status == CAIRO_STATUS_SUCCESS else {
            throw DrawingError("drawing failed: \(String(cString: cairo_status_to_string(status)))")
        }
        cairo_surface_flush(surface)
    }

    /// Calls `body` with the raw `cairo_surface_t` (flushed), valid only during the call.
    package func withUnsafeSurface<Result>(_ body: (OpaquePointer) throws -> Result) rethrows -> Result {
        cairo_surface_flush(surface)
        return try body(surface)
    }

    /// Writes the image as a PNG file.
    public func writePNG(to path: String) throws {
        cairo_surface_flush(surface)
        let status = cairo_surface_write_to_png(surface, path)
        guard status == CAIRO_STATUS_SUCCESS else {
            throw DrawingError("cannot write PNG \(path): \(String(cString: cairo_status_to_string(status)))")
        }
    }

    /// The pixel at (x, y) as premultiplied (alpha, red, green, blue) bytes; zeros outside the image.
    public func pixel(x: Int, y: Int) -> (alpha: UInt8, red: UInt8, green: UInt8, blue: UInt8) {
        guard x >= 0, y >= 0, x < width, y < height, let data = cairo_image_surface_get_data(surface) else {
            return (0, 0, 0, 0)
        }
        let stride = Int(cairo_image_surface_get_stride(surface))
        let value = UnsafeRawPointer(data + y * stride + x * 4).loadUnaligned(as: UInt32.self)
        return (UInt8(value >> 24), UInt8((value >> 16) & 0xff), UInt8((value >> 8) & 0xff), UInt8(value & 0xff))
    }
}

extension ImageSurface {
    /// Sets the pixel at (x, y) from premultiplied bytes; ignored outside the image.
    public func setPixel(x: Int, y: Int, alpha: UInt8, red: UInt8, green: UInt8, blue: UInt8) {
        guard x >= 0, y >= 0, x < width, y < height, let data = cairo_image_surface_get_data(surface) else { return }
        let stride = Int(cairo_image_surface_get_stride(surface))
        let value = UInt32(alpha) << 24 | UInt32(red) << 16 | UInt32(green) << 8 | UInt32(blue)
        UnsafeMutableRawPointer(data + y * stride + x * 4).storeBytes(of: value, as: UInt32.self)
        cairo_surface_mark_dirty_rectangle(surface, Int32(x), Int32(y), 1, 1)
    }
}

extension ImageSurface {
    /// The mean colour of the image's pixels (alpha ignored): what a tray's background looks like.
    public var averageColor: Color {
        var red = 0.0, green = 0.0, blue = 0.0
        let count = Double(max(width * height, 1))
        for y in 0..<height {
            for x in 0..<width {
                let p = pixel(x: x, y: y)
                red += Double(p.red)
                green += Double(p.green)
                blue += Double(p.blue)
            }
        }
        return Color(red: red / count / 255, green: green / count / 255, blue: blue / count / 255)
    }

    /// The relative luminance of ``averageColor`` (0 black … 1 white, Rec. 709 weights on the
    /// sRGB values): below 0.5 the image is dark, and light marks read on it.
    public var averageLuminance: Double {
        let color = averageColor
        return 0.2126 * color.red + 0.7152 * color.green + 0.0722 * color.blue
    }
}
