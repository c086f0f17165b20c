/// Everything needed to draw a badge at one instant: label, frame, scale, opacity and text runs.
public struct BadgePresentation: Hashable, Sendable {
    /// The label being presented (during a disappear: the old label).
    public var label: BadgeLabel
    /// The badge body at scale 1 (width may morph between old and new widths), nil when nothing to draw.
    public var frame: Rect?
    /// Drawn scaled about `frame.center`.
    public var scale: Double
    /// 0...1.
    public var opacity: Double
    /// Left-to-right visual order, laid out centred in `frame`.
    public var runs: [BadgeTextRun]

    /// Creates a presentation.
    public init(label: BadgeLabel, frame: Rect?, scale: Double, opacity: Double, runs: [BadgeTextRun]) {
        self.label = label
        self.frame = frame
        self.scale = scale
        self.opacity = opacity
        self.runs = runs
    }

    /// Nothing drawn: hidden label, no frame, scale and opacity 0.
    public static let hidden = BadgePresentation(label: .hidden, frame: nil, scale: 0, opacity: 0, runs: [])

    /// Whether anything is drawn: frame != nil && opacity > 0 && scale > 0.
    public var isVisible: Bool { frame != nil && opacity > 0 && scale > 0 }

    /// The area this presentation paints, including the scaled frame and the border ring, in logical units.
    /// The ring lies outside the body and is scaled with it; nil when nothing is drawn. Not rounded.
    public func paintedBounds(style: BadgeStyle) -> Rect? {
        paintedBounds(ringWidth: style.sanitized().borderWidth)
    }

    /// `paintedBounds(style:)` for the ring width of an already sanitised style.
    func paintedBounds(ringWidth ring: Double) -> Rect? {
        guard isVisible, let frame else { return nil }
        let body = frame.insetBy(dx: -ring, dy: -ring)
        return body.scaled(by: scale, about: frame.center)
    }
}
