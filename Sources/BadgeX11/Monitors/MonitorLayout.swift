import BadgeCore

/// The monitors a window can be on, in the server's order (the primary first), cleaned of what
/// would mislead the choice of a window's monitor: empty monitors, and aggregates (a monitor
/// whose whole area the smaller monitors inside it cover, as the screen-wide monitor RandR keeps
/// for its output when monitors are defined without outputs). A larger monitor that smaller ones
/// cover only in part stays, and a window on both belongs to the smaller one (the more specific).
/// Monitors with the same rectangle (mirrors) all stay.
public struct MonitorLayout: Hashable, Sendable {
    /// The usable monitors, in order.
    public let monitors: [Monitor]

    /// No monitors: the server has no RandR, or reports none.
    public static let none = MonitorLayout([])

    /// The usable monitors of `reported`, in their order.
    public init(_ reported: [Monitor]) {
        let shown = reported.filter { !$0.frame.isEmpty }
        monitors = shown.filter { candidate in
            let inside = Set(shown.map(\.frame).filter { $0 != candidate.frame && candidate.frame.intersection($0) == $0 })
            return inside.reduce(0) { $0 + $1.area } < candidate.frame.area
        }
    }

    /// True when there is no monitor.
    public var isEmpty: Bool { monitors.isEmpty }

    /// The monitor named `key` (its name, else one of its outputs' names), or nil.
    public func monitor(named key: String) -> Monitor? {
        monitors.first { $0.name == key } ?? monitors.first { $0.isNamed(key) }
    }

    /// The part of `window` (root pixels) that `monitor` shows, from 0 to 1; 0 for an empty window.
    public static func share(of window: PixelRect, on monitor: Monitor) -> Double {
        guard !window.isEmpty else { return 0 }
        return Double(window.intersection(monitor.frame).area) / Double(window.area)
    }

    /// The monitor that shows most of `window` (of equals the smaller, then the first), or nil
    /// when none shows any of it.
    public func mostOf(_ window: PixelRect) -> Monitor? {
        var best: (monitor: Monitor, share: Double)?
        for monitor in monitors {
            let share = Self.share(of: window, on: monitor)
            guard share > 0 else { continue }
            if let best, share < best.share || (share == best.share && monitor.frame.area >= best.monitor.frame.area) { continue }
            best = (monitor, share)
        }
        return best?.monitor
    }
}
