/// One column of the shown text; digits that changed roll: the new glyph enters while the old leaves.
///
/// Drawing: with `lineHeight` the text line height and `y` the resting baseline position, draw `text` at
/// `y + rollOffset * lineHeight` and `outgoingText` (if any) at `y + (rollOffset - direction) * lineHeight`,
/// clipped to the badge body. Direction +1 (increase): `rollOffset` goes 1 → 0, the new glyph comes up from
/// below and the old leaves upward; -1 (decrease): -1 → 0, the reverse. `rollOffset` may overshoot slightly
/// (easeOutBack). An empty `text` is a column rolling out; an empty `outgoingText` is a column rolling in.
public struct BadgeTextRun: Hashable, Sendable {
    /// The glyph(s) at rest.
    public var text: String
    /// The glyph(s) leaving, nil when this run does not roll.
    public var outgoingText: String?
    /// Position of `text` as a fraction of the line height, 0 at rest.
    public var rollOffset: Double
    /// +1 rolls up (increase), -1 rolls down (decrease), 0 static.
    public var direction: Int
    /// Logical advance width used to place the run; morphs between old and new widths while rolling.
    public var width: Double

    /// Creates a run.
    public init(text: String, outgoingText: String? = nil, rollOffset: Double = 0, direction: Int = 0, width: Double) {
        self.text = text
        self.outgoingText = outgoingText
        self.rollOffset = rollOffset
        self.direction = direction
        self.width = width
    }
}
