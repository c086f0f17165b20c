import BadgeCore
import BadgeResources
import CCairo
import CRsvg

/// SVG and PNG icons drawn as symbolic icons: their alpha is a mask painted in the theme's
/// foreground colour. SVGs are rendered with librsvg; PNGs (an application's icon from its icon
/// theme, at most 1024 pixels a side) are decoded by cairo and scaled with its good
/// filter. An application's colourful icon therefore becomes a silhouette in the toolbar's colour.
///
/// The bundled icons ship twice: as SVG, and as alpha masks that librsvg rendered from that SVG at
/// the sizes of the common scales (`make icon-masks`; a test checks they still match). Drawing a
/// bundled icon at such a size therefore never loads librsvg's code, which keeps the demo's start-up
/// fast and its memory small; any other size, and any `--icon ID=PATH` file, is rendered by librsvg.
///
/// What is kept is bounded: an icon file is read with `BoundedFile` (regular files only, at most
/// 4 MiB, never blocking) and handed to librsvg as bytes (librsvg never opens a path, nor anything
/// the SVG refers to); a document may declare at most ``maximumPixels`` pixels a side. The parsed
/// document is dropped as soon as it has been drawn: the library keeps the SVG's bytes and the
/// alpha masks at the sizes drawn (one byte a pixel), so a large SVG costs its bytes and its masks,
/// not librsvg's tree, which can be a hundred times the file. Not Sendable: one per event-loop thread.
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

    /// The largest side, in pixels, of an icon's declared (intrinsic) size and of a mask drawn.
    public static let maximumPixels = 4096

    /// The SVG bytes of the icons loaded from files (each at most the icon cap of `BoundedFile`).
    private var files: [String: [UInt8]] = [:]
    /// The PNG bytes of the icons loaded from PNG files, decoded again for each new size drawn.
    private var pngFiles: [String: [UInt8]] = [:]
    /// A document parsed and checked by `loadIcon`, kept until its first mask is drawn so that a
    /// start-up parses each file once; then dropped.
    private var justLoaded: (name: String, icon: Icon)?
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
    public var names: [String] { Set(BundledIcons.names).union(files.keys).union(pngFiles.keys).sorted() }

    /// Replaces (or adds) the icon `name` with the SVG or PNG file at `path` (a PNG by its
    /// signature bytes, whatever its name; anything else is read as SVG), read through
    /// `BoundedFile` (a regular file of at most 4 MiB; a FIFO, device or folder is refused without
    /// blocking). Throws a one-line reason naming the file if it is missing, unreadable, too large,
    /// not a valid SVG or PNG, or larger than ``maximumPixels`` (an SVG) or 1024 (a PNG) pixels a
    /// side, so the button is never blank.
    public func loadIcon(named name: String, fromFile path: String) throws {
        let bytes: [UInt8]
        do {
            bytes = try BoundedFile.read(path, kind: .icon)
        } catch {
            throw DrawingError("cannot load the icon \(path): \(error)")
        }
        if PNGIcon.isPNG(bytes) {
            try loadIcon(named: name, png: bytes, source: path)
        } else {
            try loadIcon(named: name, svg: bytes, source: path)
        }
    }

    /// Replaces (or adds) the icon `name` with the PNG image `png` (at most the icon cap of 4 MiB,
    /// and 1024 pixels a side); `source` names it in errors. The image is decoded once now, so a
    /// broken file fails here; its alpha channel is the mask (an image without one is a square).
    public func loadIcon(named name: String, png bytes: [UInt8], source: String) throws {
        let cap = BoundedFile.Kind.icon
        guard bytes.count <= cap.maximumBytes else {
            throw DrawingError("cannot load the PNG icon \(source): larger than the \(cap.maximumDescription) allowed")
        }
        do {
            cairo_surface_destroy(try PNGIcon.decode(bytes))
        } catch {
            throw DrawingError("cannot load the PNG icon \(source): \(error)")
        }
        pngFiles[name] = bytes
        files[name] = nil
        rasters = rasters.filter { $0.key.name != name }
        if justLoaded?.name == name { justLoaded = nil }
    }

    /// Replaces (or adds) the icon `name` with the SVG document `svg` (at most the icon cap of
    /// 4 MiB); `source` names it in errors. Throws as ``loadIcon(named:fromFile:)`` does.
    public func loadIcon(named name: String, svg bytes: [UInt8], source: String) throws {
        let cap = BoundedFile.Kind.icon
        guard bytes.count <= cap.maximumBytes else {
            throw DrawingError("cannot load the SVG icon \(source): larger than the \(cap.maximumDescription) allowed")
        }
        let icon: Icon
        do {
            icon = try Self.parse(bytes, librsvg: try librsvg())
        } catch {
            throw DrawingError("cannot load the SVG icon \(source): \(error)")
        }
        files[name] = bytes
        pngFiles[name] = nil
        rasters = rasters.filter { $0.key.name != name }
        justLoaded = (name, icon)
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

    /// The largest side, at most `pixels`, at which icon `name` is drawn from its prerendered mask
    /// (without loading librsvg), or nil when it has none that small (or was replaced by a file).
    /// A caller free to pick a size near `pixels` (a tray icon) keeps the process small with it.
    public func prerenderedSide(of name: String, atMost pixels: Int) -> Int? {
        guard files[name] == nil, BundledIcons.names.contains(name) else { return nil }
        return BundledIcons.maskSizes.filter { $0 <= pixels }.max()
    }

    /// Renders icon `name` with librsvg into a `pixels`-square alpha mask (row-major, one byte a
    /// pixel), bypassing the prerendered masks. Used to make and to check those masks.
    package func renderMaskWithLibrsvg(_ name: String, pixels: Int) throws -> [UInt8] {
        guard pixels > 0, pixels <= Self.maximumPixels else {
            throw DrawingError("icon size \(pixels) is out of range 1…\(Self.maximumPixels)")
        }
        let surface = try renderARGB(name, pixels: pixels)
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

    /// The mask of icon `name` at `pixels` a side, made once: from the prerendered masks for an
    /// untouched bundled icon, else rendered with librsvg and reduced to its alpha.
    private func raster(_ name: String, pixels: Int) -> Raster? {
        let key = RasterKey(name: name, pixels: pixels)
        if let cached = rasters[key] { return cached }
        guard pixels <= Self.maximumPixels else { return nil }
        let made: Raster?
        if let png = pngFiles[name] {
            made = Self.pngRaster(png, pixels: pixels)
        } else if files[name] == nil, let mask = BundledIcons.mask(name: name, pixels: pixels) {
            made = Self.maskRaster(mask, pixels: pixels)
        } else if let surface = try? renderARGB(name, pixels: pixels) {
            made = Self.alphaRaster(of: surface, pixels: pixels)
            cairo_surface_destroy(surface)
            // A large document's tree was many small blocks, now freed: give their pages back.
            if (files[name]?.count ?? 0) >= Self.trimThreshold { badge_release_freed_memory() }
        } else {
            made = nil
        }
        if let made { rasters[key] = made }
        return made
    }

    /// The SVG size from which dropping a parsed document is followed by `malloc_trim`.
    private static let trimThreshold = 256 << 10

    /// Renders icon `name` into a new ARGB surface of `pixels` a side. The document is parsed for
    /// this drawing only (or is the one `loadIcon` just checked) and is dropped on return.
    private func renderARGB(_ name: String, pixels: Int) throws -> OpaquePointer {
        if let loaded = justLoaded, loaded.name == name {
            justLoaded = nil
            return try Self.render(loaded.icon, pixels: pixels)
        }
        guard let bytes = files[name] ?? BundledIcons.svgData[name] else {
            throw DrawingError("there is no icon named \(InputEcho.quoted(name, limit: 80))")
        }
        return try Self.render(try Self.parse(bytes, librsvg: try librsvg()), pixels: pixels)
    }

    /// The mask of a PNG icon at `pixels` a side: decoded, scaled, reduced to its alpha.
    private static func pngRaster(_ bytes: [UInt8], pixels: Int) -> Raster? {
        guard let image = try? PNGIcon.decode(bytes) else { return nil }
        defer { cairo_surface_destroy(image) }
        guard let scaled = try? PNGIcon.render(image, pixels: pixels) else { return nil }
        defer { cairo_surface_destroy(scaled) }
        return alphaRaster(of: scaled, pixels: pixels)
    }

    /// An A8 copy of the alpha of an ARGB surface: the mask kept, a quarter of the ARGB's size.
    private static func alphaRaster(of surface: OpaquePointer, pixels: Int) -> Raster? {
        guard let data = cairo_image_surface_get_data(surface) else { return nil }
        let stride = Int(cairo_image_surface_get_stride(surface))
        var mask = [UInt8](repeating: 0, count: pixels * pixels)
        for y in 0..<pixels {
            for x in 0..<pixels {
                mask[y * pixels + x] = UnsafeRawPointer(data + y * stride + x * 4).load(fromByteOffset: 3, as: UInt8.self)
            }
        }
        return maskRaster(mask, pixels: pixels)
    }

    private static func render(_ icon: Icon, pixels: Int) throws -> OpaquePointer {
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

    /// Parses an SVG document and checks it: its declared size is at most ``maximumPixels`` a
    /// side, and it draws (once, off-screen at 16 pixels), so a file that parses but cannot be
    /// drawn fails now. The reason is one line.
    private static func parse(_ bytes: [UInt8], librsvg: Librsvg) throws -> Icon {
        var error: UnsafeMutablePointer<BadgeGError>?
        let handle = bytes.withUnsafeBufferPointer { buffer in
            librsvg.functions.new_from_data(buffer.baseAddress, buffer.count, &error)
        }
        guard let handle else { throw DrawingError(oneLine(librsvg.consume(error))) }
        let icon = Icon(handle: handle, librsvg: librsvg)
        var width = 0.0, height = 0.0
        if let size = librsvg.functions.intrinsic_size_in_pixels, size(handle, &width, &height) != 0 {
            let limit = Double(maximumPixels)
            guard width.isFinite, height.isFinite, width <= limit, height <= limit else {
                throw DrawingError("the document is \(describe(width))×\(describe(height)) pixels; an icon may be at most "
                    + "\(maximumPixels)×\(maximumPixels) (set a smaller width and height, and a viewBox)")
            }
        }
        let surface = try render(icon, pixels: 16)
        cairo_surface_destroy(surface)
        return icon
    }

    private static func describe(_ pixels: Double) -> String {
        pixels.isFinite && abs(pixels) < 1e15 ? String(Int(pixels.rounded())) : "\(pixels)"
    }

    /// librsvg's messages may span lines (XML errors): one line for the app's warnings.
    private static func oneLine(_ text: String) -> String {
        let line = text.split(whereSeparator: \.isNewline).map { $0.drop { $0 == " " || $0 == "\t" } }.joined(separator: " ")
        return line.count > 200 ? line.prefix(200) + "…" : line
    }
}
