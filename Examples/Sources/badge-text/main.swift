// badge-text: BadgeCore on its own. Prints what a badge shows and says for a few counts, and where
// it sits on a 24-point icon at 2x, with a measurer of its own instead of Pango.
import BadgeCore

/// Measures text as if every character were 7 points wide and 14 high.
final class FixedWidthText: TextMeasuring {
    func size(of text: String, font: BadgeFont) -> Size {
        Size(width: Double(text.count) * 7, height: 14)
    }
}

let clock = ManualClock()
let badge = BadgeController(accessibilityLabel: "Mail", content: .count(3), clock: clock, measurer: FixedWidthText())
badge.layout(host: Rect(x: 10, y: 10, width: 24, height: 24), bounds: Rect(x: 0, y: 0, width: 200, height: 44),
             direction: .leftToRight, scale: 2)
for count in [3, 12, 120, 0] {
    badge.value = .count(count)
    clock.advance(by: 1)  // past any animation
    let shown: String
    switch badge.label {
    case .text(let text): shown = text
    case .dot: shown = "•"
    case .hidden: shown = "(hidden)"
    }
    let frame = badge.presentation().frame.map { "\($0.width)x\($0.height)+\($0.minX)+\($0.minY)" } ?? "none"
    print("\(count)\t\(shown)\t\(badge.accessibilityDescription)\t\(frame)")
}
