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

/// Pushes a ``WindowState`` to the window as a diff against the last state pushed.
///
/// `push` writes only the parts that changed; each part is written by a closure the owner provides
/// (the shell: properties on the X window). Not Sendable: event-loop thread only.
package final class WindowStatePublisher {
    /// The state last pushed (nil before the first push).
    package private(set) var pushed: WindowState?
    /// How many times each part was written, for tests of the diffing.
    package private(set) var writes = (title: 0, iconBadge: 0, urgent: 0)
    private let writeTitle: (String) -> Void
    private let writeIconBadge: (String) -> Void
    private let writeUrgent: (Bool) -> Void

    /// Creates a publisher that writes each part through its closure.
    package init(title: @escaping (String) -> Void, iconBadge: @escaping (String) -> Void, urgent: @escaping (Bool) -> Void) {
        writeTitle = title
        writeIconBadge = iconBadge
        writeUrgent = urgent
    }

    /// Writes what differs between `wanted` and the state last pushed; returns what changed.
    @discardableResult
    package func push(_ wanted: WindowState) -> WindowState.Changes {
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
        return changes
    }
}
