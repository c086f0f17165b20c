/// Measures label text; implemented by the drawing layer (Pango), faked in tests.
public protocol TextMeasuring: AnyObject {
    /// Logical size of `text` set in `font` (ink-independent logical extents).
    func size(of text: String, font: BadgeFont) -> Size
}
