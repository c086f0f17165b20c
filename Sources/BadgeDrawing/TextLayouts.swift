import BadgeCore
import CCairo
import CPangoCairo

/// Shaped Pango text, measured once and cached: animation frames never re-shape text. Every
/// string is capped to `TextBounds/maximumShapedBytes` bytes before it is shaped or looked up.
///
/// Text goes through Pango (fontconfig fallback for CJK and colour emoji), never cairo's toy API.
/// Implements `TextMeasuring` for the badge core. Not Sendable: one per event-loop thread.
public final class TextLayouts: TextMeasuring {
    /// The measured extents of one shaped string, in logical units.
    public struct Extents: Hashable, Sendable {
        /// The logical box (advance width × line height) with its origin at the layout's top-left.
        public var logical: Rect
        /// The box of the inked pixels, relative to the same origin: used to centre text visually.
        public var ink: Rect
    }

    private struct Key: Hashable {
        var text: String
        var font: BadgeFont
    }

    private final class Entry {
        let layout: UnsafeMutableRawPointer?
        let extents: Extents
        let release: ((UnsafeMutableRawPointer?) -> Void)?
        init(layout: UnsafeMutableRawPointer?, extents: Extents, release: ((UnsafeMutableRawPointer?) -> Void)?) {
            self.layout = layout
            self.extents = extents
            self.release = release
        }
        deinit { if let layout { release?(layout) } }
    }

    /// Pango's entry points (each checked when loaded) and the context.
    private struct Loaded {
        let pango: Functions
        let context: UnsafeMutableRawPointer
    }

