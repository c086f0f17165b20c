/// Everything that animates, as a value: copying it snapshots the on-screen state (used to coalesce bursts).
struct AnimationState: Hashable {
    /// The label on screen (the old one while disappearing).
    var display: LabelModel
    /// Shrinking away toward hidden.
    var isDisappearing = false
    var scale = AnimationTrack.rest(1)
    var opacity = AnimationTrack.rest(1)
    /// Start of the blink cycle, nil when not blinking.
    var blinkStart: Double?
    var blinkPeriod = 1.2
    var morph: FrameMorph?
    /// The text columns in visual (`ColumnKey`) order, so frames need not sort them.
    var columns: [RollColumn]

    /// `model` at rest, without any animation.
    static func rest(_ model: LabelModel) -> AnimationState {
        AnimationState(display: model,
                       columns: model.columns.map { RollColumn.rest(key: $0.key, text: $0.text) })
    }

    /// Whether a badge is on screen at `time`.
    func isOnScreen(at time: Double) -> Bool {
        if display.label == .hidden { return false }
        if isDisappearing && !(time < scale.end) { return false }
        return true
    }

    /// The opacity at `time`: the blink cycle (ease-out 0 → 1 each period) or the opacity track, in 0...1.
    func opacity(at time: Double) -> Double {
        let value: Double
        if let blinkStart {
            let phase = (time - blinkStart) / blinkPeriod
            if !phase.isFinite {
                value = 1
            } else if phase <= 0 {
                value = 0
            } else {
                value = CubicBezier.easeOut.value(at: phase - phase.rounded(.down))
            }
        } else {
            value = opacity.value(at: time)
        }
        return Swift.min(Swift.max(value, 0), 1)
    }

    /// The latest end of anything still moving after `time`; `.infinity` while blinking; nil at rest.
    func animationEnd(after time: Double) -> Double? {
        guard isOnScreen(at: time) else { return nil }
        if blinkStart != nil { return .infinity }
        var end: Double?
        func consider(_ value: Double) { end = Swift.max(end ?? value, value) }
        if scale.isMoving(at: time) { consider(scale.end) }
        if opacity.isMoving(at: time) { consider(opacity.end) }
        if let morph, morph.isMoving(at: time) { consider(morph.end) }
        for column in columns where column.isRolling(at: time) { consider(column.end) }
        return end
    }
}
