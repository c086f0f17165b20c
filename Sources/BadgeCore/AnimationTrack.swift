/// A scalar animated from `from` to `to` over `duration` seconds starting at `start`, eased by `curve`.
struct AnimationTrack: Hashable {
    var from: Double
    var to: Double
    var start: Double
    var duration: Double
    var curve: CubicBezier

    /// A track that is already at `value`.
    static func rest(_ value: Double) -> AnimationTrack {
        AnimationTrack(from: value, to: value, start: -.infinity, duration: 0, curve: .linear)
    }

    /// When the track reaches `to`.
    var end: Double { start + duration }

    /// Linear progress 0...1 at `time` (1 for a zero duration).
    func progress(at time: Double) -> Double {
        guard duration > 0 else { return 1 }
        if time >= end { return 1 }
        if !(time > start) { return 0 }
        return Swift.min(Swift.max((time - start) / duration, 0), 1)
    }

    /// The value at `time`: exactly `from` at the start and exactly `to` from the end on.
    func value(at time: Double) -> Double {
        let u = progress(at: time)
        if u >= 1 { return to }
        if u <= 0 { return from }
        return from + (to - from) * curve.value(at: u)
    }

    /// Whether the value still changes after `time`.
    func isMoving(at time: Double) -> Bool {
        from != to && progress(at: time) < 1
    }
}
