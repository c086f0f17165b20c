import CCairo

/// A PNG icon (an application icon from an icon theme or `/usr/share/pixmaps`) decoded by cairo
/// from bytes already read (`cairo_image_surface_create_from_png_stream`: cairo never opens the
/// path) and scaled to the size drawn. Its size is checked in the header before anything is
/// decoded, so a small file that declares a huge image costs nothing.
package enum PNGIcon {
    /// The largest side, in pixels, of a PNG icon (icon themes go up to 512; hi-dpi 1024).
    package static let maximumPixels = 1024

    /// The eight bytes every PNG file starts with.
    private static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// True when `bytes` start as a PNG file does (whatever the file's name says).
    package static func isPNG(_ bytes: [UInt8]) -> Bool {
        bytes.count >= signature.count && bytes.prefix(signature.count).elementsEqual(signature)
    }

    /// The width and height in the IHDR chunk, which must come first; a reason when it does not.
    package static func size(of bytes: [UInt8]) throws(DrawingError) -> (width: Int, height: Int) {
        // Signature (8), chunk length (4), "IHDR" (4), width (4), height (4), both big-endian.
        guard isPNG(bytes), bytes.count >= 24, bytes[12..<16].elementsEqual("IHDR".utf8) else {
            throw DrawingError("the PNG file has no image header")
        }
        func word(at offset: Int) -> Int {
            bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
        }
        return (word(at: 16), word(at: 20))
    }

    /// Checks the header's size and decodes `bytes` into a new ARGB32 surface (the caller destroys it).
    package static func decode(_ bytes: [UInt8]) throws(DrawingError) -> OpaquePointer {
        let (width, height) = try size(of: bytes)
        guard width > 0, height > 0, width <= maximumPixels, height <= maximumPixels else {
            throw DrawingError("the PNG image is \(width)×\(height) pixels; an icon may be at most \(maximumPixels)×\(maximumPixels)")
        }
        let reader = ByteReader(bytes)
        let surface = withExtendedLifetime(reader) {
            cairo_image_surface_create_from_png_stream({ closure, data, length in
                guard let closure, let data else { return CAIRO_STATUS_READ_ERROR }
                return Unmanaged<ByteReader>.fromOpaque(closure).takeUnretainedValue().read(into: data, count: Int(length))
            }, Unmanaged.passUnretained(reader).toOpaque())
        }
        guard let surface else { throw DrawingError("cairo could not decode the PNG image") }
        let status = cairo_surface_status(surface)
        guard status == CAIRO_STATUS_SUCCESS else {
            cairo_surface_destroy(surface)
            throw DrawingError("the PNG image cannot be decoded: \(String(cString: cairo_status_to_string(status)))")
        }
        return surface
    }

    /// A new `pixels`-square ARGB32 surface with `image` scaled into it with cairo's good filter
    /// (a box filter when shrinking), its aspect ratio kept and centred (the caller destroys it).
    package static func render(_ image: OpaquePointer, pixels: Int) throws(DrawingError) -> OpaquePointer {
        guard let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(pixels), Int32(pixels)) else {
            throw DrawingError("cairo could not create a \(pixels)-pixel icon surface")
        }
        guard cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS, let cr = cairo_create(surface) else {
            cairo_surface_destroy(surface)
            throw DrawingError("cairo could not draw a \(pixels)-pixel icon")
        }
        let width = Double(cairo_image_surface_get_width(image)), height = Double(cairo_image_surface_get_height(image))
        let factor = Double(pixels) / max(width, height)
        cairo_translate(cr, (Double(pixels) - width * factor) / 2, (Double(pixels) - height * factor) / 2)
        cairo_scale(cr, factor, factor)
        cairo_set_source_surface(cr, image, 0, 0)
        if let pattern = cairo_get_source(cr) {
            cairo_pattern_set_filter(pattern, CAIRO_FILTER_GOOD)
            // Edge pixels are sampled against themselves, not against transparency outside the image.
            cairo_pattern_set_extend(pattern, CAIRO_EXTEND_PAD)
        }
        cairo_rectangle(cr, 0, 0, width, height)
        cairo_fill(cr)
        let status = cairo_status(cr)
        cairo_destroy(cr)
        guard status == CAIRO_STATUS_SUCCESS else {
            cairo_surface_destroy(surface)
            throw DrawingError("cairo could not scale the PNG icon: \(String(cString: cairo_status_to_string(status)))")
        }
        cairo_surface_flush(surface)
        return surface
    }

    /// Hands cairo's reader the bytes in order.
    private final class ByteReader {
        let bytes: [UInt8]
        var offset = 0
        init(_ bytes: [UInt8]) { self.bytes = bytes }

        func read(into data: UnsafeMutablePointer<UInt8>, count: Int) -> cairo_status_t {
            guard count >= 0, bytes.count - offset >= count else { return CAIRO_STATUS_READ_ERROR }
            bytes.withUnsafeBufferPointer { source in
                if let base = source.baseAddress { data.update(from: base + offset, count: count) }
            }
            offset += count
            return CAIRO_STATUS_SUCCESS
        }
    }
}
