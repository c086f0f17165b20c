import BadgeCore

/// Which monitor a window is on, with hysteresis, so that a window straddling two monitors of
/// different scales never flaps between them.
///
/// The window starts on the monitor that shows most of it. It moves to another monitor only once
/// that monitor shows at least ``threshold`` (60 %) of it, both as it is now and as it would be at
/// the other monitor's scale (its logical size kept, its top-left corner where it is), and more of
/// it than the current monitor does (or as much, being smaller: a monitor inside the current one
/// is more specific). So a window whose size changes with the scale cannot be sent
/// back by its own resize: at any position at most one of two monitors can hold 60 %. It also
/// moves when its monitor shows none of it any more, or is gone (to the monitor showing most of
/// it; else the first, the primary).
public struct MonitorTracker: Hashable, Sendable {
    /// The default share another monitor must show before a window moves to it.
    public static let defaultThreshold = 0.6

    /// The share of the window (0.5 < threshold ≤ 1) another monitor must show before the window
    /// moves to it.
    public var threshold: Double
    /// The name of the monitor the window is on, nil before the first ``update(window:scale:layout:scaleOn:)``
    /// or without monitors.
    public private(set) var current: String?

    /// A tracker that has not placed the window yet; a threshold outside 0.5…1 becomes the default.
    public init(threshold: Double = MonitorTracker.defaultThreshold) {
        self.threshold = threshold > 0.5 && threshold <= 1 ? threshold : Self.defaultThreshold
    }

    /// The monitor the window is on now that it is at `window` (root pixels), drawn at `scale`;
    /// `scaleOn` says the scale the window would take on a monitor. Nil without monitors.
    public mutating func update(window: PixelRect, scale: Double, layout: MonitorLayout,
                                scaleOn: (Monitor) -> Double) -> Monitor? {
        guard let first = layout.monitors.first else {
            current = nil
            return nil
        }
        guard let name = current, let monitor = layout.monitors.first(where: { $0.name == name }),
              MonitorLayout.share(of: window, on: monitor) > 0 else {
            let chosen = layout.mostOf(window) ?? first
            current = chosen.name
            return chosen
        }
        let held = MonitorLayout.share(of: window, on: monitor)
        for candidate in layout.monitors where candidate.name != monitor.name {
            let share = MonitorLayout.share(of: window, on: candidate)
            guard share >= threshold, share > held || (share == held && candidate.frame.area < monitor.frame.area) else { continue }
            let resized = Self.resized(window, from: scale, to: scaleOn(candidate))
            guard MonitorLayout.share(of: resized, on: candidate) >= threshold else { continue }
            current = candidate.name
            return candidate
        }
        return monitor
    }

    /// Forgets the window's monitor: the next update places it afresh.
    public mutating func reset() {
        current = nil
    }

    /// `window` at `newScale` instead of `scale`: the same logical size, the same top-left corner.
    static func resized(_ window: PixelRect, from scale: Double, to newScale: Double) -> PixelRect {
        guard scale > 0, newScale > 0, scale != newScale else { return window }
        let factor = newScale / scale
        return PixelRect(x: window.x, y: window.y, width: Int((Double(window.width) * factor).rounded()),
                         height: Int((Double(window.height) * factor).rounded()))
    }
}
