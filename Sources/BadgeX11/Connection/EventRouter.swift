/// Who an X event belongs to, on a connection that several hosts and the application share.
///
/// The contract (written down for callers in the DocC article "Getting started"):
/// - an event naming a host's window (its toolbar window or its tooltip) is that host's;
/// - an event every host must see (the desktop's settings on the root window or the settings
///   manager's window, keyboard map changes) is acted on by every host and is also the caller's;
/// - everything else is the caller's, also when BadgeKit read it while waiting for the server
///   (``ToolbarHost/synchronize(_:)``, start-up, round trips): such events are set aside, in order,
///   and ``XConnection/nextEvent()`` returns them before anything new.
///
/// Besides hosts, other windows of the shell (a tray icon) take their events the same way
/// (``EventTaker``).
///
/// Not Sendable: the thread that runs the loop owns it, as it owns the connection.
package final class EventRouter {
    /// What a host does with an event.
    package enum Disposition: Equatable, Sendable {
        /// It names the host's window: no one else needs it.
        case taken
        /// The host acted on it, and so may every other host and the caller (settings, keymap).
        case shared
        /// Not the host's.
        case notTaken
    }

    private struct Member {
        weak var host: (any EventTaker)?
    }

    private var members: [Member] = []
    private var setAside: [XEvent] = []
    private var setAsideStart = 0

    package init() {}

    /// Adds `host` (a toolbar host, or another window of the shell) to those offered every event
    /// this connection reads.
    package func register(_ host: any EventTaker) {
        members.removeAll { $0.host == nil || $0.host === host }
        members.append(Member(host: host))
    }

    /// Offers `event` to every live host; true when one took it as its own.
    package func offer(_ event: XEvent) -> Bool {
        var pruned = false
        for member in members {
            guard let host = member.host else {
                pruned = true
                continue
            }
            if host.take(event) == .taken { return true }
        }
        if pruned { members.removeAll { $0.host == nil } }
        return false
    }

    /// Keeps `event` for the caller's next ``XConnection/nextEvent()``.
    package func setAside(_ event: XEvent) {
        setAside.append(event)
    }

    /// The oldest event set aside, or nil.
    package func takeSetAside() -> XEvent? {
        guard setAsideStart < setAside.count else { return nil }
        let event = setAside[setAsideStart]
        setAsideStart += 1
        if setAsideStart == setAside.count {
            setAside.removeAll(keepingCapacity: true)
            setAsideStart = 0
        }
        return event
    }

    /// True while events wait for the caller.
    package var hasSetAside: Bool { setAsideStart < setAside.count }
}

/// What takes its events from an ``EventRouter``: a ``ToolbarHost``, a tray icon.
package protocol EventTaker: AnyObject {
    /// What it does with `event` (the router's contract).
    func take(_ event: XEvent) -> EventRouter.Disposition
}

extension ToolbarHost: EventTaker {}
