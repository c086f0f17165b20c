/// A frame morph: from a frame captured relative to the anchor point toward the current rest frame.
///
/// Storing the start frame relative to the anchor makes relayouts move the morph with the host
/// instead of animating the move.
struct FrameMorph: Hashable {
    var fromRelative: Rect
    var start: Double
    var duration: Double

    private var track: AnimationTrack {
        AnimationTrack(from: 0, to: 1, start: start, duration: duration, curve: .easeInOut)
    }

    /// When the morph ends.
    var end: Double { start + duration }

    /// Whether the frame still changes after `time`.
    func isMoving(at time: Double) -> Bool { track.progress(at: time) < 1 }

    /// The frame at `time`; `rest` is only evaluated once the morph has started.
    func frame(at time: Double, anchor: Point, rest: () -> Rect) -> Rect {
        let from = fromRelative.offsetBy(dx: anchor.x, dy: anchor.y)
        let u = track.progress(at: time)
        if u <= 0 { return from }
        let target = rest()
        if u >= 1 { return target }
        let p = track.value(at: time)
        func mix(_ a: Double, _ b: Double) -> Double { a + (b - a) * p }
        let x0 = mix(from.minX, target.minX), y0 = mix(from.minY, target.minY)
        let x1 = mix(from.maxX, target.maxX), y1 = mix(from.maxY, target.maxY)
        return Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }
}
