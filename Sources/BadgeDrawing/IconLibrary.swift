import BadgeCore
import BadgeResources
import CCairo
import CRsvg

/// SVG icons rendered with librsvg and drawn as symbolic icons: their alpha is a mask painted in the
/// theme's foreground colour.
///
/// Bundled icons are embedded in the binary; `--icon bell=PATH` style overrides load any SVG file.
/// Each icon is rasterised once per device size and cached. Not Sendable: one per event-loop thread.
public final class IconLibrary {
    private final class Icon {
        let handle: UnsafeMutablePointer<RsvgHandle>
        init(handle: UnsafeMutablePointer<RsvgHandle>) { self.handle = handle }
        deinit { g_object_unref(UnsafeMutableRawPointer(handle)) }
    }

    private final class Raster {
        let surface: OpaquePointer
        init(surface: OpaquePointer) { self.surface = surface }
        deinit { cairo_surface_destroy(surface) }
    }

    private struct RasterKey: Hashable {
        var name: String
        var pixels: Int
    }

    private var icons: [String: Icon] = [:]
    private var rasters: [RasterKey: Raster] = [:]

    /// Creates a library holding the bundled icons (bell, mail, chat, updates).
    public init() throws {
        for (name, bytes) in BundledIcons.svgData {
            icons[name] = try Self.parse(bytes, source: "bundled icon \"\(name)\"")
        }
    }

    /// The names of the icons the library can draw.
    public var names: [String] { icons.keys.sorted() }

    /// Replaces (or adds) the icon `name` with the SVG file at `path`; throws naming the file if it is
    /// missing or not a valid SVG, so the button is never blank.
    public func loadIcon(named name: String, fromFile path: String) throws {
        var error: UnsafeMutablePointer<GError>?
        guard let handle = rsvg_handle_new_from_file(path, &error) else {
            let reason = error.map { String(cString: $0.pointee.message) } ?? "unknown error"
            if let error { g_error_free(error) }
            throw DrawingError("cannot load icon \"\(name)\" from \(path): \(reason)")
        }
        let icon = Icon(handle: handle)
        try Self.validate(icon.handle, source: path)
        icons[name] = icon
        rasters = rasters.filter { $0.key.name != name }
    }

    /// Draws icon `name` into `rect` (logical units) as a mask in `color`. The context is scaled by
    /// `scale`; the icon is rasterised at device resolution and placed on whole device pixels.
    /// Returns false (drawing nothing) when there is no such icon.
    @discardableResult
    public func draw(_ name: String, in rect: Rect, color: Color, scale: Double, cr: OpaquePointer) -> Bool {
        let pixels = max(1, Int((rect.width * scale).rounded()))
        guard let raster = raster(name, pixels: pixels) else { return false }
        cairo_save(cr)
        let deviceX = (rect.minX * scale).rounded(), deviceY = (rect.minY * scale).rounded()
        cairo_scale(cr, 1 / scale, 1 / scale)
        CairoPaths.setColor(cr, color)
        cairo_mask_surface(cr, raster.surface, deviceX, deviceY)
        cairo_restore(cr)
        return true
    }

    private func raster(_ name: String, pixels: Int) -> Raster? {
        let key = RasterKey(name: name, pixels: pixels)
        if let cached = rasters[key] { return cached }
        guard let icon = icons[name],
              let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(pixels), Int32(pixels)) else { return nil }
        let raster = Raster(surface: surface)
        guard cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS, let cr = cairo_create(surface) else { return nil }
        var viewport = RsvgRectangle(x: 0, y: 0, width: Double(pixels), height: Double(pixels))
        var error: UnsafeMutablePointer<GError>?
        let ok = rsvg_handle_render_document(icon.handle, cr, &viewport, &error)
        if let error { g_error_free(error) }
        cairo_destroy(cr)
        guard ok != 0 else { return nil }
        cairo_surface_flush(surface)
        rasters[key] = raster
        return raster
    }

    private static func parse(_ bytes: [UInt8], source: String) throws -> Icon {
        var error: UnsafeMutablePointer<GError>?
        let handle = bytes.withUnsafeBufferPointer { buffer in
            rsvg_handle_new_from_data(buffer.baseAddress, gsize(buffer.count), &error)
        }
        guard let handle else {
            let reason = error.map { String(cString: $0.pointee.message) } ?? "unknown error"
            if let error { g_error_free(error) }
            throw DrawingError("cannot load \(source): \(reason)")
        }
        let icon = Icon(handle: handle)
        try validate(icon.handle, source: source)
        return icon
    }

    /// Renders the icon once off-screen so a file that parses but cannot be drawn fails now, by name.
    private static func validate(_ handle: UnsafeMutablePointer<RsvgHandle>, source: String) throws {
        guard let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 16, 16) else {
            throw DrawingError("cannot check \(source): cairo could not create a surface")
        }
        defer { cairo_surface_destroy(surface) }
        guard let cr = cairo_create(surface) else { throw DrawingError("cannot check \(source): no cairo context") }
        defer { cairo_destroy(cr) }
        var viewport = RsvgRectangle(x: 0, y: 0, width: 16, height: 16)
        var error: UnsafeMutablePointer<GError>?
        if rsvg_handle_render_document(handle, cr, &viewport, &error) == 0 {
            let reason = error.map { String(cString: $0.pointee.message) } ?? "unknown error"
            if let error { g_error_free(error) }
            throw DrawingError("cannot draw \(source): \(reason)")
        }
    }
}
