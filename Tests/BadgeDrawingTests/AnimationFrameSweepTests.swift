import BadgeCore
import BadgeDrawing
import CCairo
import TestSupport
import Testing

/// Draws every frame of every kind of badge animation, 0.1 ms apart, at 1× and 2×: a frame that
/// lands at an unlucky moment (a scale that rounds to 0, a roll offset at its end) must still draw.
/// The event loop draws at whatever times its timer fires, so any instant is a possible frame.
@Suite(.drawsWithCairo) struct AnimationFrameSweepTests {
    /// Content changes that between them cover appear, bounce and roll, overflow, text morphs, the
    /// dot, blinking and disappearing.
    static let changes: [(String, @Sendable (BadgeController) -> Void)] = [
        ("appear", { $0.value = .count(3) }),
        ("increment", { $0.increment() }),
        ("overflow", { $0.value = .count(120) }),
        ("back under the overflow", { $0.value = .count(98) }),
        ("text", { $0.setText("一个信息") }),
        ("dot", { $0.showDot() }),
        ("blink", { $0.showDot(blink: true) }),
        ("disappear", { $0.clear() }),
        ("appear again", { $0.value = .count(1) }),
        ("decrement to nothing", { $0.decrement() }),
    ]

    @Test(arguments: [1.0, 2.0])
    func everyFrameOfEveryAnimationDraws(scale: Double) throws {
        let text = try TextLayouts()
        let renderer = BadgeRenderer(text: text)
        let clock = ManualClock(now: 10)
        let badge = BadgeController(accessibilityLabel: "Mail", content: .none, clock: clock, measurer: text)
        badge.layout(host: Rect(x: 10, y: 10, width: 24, height: 24), bounds: Rect(x: 0, y: 0, width: 60, height: 44),
                     direction: .leftToRight, scale: scale)
        let image = try ImageSurface(width: Int(60 * scale), height: Int(44 * scale))
        let step = 0.0001
        for (name, change) in Self.changes {
            change(badge)
            let start = clock.now
            // A blink never ends: sweep its first 1.2 s.
            let end = min(badge.animationEndTime ?? start, start + 1.2)
            var frames = 0, failures: [String] = []
            var time = start
            while time <= end + step {
                let presentation = badge.presentation(at: time)
                do {
                    try image.draw { context in
                        context.scale(by: scale)
                        renderer.cutOutRing(presentation, style: badge.style, in: context)
                        renderer.draw(presentation, style: badge.style, surface: .white, in: context)
                    }
                } catch {
                    if failures.count < 3 { failures.append("t+\(time - start) s, scale \(presentation.scale): \(error)") }
                }
                frames += 1
                time += step
            }
            #expect(failures.isEmpty, "\(name) at \(scale)×: frames that failed to draw: \(failures)")
            #expect(frames > 100, "\(name): the animation was only \(frames) frames long")
            clock.now = end + 1   // settle before the next change
        }
    }
}
