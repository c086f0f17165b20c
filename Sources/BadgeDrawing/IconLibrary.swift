import BadgeCore
import BadgeResources
import CCairo
import CRsvg

/// SVG icons rendered with librsvg and drawn as symbolic icons: their alpha is a mask painted in the
/// theme's foreground colour.
///
/// The bundled icons ship twice: as SVG, and as alpha masks that librsvg rendered from that SVG at
/// the sizes of the common scales (`make icon-masks`; a test checks they still match). Drawing a
/// bundled icon at such a size therefore never loads librsvg's code, which keeps the demo's start-up
/// fast and its memory small; any other size, and any `--icon ID=PATH` file, is rendered by librsvg.
/// Each raster is made once per device size and cached. Not Sendable: one per event-loop thread.
public final class IconLibrary {
    private final class Icon {
        let handle: UnsafeMutableRawPointer
        let librsvg: Librsvg
        init(handle: UnsafeMutableRawPointer, librsvg: Librsvg) {
            self.handle = handle
            self.librsvg = librsvg
        }
        deinit { librsvg.functions.object_unref(handle) }
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

    /// Icons loaded from files, and bundled icons parsed on first need.
    private var parsed: [String: Icon] = [:]
    /// Names whose bundled SVG was replaced by a file: their prerendered masks no longer apply.
    private var overridden: Set<String> = []
    private var rasters: [RasterKey: Raster] = [:]
    private var loadedLibrsvg: Librsvg?

    /// librsvg, loaded on first use.
    private func librsvg() throws -> Librsvg {
        if let loadedLibrsvg { return loadedLibrsvg }
        let loaded = try Librsvg()
        loadedLibrsvg = loaded
        return loaded
    }

    /// Creates a library of the bundled icons (bell, mail, chat, updates). Nothing is parsed yet.
    public init() throws {}

    /// The names of the icons the library can draw.
    public var names: [String] { Set(BundledIcons.names).union(parsed.keys).sorted() }

    /// Replaces (or adds) the icon `name` with the SVG file at `path`; throws naming the file if it is
    /// missing or not a valid SVG, so the button is never blank.
    public func loadIcon(named name: String, fromFile path: String) throws {
        let lib = try librsvg()
        var error: UnsafeMutablePointer<BadgeGError>?
        guard let handle = lib.functions.new_from_file(path, &error) else {
            throw DrawingError("cannot load icon \"\(name)\" from \(path): \(lib.consume(error))")
        }
        let icon = Icon(handle: handle, librsvg: lib)
        try Self.validate(icon, source: path)
        parsed[name] = icon
        overridden.insert(name)
        rasters = rasters.filter { $0.key.name != name }
    }

    /// Draws icon `name` into `rect` (logical units) as a mask in `color`. The context is scaled by
    /// `scale`; the icon is rasterised at device resolution and placed on whole device pixels.
    /// Returns false (drawing nothing) when there is no such icon.
    @discardableResult
    public func draw(_ name: String, in rect: Rect, color: Color, scale: Double, context: CairoContext) -> Bool {
        let pixels = max(1, Int((rect.width * scale).rounded()))
        guard let raster = raster(name, pixels: pixels) else { return false }
        context.withUnsafeHandle { cr in
            cairo_save(cr)
            let deviceX = (rect.minX * scale).rounded(), deviceY = (rect.minY * scale).rounded()
            cairo_scale(cr, 1 / scale, 1 / scale)
            CairoPaths.setColor(cr, color)
            cairo_mask_surface(cr, raster.surface, deviceX, deviceY)
            cairo_restore(cr)
        }
        return true
    }

    /// Renders icon `name` with librsvg into a `pixels`-square alpha mask (row-major, one byte a
    /// pixel), bypassing the prerendered masks. Used to make and to check those masks.
    package func renderMaskWithLibrsvg(_ name: String, pixels: Int) throws -> [UInt8] {
        guard pixels > 0, pixels <= 4096 else { throw DrawingError("icon size \(pixels) is out of range 1…4096") }
        let icon = try handle(for: name)
        let surface = try renderARGB(icon, pixels: pixels)
        defer { cairo_surface_destroy(surface) }
        guard let data = cairo_image_surface_get_data(surface) else { throw DrawingError("cairo returned no pixels") }
        let stride = Int(cairo_image_surface_get_stride(surface))
        var mask = [UInt8](repeating: 0, count: pixels * pixels)
        for y in 0..<pixels {
            for x in 0..<pixels {
                mask[y * pixels + x] = UnsafeRawPointer(data + y * stride + x * 4).load(fromByteOffset: 3, as: UInt8.self)
            }
        }
        return mask
    }

