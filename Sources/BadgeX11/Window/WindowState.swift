import BadgeCore

/// What a top-level window shows the window manager and taskbars, computed from the toolbar: its
/// title, the text of the badge on its icon, and whether it asks for attention.
///
/// The shell keeps the state it last pushed and, like i3's `x.c`, sends only what differs from the
/// wanted state.
public struct WindowState: Hashable, Sendable {
    /// The window title ("(15) Badges").
    public var title: String
    /// The text drawn on the window icon's badge ("15", "99+"; "" for none).
    public var iconBadge: String
    /// Whether the window asks for attention (urgency hint and _NET_WM_STATE_DEMANDS_ATTENTION).
    public var urgent: Bool

    /// Creates a state.
    public init(title: String, iconBadge: String, urgent: Bool) {
        self.title = title
        self.iconBadge = iconBadge
        self.urgent = urgent
    }

    /// The state `toolbar` asks for under `identity`.
    public init(toolbar: Toolbar, identity: ApplicationIdentity, urgent: Bool) {
        title = identity.titleShowsTotal ? toolbar.title(base: identity.title) : identity.title
        iconBadge = Self.iconBadge(total: toolbar.totalCount)
        self.urgent = urgent
    }

    /// The text on the window icon's badge for a total: "" for none, "99+" above 99.
    public static func iconBadge(total: Int) -> String {
        total <= 0 ? "" : total > 99 ? "99+" : String(total)
    }

    /// What changed from `old` to this state (everything when there is no old state).
    public func changes(since old: WindowState?) -> Changes {
        Changes(title: old?.title != title, iconBadge: old?.iconBadge != iconBadge, urgent: old?.urgent != urgent)
    }

    /// Which parts of a ``WindowState`` differ from the last one pushed.
    public struct Changes: Hashable, Sendable {
        /// The title changed.
        public var title: Bool
        /// The icon's badge text changed.
        public var iconBadge: Bool
        /// The urgency changed.
        public var urgent: Bool
        /// True when nothing changed.
        public var isEmpty: Bool { !title && !iconBadge && !urgent }
    }
}

/// Pushes a `WindowState` to the window as a diff against the last state pushed, coalesced: the
/// window manager, taskbars and docks redraw on every title or icon change, so a burst of badge
/// changes must not become a burst of property writes (each icon is three rendered sizes).
///
/// A change after a quiet spell is pushed one frame later (``lead``), so the frame that shows it
/// reaches the screen first; changes that follow within ``interval`` wait:
/// they are pushed ``settle`` seconds after the last of them, or ``interval`` after the previous
/// push, whichever comes first. So there are at most 1 / ``interval`` pushes a second, and the final
/// state is on the window at most ``settle`` seconds after the last change. `push` writes only the
/// parts that changed, each through a closure the owner provides. Not Sendable.
package final class WindowStatePublisher {
    /// The shortest time between two pushes, in seconds.
    package static let interval = 0.3
    /// How long the last of a burst of changes waits, at most, in seconds.
    package static let settle = 0.1
    /// How long the first change after a quiet spell waits: one frame at 60 Hz, in seconds.
    package static let lead = 1.0 / 60

    /// The state last pushed (nil before the first push).
    package private(set) var pushed: WindowState?
    /// How many times each part was written, for tests of the diffing.
    package private(set) var writes = (title: 0, iconBadge: 0, urgent: 0)
    /// The wanted state not pushed yet, when it last changed, and (after a quiet spell) when it is due.
    private var pending: (state: WindowState, changed: Double, leadUntil: Double?)?
    private var lastPush: Double?
    private let clock: any BadgeClock
    private let writeTitle: (String) -> Void
    private let writeIconBadge: (String) -> Void
    private let writeUrgent: (Bool) -> Void

    /// Creates a publisher that reads time from `clock` and writes each part through its closure.
    package init(clock: any BadgeClock, title: @escaping (String) -> Void, iconBadge: @escaping (String) -> Void,
                 urgent: @escaping (Bool) -> Void) {
        self.clock = clock
        writeTitle = title
        writeIconBadge = iconBadge
        writeUrgent = urgent
    }

    /// When the pending state is due (clock seconds), or nil when nothing waits.
    package var dueTime: Double? {
        guard let pending else { return nil }
        if let lead = pending.leadUntil { return lead }
        let settled = pending.changed + Self.settle
        guard let lastPush else { return settled }
        return min(settled, lastPush + Self.interval)
    }

    /// Asks for `wanted` on the window: pushed now after a quiet spell, else when due (see
    /// ``fireIfDue()``). With `immediately`, it is pushed at once (a sync promises it is on the server).
    /// Returns what was written now.
    @discardableResult
    package func request(_ wanted: WindowState, immediately: Bool = false) -> WindowState.Changes {
        let time = clock.now
        if wanted == pushed {
            pending = nil
            return WindowState.Changes(title: false, iconBadge: false, urgent: false)
        }
        if immediately || pushed == nil {
            return push(wanted, at: time)
        }
        if pending == nil, lastPush.map({ time - $0 >= Self.interval }) ?? true {
            pending = (wanted, time, time + Self.lead)
        } else if pending?.state != wanted {
            pending = (wanted, time, pending?.leadUntil)
        }
        return fireIfDue()
    }

    /// Pushes the pending state when it is due; returns what was written.
    @discardableResult
    package func fireIfDue() -> WindowState.Changes {
        let time = clock.now
        guard let pending, let due = dueTime, time >= due else { return WindowState.Changes(title: false, iconBadge: false, urgent: false) }
        return push(pending.state, at: time)
    }

    private func push(_ wanted: WindowState, at time: Double) -> WindowState.Changes {
        let changes = wanted.changes(since: pushed)
        if changes.title {
            writeTitle(wanted.title)
            writes.title += 1
        }
        if changes.iconBadge {
            writeIconBadge(wanted.iconBadge)
            writes.iconBadge += 1
        }
        if changes.urgent {
            writeUrgent(wanted.urgent)
            writes.urgent += 1
        }
        pushed = wanted
        pending = nil
        lastPush = time
        return changes
    }
}
