import BadgeCore
import CCairo
import CPangoCairo

/// Shaped Pango text, measured once and cached: animation frames never re-shape text.
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
        let layout: OpaquePointer?
        let extents: Extents
        init(layout: OpaquePointer?, extents: Extents) {
            self.layout = layout
            self.extents = extents
        }
        deinit { if let layout { g_object_unref(UnsafeMutableRawPointer(layout)) } }
    }

    private let context: OpaquePointer
    private var entries: [Key: Entry] = [:]
    private let capacity: Int

    /// Creates a text cache holding at most `capacity` shaped strings (older ones are dropped).
    public init(capacity: Int = 512) throws {
        guard let fontMap = pango_cairo_font_map_get_default(),
              let context = pango_font_map_create_context(fontMap) else {
            throw DrawingError("Pango could not create a text context: is fontconfig configured (fc-cache) and a font installed (fonts-dejavu-core)?")
        }
        self.context = context
        self.capacity = max(capacity, 16)
        // Grey anti-aliasing, slight hinting and unhinted metrics: crisp at every scale, and
        // positions that scale linearly, so 2× is exactly twice 1×.
        if let options = cairo_font_options_create() {
            cairo_font_options_set_antialias(options, CAIRO_ANTIALIAS_GRAY)
            cairo_font_options_set_hint_style(options, CAIRO_HINT_STYLE_SLIGHT)
            cairo_font_options_set_hint_metrics(options, CAIRO_HINT_METRICS_OFF)
            pango_cairo_context_set_font_options(context, options)
            cairo_font_options_destroy(options)
        }
        pango_cairo_context_set_resolution(context, 96)
    }

    deinit {
        entries.removeAll()
        g_object_unref(UnsafeMutableRawPointer(context))
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
        guard let layout = entry(for: text, font: font).layout else { return }
        context.withUnsafeHandle { cr in
            cairo_move_to(cr, origin.x, origin.y)
            pango_cairo_show_layout(cr, layout)
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
        guard let layout = entry(for: text, font: font).layout else { return text.unicodeScalars.count }
        return Int(pango_layout_get_unknown_glyphs_count(layout))
    }

    /// How many shaped strings are cached (for tests and benchmarks).
    package var cachedCount: Int { entries.count }

    private func entry(for text: String, font: BadgeFont) -> Entry {
        let key = Key(text: text, font: font)
        if let cached = entries[key] { return cached }
        if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
        let created = makeEntry(text: text, font: font)
        entries[key] = created
        return created
    }

    private func makeEntry(text: String, font: BadgeFont) -> Entry {
        guard let layout = pango_layout_new(context) else {
            return Entry(layout: nil, extents: Extents(logical: .zero, ink: .zero))
        }
        if let description = pango_font_description_new() {
            pango_font_description_set_family(description, font.family)
            let size = font.size.isFinite && font.size > 0 ? font.size : 11
            pango_font_description_set_absolute_size(description, size * Double(PANGO_SCALE))
            pango_font_description_set_weight(description, Self.pangoWeight(font.weight))
            pango_layout_set_font_description(layout, description)
            pango_font_description_free(description)
        }
        pango_layout_set_single_paragraph_mode(layout, 1)
        pango_layout_set_text(layout, text, -1)
        var ink = PangoRectangle(), logical = PangoRectangle()
        pango_layout_get_extents(layout, &ink, &logical)
        let unit = Double(PANGO_SCALE)
        let extents = Extents(
            logical: Rect(x: Double(logical.x) / unit, y: Double(logical.y) / unit,
                          width: Double(logical.width) / unit, height: Double(logical.height) / unit),
            ink: Rect(x: Double(ink.x) / unit, y: Double(ink.y) / unit,
                      width: Double(ink.width) / unit, height: Double(ink.height) / unit))
        return Entry(layout: layout, extents: extents)
    }

    private static func pangoWeight(_ weight: FontWeight) -> PangoWeight {
        switch weight {
        case .regular: return PANGO_WEIGHT_NORMAL
        case .medium: return PANGO_WEIGHT_MEDIUM
        case .semibold: return PANGO_WEIGHT_SEMIBOLD
        case .bold: return PANGO_WEIGHT_BOLD
        }
    }
}
