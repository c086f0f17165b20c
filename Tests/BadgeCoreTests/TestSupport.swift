import BadgeCore
import Testing

/// Fake measurer: width = 7 × grapheme count, height 13; counts calls to check caching.
final class FakeMeasurer: TextMeasuring {
    var calls = 0
    var measured: [String] = []
    func size(of text: String, font: BadgeFont) -> Size {
        calls += 1
        measured.append(text)
        return Size(width: 7 * Double(text.count), height: 13)
    }
}

/// A measurer returning garbage, to check sanitising.
final class BrokenMeasurer: TextMeasuring {
    func size(of text: String, font: BadgeFont) -> Size {
        Size(width: .nan, height: -.infinity)
    }
}

/// Independent high-precision reference for a cubic bezier: pure bisection on x(t) (200 halvings), then y(t).
func referenceBezier(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, at x: Double) -> Double {
    func bx(_ t: Double) -> Double { 3 * (1 - t) * (1 - t) * t * x1 + 3 * (1 - t) * t * t * x2 + t * t * t }
    func by(_ t: Double) -> Double { 3 * (1 - t) * (1 - t) * t * y1 + 3 * (1 - t) * t * t * y2 + t * t * t }
    var low = 0.0, high = 1.0
    for _ in 0..<200 {
        let mid = (low + high) / 2
        if bx(mid) < x { low = mid } else { high = mid }
    }
    return by((low + high) / 2)
}

/// Whether `value * scale` is a whole number (within float noise).
func isOnGrid(_ value: Double, scale: Double) -> Bool {
    let device = value * scale
    return abs(device - device.rounded()) < 1e-9
}

func approx(_ a: Double, _ b: Double, _ tolerance: Double = 1e-9) -> Bool {
    abs(a - b) <= tolerance
}

func approx(_ a: Rect?, _ b: Rect?, _ tolerance: Double = 1e-5) -> Bool {
    guard let a, let b else { return a == nil && b == nil }
    return approx(a.minX, b.minX, tolerance) && approx(a.minY, b.minY, tolerance)
        && approx(a.width, b.width, tolerance) && approx(a.height, b.height, tolerance)
}

/// A controller with a manual clock and fake measurer, laid out on a 32×32 host at (100, 10) in a 400×300 window.
struct Harness {
    let clock = ManualClock(now: 10)
    let measurer = FakeMeasurer()
    let controller: BadgeController

    static let host = Rect(x: 100, y: 10, width: 32, height: 32)
    static let bounds = Rect(x: 0, y: 0, width: 400, height: 300)

    init(content: BadgeContent = .none, format: BadgeFormat = BadgeFormat(), style: BadgeStyle = BadgeStyle(),
         label: String = "Mail", scale: Double = 1) {
        controller = BadgeController(accessibilityLabel: label, content: content, format: format, style: style,
                                     clock: clock, measurer: measurer)
        controller.layout(host: Harness.host, bounds: Harness.bounds, direction: .leftToRight, scale: scale)
    }

    /// Presentations every 1/60 s from now for `seconds` (inclusive of both ends), without moving the clock.
    func frames(for seconds: Double, from start: Double? = nil) -> [(time: Double, presentation: BadgePresentation)] {
        let t0 = start ?? clock.now
        let count = Int((seconds * 60).rounded(.up))
        return (0...count).map { index in
            let time = t0 + Double(index) / 60
            return (time, controller.presentation(at: time))
        }
    }

    /// The largest jump in scale between consecutive frames.
    static func maxScaleStep(_ frames: [(time: Double, presentation: BadgePresentation)]) -> Double {
        zip(frames, frames.dropFirst()).map { abs($1.presentation.scale - $0.presentation.scale) }.max() ?? 0
    }
}

/// Where each glyph of a run is drawn, in line heights from rest: text at rollOffset, outgoing at rollOffset - direction.
func glyphPositions(_ run: BadgeTextRun) -> [String: Double] {
    var positions: [String: Double] = [:]
    if let outgoing = run.outgoingText, !outgoing.isEmpty {
        positions[outgoing] = run.rollOffset - Double(run.direction)
    }
    if !run.text.isEmpty { positions[run.text] = run.rollOffset }
    return positions
}
