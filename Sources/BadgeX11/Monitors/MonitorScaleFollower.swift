import BadgeCore
import CXCB
import Glibc

/// Gives a ``ToolbarHost`` the scale of the monitor it is on, by a ``MonitorScalePolicy``, live:
/// when the window moves (with ``MonitorTracker``'s hysteresis: a window straddling two monitors
/// never flaps), when monitors are added, removed or moved (RandR's events), and when the policy
/// changes (set ``policy``, for example its ``MonitorScalePolicy/desktop`` layer when the
/// desktop's settings change). The window keeps its logical size: ``ToolbarHost/setScale(_:)``
/// lays the toolbar out again and draws icons and text at the new scale.
///
/// Without RandR there are no monitors: the policy's choice for no monitor (flag, config,
/// desktop, 1) applies to the whole screen, and nothing more is watched.
///
/// Work happens when the host refreshes, once per burst of events (one `TranslateCoordinates`
/// round trip after the window moved, the monitors read again after RandR said they changed):
/// nothing wakes the loop. A top-level host hears its moves itself (ConfigureNotify, the window
/// manager's synthetic one included); for a child host call ``windowMoved()`` when your window moves.
///
/// Not Sendable: the loop thread's, as the host is.
public final class MonitorScaleFollower {
    /// The layers the scale comes from; setting a different policy applies it at the next refresh.
    public var policy: MonitorScalePolicy {
        didSet { if policy != oldValue { needsEvaluation = true } }
    }
    /// The scale in effect, where it came from, and the monitor the window is on.
    public private(set) var choice: MonitorScalePolicy.Choice
    /// Called after the choice changed (a new scale, source or monitor) and the scale was applied.
    public var onChange: ((MonitorScalePolicy.Choice) -> Void)?
    /// How many times the scale has changed since the follower started.
    public private(set) var scaleChanges = 0

    private weak var host: ToolbarHost?
    private let monitors: RandRMonitors?
    private var tracker: MonitorTracker
    private var needsEvaluation = true

    /// Starts following for `host` (replacing a follower it had) and applies the policy's choice
    /// now, before the next frame. `threshold`: the share of the window another monitor must show
    /// before the window takes its scale (``MonitorTracker/defaultThreshold``).
    public init(host: ToolbarHost, policy: MonitorScalePolicy, threshold: Double = MonitorTracker.defaultThreshold) {
        self.host = host
        self.policy = policy
        tracker = MonitorTracker(threshold: threshold)
        monitors = host.session.sharedMonitors()
        choice = MonitorScalePolicy.Choice(scale: host.scale, source: .default, monitor: nil)
        host.monitorScaleFollower = self
        evaluate()
    }

    /// True when the server has RandR and the monitors are followed.
    public var followsMonitors: Bool { monitors != nil }

    /// The monitors now (none without RandR).
    public var layout: MonitorLayout { monitors?.layout ?? .none }

    /// The share of the window another monitor must show before the window takes its scale.
    public var threshold: Double { tracker.threshold }

    /// Says the window may have moved on the screen (a child host's top-level window moved):
    /// its monitor is found again at the next refresh.
    public func windowMoved() {
        needsEvaluation = true
    }

    /// The monitors may have changed (RandR said so): looked at again at the next refresh.
    func monitorsChanged() {
        needsEvaluation = true
    }

    /// Applies the policy if anything changed since it was last applied.
    func evaluateIfNeeded() {
        if needsEvaluation { evaluate() }
    }

    private func evaluate() {
        needsEvaluation = false
        guard let host, host.isAttached else { return }
        var monitor: Monitor?
        let layout = self.layout
        if !layout.isEmpty, let origin = host.rootOrigin() {
            let window = PixelRect(x: origin.x, y: origin.y, width: host.size.width, height: host.size.height)
            let policy = self.policy
            monitor = tracker.update(window: window, scale: host.scale, layout: layout) { policy.choice(for: $0).scale }
        }
        let new = policy.choice(for: monitor)
        let before = host.scale
        host.setScale(new.scale)
        if host.scale != before { scaleChanges += 1 }
        guard new != choice else { return }
        choice = new
        onChange?(new)
    }
}

extension ToolbarHost {
    /// The window's top-left pixel in root coordinates (through any window manager's frame), asked
    /// of the server once after each move; nil when the server does not answer (the window is gone).
    func rootOrigin() -> (x: Int, y: Int)? {
        if let origin = knownOrigin { return origin }
        var error: UnsafeMutablePointer<xcb_generic_error_t>?
        let cookie = xcb_translate_coordinates(connection.handle, surface.window, connection.root, 0, 0)
        guard let reply = xcb_translate_coordinates_reply(connection.handle, cookie, &error) else {
            free(error)
            return nil
        }
        defer { free(reply) }
        let origin = (x: Int(reply.pointee.dst_x), y: Int(reply.pointee.dst_y))
        knownOrigin = origin
        return origin
    }
}
