/// The animation state of one text column: at rest, or rolling from an outgoing glyph to `text`.
///
/// `rollOffset(at:)` eases from `startOffset` to 0 on easeOutBack; the run width eases from `startWidth`
/// to the measured width of `text` on easeInOut, both over `duration`.
struct RollColumn: Hashable {
    var key: ColumnKey
    var text: String
    var outgoing: String?
    var direction: Int
    var startOffset: Double
    var startWidth: Double
    var start: Double
    var duration: Double

    /// A static column showing `text`.
    static func rest(key: ColumnKey, text: String) -> RollColumn {
        RollColumn(key: key, text: text, outgoing: nil, direction: 0, startOffset: 0, startWidth: 0,
                   start: -.infinity, duration: 0)
    }

    private var track: AnimationTrack {
        AnimationTrack(from: 0, to: 1, start: start, duration: duration, curve: .linear)
    }

    /// When the roll ends.
    var end: Double { start + duration }

    /// Whether the column is still rolling at `time`.
    func isRolling(at time: Double) -> Bool {
        outgoing != nil && track.progress(at: time) < 1
    }

    /// Position of `text` in line heights at `time` (0 at rest).
    func rollOffset(at time: Double) -> Double {
        guard isRolling(at: time) else { return 0 }
        return startOffset * (1 - CubicBezier.easeOutBack.value(at: track.progress(at: time)))
    }

    /// Advance width at `time`; `measure` is only called when the width is not `startWidth`.
    func width(at time: Double, measure: (String) -> Double) -> Double {
        guard isRolling(at: time) else { return text.isEmpty ? 0 : measure(text) }
        let u = track.progress(at: time)
        if u <= 0 { return startWidth }
        let target = text.isEmpty ? 0 : measure(text)
        return startWidth + (target - startWidth) * CubicBezier.easeInOut.value(at: u)
    }

    /// The run drawn at `time`, nil for a column that finished rolling out.
    func run(at time: Double, measure: (String) -> Double) -> BadgeTextRun? {
        if isRolling(at: time) {
            return BadgeTextRun(text: text, outgoingText: outgoing, rollOffset: rollOffset(at: time),
                                direction: direction, width: width(at: time, measure: measure))
        }
        if text.isEmpty { return nil }
        return BadgeTextRun(text: text, width: measure(text))
    }
}