    /// The entry points of `BadgePango`, unwrapped once after loading.
    private struct Functions {
        let cairo_font_map_get_default: @convention(c) () -> UnsafeMutableRawPointer?
        let font_map_create_context: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer?
        let cairo_context_set_font_options: @convention(c) (UnsafeMutableRawPointer?, UnsafeRawPointer?) -> Void
        let cairo_context_set_resolution: @convention(c) (UnsafeMutableRawPointer?, Double) -> Void
        let cairo_show_layout: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void
        let layout_new: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer?
        let layout_set_font_description: @convention(c) (UnsafeMutableRawPointer?, UnsafeRawPointer?) -> Void
        let layout_set_single_paragraph_mode: @convention(c) (UnsafeMutableRawPointer?, Int32) -> Void
        let layout_set_text: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, Int32) -> Void
        let layout_get_extents: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<BadgePangoRectangle>?,
                                                UnsafeMutablePointer<BadgePangoRectangle>?) -> Void
        let layout_get_unknown_glyphs_count: @convention(c) (UnsafeMutableRawPointer?) -> Int32
        let font_description_new: @convention(c) () -> UnsafeMutableRawPointer?
        let font_description_free: @convention(c) (UnsafeMutableRawPointer?) -> Void
        let font_description_set_family: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?) -> Void
        let font_description_set_absolute_size: @convention(c) (UnsafeMutableRawPointer?, Double) -> Void
        let font_description_set_weight: @convention(c) (UnsafeMutableRawPointer?, Int32) -> Void
        let object_unref: @convention(c) (UnsafeMutableRawPointer?) -> Void
        let language_from_string: @convention(c) (UnsafePointer<CChar>?) -> UnsafeMutableRawPointer?
        let context_set_language: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void

        /// Every entry point of `table`, or nil when one is missing.
        init?(_ table: BadgePango) {
            guard let cairo_font_map_get_default = table.cairo_font_map_get_default,
              let font_map_create_context = table.font_map_create_context,
              let cairo_context_set_font_options = table.cairo_context_set_font_options,
              let cairo_context_set_resolution = table.cairo_context_set_resolution,
              let cairo_show_layout = table.cairo_show_layout,
              let layout_new = table.layout_new,
              let layout_set_font_description = table.layout_set_font_description,
              let layout_set_single_paragraph_mode = table.layout_set_single_paragraph_mode,
              let layout_set_text = table.layout_set_text,
              let layout_get_extents = table.layout_get_extents,
              let layout_get_unknown_glyphs_count = table.layout_get_unknown_glyphs_count,
              let font_description_new = table.font_description_new,
              let font_description_free = table.font_description_free,
              let font_description_set_family = table.font_description_set_family,
              let font_description_set_absolute_size = table.font_description_set_absolute_size,
              let font_description_set_weight = table.font_description_set_weight,
              let object_unref = table.object_unref,
              let language_from_string = table.language_from_string,
              let context_set_language = table.context_set_language else { return nil }
            self.cairo_font_map_get_default = cairo_font_map_get_default
            self.font_map_create_context = font_map_create_context
            self.cairo_context_set_font_options = cairo_context_set_font_options
            self.cairo_context_set_resolution = cairo_context_set_resolution
            self.cairo_show_layout = cairo_show_layout
            self.layout_new = layout_new
            self.layout_set_font_description = layout_set_font_description
            self.layout_set_single_paragraph_mode = layout_set_single_paragraph_mode
            self.layout_set_text = layout_set_text
            self.layout_get_extents = layout_get_extents
            self.layout_get_unknown_glyphs_count = layout_get_unknown_glyphs_count
            self.font_description_new = font_description_new
            self.font_description_free = font_description_free
            self.font_description_set_family = font_description_set_family
            self.font_description_set_absolute_size = font_description_set_absolute_size
            self.font_description_set_weight = font_description_set_weight
            self.object_unref = object_unref
            self.language_from_string = language_from_string
            self.context_set_language = context_set_language
        }
    }

    private var loaded: Loaded?
    /// The language text is shaped for ("de-de", "zh-cn", "ar"): it picks the fonts fontconfig
    /// falls back to (Han glyphs differ between Chinese and Japanese). Set it before the first text
    /// is shaped; nil: Pango's default from the locale.
    public var language: String?
    private var loadFailure: DrawingError?
    private var entries: [Key: Entry] = [:]
    private let capacity: Int

    /// Creates a text cache holding at most `capacity` shaped strings (older ones are dropped).
    ///
    /// Pango itself is loaded (dlopen) the first time text is measured or drawn, or by ``load()``:
    /// a window can be on the screen before its libraries are mapped. With `warmUp`, a
    /// short-lived thread loads Pango and reads the font configuration meanwhile (once per process).
    public init(capacity: Int = 512, warmUp: Bool = false) throws {
        self.capacity = max(capacity, 16)
        if warmUp { badge_text_warm_up() }
    }

    deinit {
        entries.removeAll()
        if let loaded { loaded.pango.object_unref(loaded.context) }
    }

    /// Loads Pango and makes its context now (once; later calls return at once). Throws, with what
    /// to install, when Pango or a font is missing; text then measures as empty and draws nothing.
    public func load() throws(DrawingError) {
        if loaded != nil { return }
        if let loadFailure { throw loadFailure }
        var table = BadgePango()
        guard badge_pango_load(&table) != 0, let pango = Functions(table) else {
            let reason = badge_pango_error().map { String(cString: $0) } ?? "missing entry points"
            let failure = DrawingError("cannot load Pango for text (\(reason)); install the Debian package libpangocairo-1.0-0")
            loadFailure = failure
            throw failure
        }
        guard let fontMap = pango.cairo_font_map_get_default(), let context = pango.font_map_create_context(fontMap) else {
            let failure = DrawingError("Pango could not create a text context: is fontconfig configured (fc-cache) and a font installed (fonts-dejavu-core)?")
            loadFailure = failure
            throw failure
        }
        // Grey anti-aliasing, slight hinting and unhinted metrics: crisp at every scale, and
        // positions that scale linearly, so 2× is exactly twice 1×.
        if let options = cairo_font_options_create() {
            cairo_font_options_set_antialias(options, CAIRO_ANTIALIAS_GRAY)
            cairo_font_options_set_hint_style(options, CAIRO_HINT_STYLE_SLIGHT)
            cairo_font_options_set_hint_metrics(options, CAIRO_HINT_METRICS_OFF)
            pango.cairo_context_set_font_options(context, UnsafeRawPointer(options))
            cairo_font_options_destroy(options)
        }
        pango.cairo_context_set_resolution(context, 96)
        if let language, let tag = pango.language_from_string(language) { pango.context_set_language(context, tag) }
        loaded = Loaded(pango: pango, context: context)
    }

    /// The logical size of `text` in `font`, for the badge core's layout.
    public func size(of text: String, font: BadgeFont) -> Size {
        entry(for: text, font: font).extents.logical.size
    }

    /// The logical and ink extents of `text` in `font`.
    public func extents(of text: String, font: BadgeFont) -> Extents {
        entry(for: text, font: font).extents
    }

    /// Draws `text` with its layout's top-left corner at `origin` (user space) in the current source colour.
    public func draw(_ text: String, font: BadgeFont, at origin: Point, in context: CairoContext) {
        guard let layout = entry(for: text, font: font).layout, let pango = loaded?.pango else { return }
        context.withUnsafeHandle { cr in
            cairo_move_to(cr, origin.x, origin.y)
            pango.cairo_show_layout(UnsafeMutableRawPointer(cr), layout)
        }
    }

    /// Draws `text` in `color` with its layout's top-left corner at `origin` (user space).
    public func draw(_ text: String, font: BadgeFont, at origin: Point, color: Color, in context: CairoContext) {
        context.setColor(color)
        draw(text, font: font, at: origin, in: context)
    }

    /// How many characters of `text` no installed font can show (drawn as missing-glyph boxes);
    /// 0 when fontconfig fallback found a font for every character.
    public func missingGlyphCount(in text: String, font: BadgeFont) -> Int {
        guard let layout = entry(for: text, font: font).layout, let pango = loaded?.pango else { return text.unicodeScalars.count }
        return Int(pango.layout_get_unknown_glyphs_count(layout))
    }

    /// How many shaped strings are cached (for tests and benchmarks).
    package var cachedCount: Int { entries.count }

    /// The shaped entry for `text`, capped first (`TextBounds/shapedText(_:)`): Pango never sees more
    /// than `TextBounds/maximumShapedBytes` bytes, whose shaping costs grow faster than their length.
    private func entry(for text: String, font: BadgeFont) -> Entry {
        let key = Key(text: TextBounds.shapedText(text), font: font)
        if let cached = entries[key] { return cached }
        if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
        let created = makeEntry(text: key.text, font: font)
        entries[key] = created
        return created
    }

    private func makeEntry(text: String, font: BadgeFont) -> Entry {
        try? load()
        guard let loaded, let layout = loaded.pango.layout_new(loaded.context) else {
            return Entry(layout: nil, extents: Extents(logical: .zero, ink: .zero), release: nil)
        }
        let pango = loaded.pango
        if let description = pango.font_description_new() {
            pango.font_description_set_family(description, font.family)
            let size = font.size.isFinite && font.size > 0 ? font.size : 11
            pango.font_description_set_absolute_size(description, size * Double(BADGE_PANGO_SCALE))
            pango.font_description_set_weight(description, Self.pangoWeight(font.weight))
            pango.layout_set_font_description(layout, description)
            pango.font_description_free(description)
        }
        pango.layout_set_single_paragraph_mode(layout, 1)
        pango.layout_set_text(layout, text, -1)
        var ink = BadgePangoRectangle(), logical = BadgePangoRectangle()
        pango.layout_get_extents(layout, &ink, &logical)
        let unit = Double(BADGE_PANGO_SCALE)
        let extents = Extents(
            logical: Rect(x: Double(logical.x) / unit, y: Double(logical.y) / unit,
                          width: Double(logical.width) / unit, height: Double(logical.height) / unit),
            ink: Rect(x: Double(ink.x) / unit, y: Double(ink.y) / unit,
                      width: Double(ink.width) / unit, height: Double(ink.height) / unit))
        let unref = pango.object_unref
        return Entry(layout: layout, extents: extents, release: { if let object = $0 { unref(object) } })
    }

    private static func pangoWeight(_ weight: FontWeight) -> Int32 {
        switch weight {
        case .regular: return Int32(BADGE_PANGO_WEIGHT_NORMAL)
        case .medium: return Int32(BADGE_PANGO_WEIGHT_MEDIUM)
        case .semibold: return Int32(BADGE_PANGO_WEIGHT_SEMIBOLD)
        case .bold: return Int32(BADGE_PANGO_WEIGHT_BOLD)
        }
    }
}