    private func raster(_ name: String, pixels: Int) -> Raster? {
        let key = RasterKey(name: name, pixels: pixels)
        if let cached = rasters[key] { return cached }
        let made: Raster?
        if !overridden.contains(name), let mask = BundledIcons.mask(name: name, pixels: pixels) {
            made = Self.maskRaster(mask, pixels: pixels)
        } else if let icon = try? handle(for: name), let surface = try? renderARGB(icon, pixels: pixels) {
            made = Raster(surface: surface)
        } else {
            made = nil
        }
        if let made { rasters[key] = made }
        return made
    }

    private func handle(for name: String) throws -> Icon {
        if let icon = parsed[name] { return icon }
        guard let bytes = BundledIcons.svgData[name] else { throw DrawingError("there is no icon named \"\(name)\"") }
        let icon = try Self.parse(bytes, source: "bundled icon \"\(name)\"", librsvg: try librsvg())
        parsed[name] = icon
        return icon
    }

    private func renderARGB(_ icon: Icon, pixels: Int) throws -> OpaquePointer {
        guard let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(pixels), Int32(pixels)) else {
            throw DrawingError("cairo could not create a \(pixels)-pixel icon surface")
        }
        guard cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS, let cr = cairo_create(surface) else {
            cairo_surface_destroy(surface)
            throw DrawingError("cairo could not draw a \(pixels)-pixel icon")
        }
        var viewport = BadgeRsvgRectangle(x: 0, y: 0, width: Double(pixels), height: Double(pixels))
        var error: UnsafeMutablePointer<BadgeGError>?
        let ok = icon.librsvg.functions.render_document(icon.handle, UnsafeMutableRawPointer(cr), &viewport, &error)
        let reason = ok != 0 ? "" : icon.librsvg.consume(error)
        cairo_destroy(cr)
        guard ok != 0 else {
            cairo_surface_destroy(surface)
            throw DrawingError("librsvg could not draw the icon: \(reason)")
        }
        cairo_surface_flush(surface)
        return surface
    }

    private static func maskRaster(_ mask: [UInt8], pixels: Int) -> Raster? {
        guard mask.count == pixels * pixels,
              let surface = cairo_image_surface_create(CAIRO_FORMAT_A8, Int32(pixels), Int32(pixels)) else { return nil }
        let raster = Raster(surface: surface)
        guard cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS, let data = cairo_image_surface_get_data(surface) else {
            return nil
        }
        cairo_surface_flush(surface)
        let stride = Int(cairo_image_surface_get_stride(surface))
        mask.withUnsafeBufferPointer { source in
            guard let base = source.baseAddress else { return }
            for y in 0..<pixels {
                (data + y * stride).update(from: base + y * pixels, count: pixels)
            }
        }
        cairo_surface_mark_dirty(surface)
        return raster
    }

    private static func parse(_ bytes: [UInt8], source: String, librsvg: Librsvg) throws -> Icon {
        var error: UnsafeMutablePointer<BadgeGError>?
        let handle = bytes.withUnsafeBufferPointer { buffer in
            librsvg.functions.new_from_data(buffer.baseAddress, buffer.count, &error)
        }
        guard let handle else {
            throw DrawingError("cannot load \(source): \(librsvg.consume(error))")
        }
        let icon = Icon(handle: handle, librsvg: librsvg)
        try validate(icon, source: source)
        return icon
    }

    /// Renders the icon once off-screen so a file that parses but cannot be drawn fails now, by name.
    private static func validate(_ icon: Icon, source: String) throws {
        guard let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 16, 16) else {
            throw DrawingError("cannot check \(source): cairo could not create a surface")
        }
        defer { cairo_surface_destroy(surface) }
        guard let cr = cairo_create(surface) else { throw DrawingError("cannot check \(source): no cairo context") }
        defer { cairo_destroy(cr) }
        var viewport = BadgeRsvgRectangle(x: 0, y: 0, width: 16, height: 16)
        var error: UnsafeMutablePointer<BadgeGError>?
        if icon.librsvg.functions.render_document(icon.handle, UnsafeMutableRawPointer(cr), &viewport, &error) == 0 {
            throw DrawingError("cannot draw \(source): \(icon.librsvg.consume(error))")
        }
    }
}
