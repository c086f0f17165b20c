/// The look of a badge: colours, font, padding, sizes, border ring, anchor corner and offset.
public struct BadgeStyle: Hashable, Sendable {
    /// Fill of the badge body.
    public var backgroundColor: Color = .badgeRed
    /// Colour of the label text.
    public var textColor: Color = .white
    /// Fill of a badge whose value is not up to date (``BadgeConfidence/stale``); a neutral grey
    /// that white text reads on, on light and dark toolbars alike.
    public var staleColor: Color = .staleGrey
    /// Font of the label text.
    public var font: BadgeFont = BadgeFont()
    /// Space left and right of the text inside a pill, logical px.
    public var horizontalPadding: Double = 5
    /// Space above and below the text, logical px.
    public var verticalPadding: Double = 2
    /// Minimum height, and minimum width (= height), logical px.
    public var minimumSize: Double = 18
    /// Diameter of the `.dot` badge, logical px.
    public var dotDiameter: Double = 8
    /// Optional ring around the body (outside it); nil for none.
    public var border: BadgeBorder? = BadgeBorder(width: 1.5, color: .matchesSurface)
    /// The host corner the badge is centred on.
    public var anchor: BadgeAnchor = .topTrailing
    /// Shift from the anchor corner: +x toward the trailing edge (mirrored in RTL), +y down.
    public var offset: Point = .zero

    /// The default style: red pill with white bold 11 px text, top-trailing.
    public init() {}

    /// Lengths (padding, sizes, border width, font size) are clamped to at most this many logical px.
    public static let maximumLength: Double = 4096
    /// Offsets are clamped to ±this many logical px.
    public static let maximumOffset: Double = 1_000_000

    /// A style whose numbers are all usable. Rules:
    /// - colours: components clamped to 0...1, NaN/infinite components take the default colour's value;
    /// - font: see `BadgeFont.sanitized()`;
    /// - paddings and `minimumSize`: NaN, infinite or negative → default (0 is allowed); clamped to `maximumLength`;
    /// - `dotDiameter`: NaN, infinite or <= 0 → 8; clamped to `maximumLength`;
    /// - border: width exactly 0 → no border; NaN, infinite or negative width → 1.5; clamped to `maximumLength`;
    ///   a fixed colour is sanitised against black;
    /// - offset: NaN/infinite components → 0; clamped to ±`maximumOffset`.
    public func sanitized() -> BadgeStyle {
        let defaults = BadgeStyle()
        var style = self
        style.backgroundColor = backgroundColor.sanitized(default: defaults.backgroundColor)
        style.textColor = textColor.sanitized(default: defaults.textColor)
        style.staleColor = staleColor.sanitized(default: defaults.staleColor)
        style.font = font.sanitized()
        style.horizontalPadding = BadgeStyle.length(horizontalPadding, default: defaults.horizontalPadding)
        style.verticalPadding = BadgeStyle.length(verticalPadding, default: defaults.verticalPadding)
        style.minimumSize = BadgeStyle.length(minimumSize, default: defaults.minimumSize)
        style.dotDiameter = dotDiameter > 0 ? BadgeStyle.length(dotDiameter, default: defaults.dotDiameter)
                                            : defaults.dotDiameter
        if let border {
            if border.width == 0 {
                style.border = nil
            } else {
                var ring = border
                ring.width = BadgeStyle.length(border.width, default: 1.5)
                if case .fixed(let color) = border.color {
                    ring.color = .fixed(color.sanitized(default: .black))
                }
                style.border = ring
            }
        }
        style.offset = Point(x: BadgeStyle.offset(offset.x), y: BadgeStyle.offset(offset.y))
        return style
    }

    /// Ring thickness after sanitising (0 when there is no ring).
    var borderWidth: Double { border?.width ?? 0 }

    private static func length(_ value: Double, default fallback: Double) -> Double {
        guard value.isFinite, value >= 0 else { return fallback }
        return Swift.min(value, maximumLength)
    }

    private static func offset(_ value: Double) -> Double {
        guard value.isFinite else { return 0 }
        return Swift.min(Swift.max(value, -maximumOffset), maximumOffset)
    }
}
