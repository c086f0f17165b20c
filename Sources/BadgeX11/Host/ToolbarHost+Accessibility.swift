import BadgeCore
import CXCB
import Glibc

/// Screen readers: the toolbar on AT-SPI2 (``AccessibilityBridge``), started once the first frame
/// is on its way, only when an accessibility bus is there.
extension ToolbarHost {
    /// How screen readers reach the toolbar.
    public enum AccessibilityStatus: Equatable, Sendable {
        /// No bridge: no accessibility bus was found, or the bridge is turned off (with why).
        case off(String)
        /// Looking for the bus or registering with its registry.
        case connecting
        /// The bus is there but cannot be used now (it refused, stopped answering or went away):
        /// tried again with growing pauses. The reason, as the bus connection's status says it.
        case waiting(String)
        /// Registered: screen readers see the toolbar as the application on this bus name.
        case registered(busName: String)
    }

    /// Starts the session's screen-reader bridge (once for every host on the connection).
    func startAccessibility() {
        session.startAccessibility()
        accessibilityStatus = session.accessibilityStatus
    }

    /// Tells screen readers what changed since the bridge last looked, if anything can have.
    func updateAccessibility() {
        session.updateAccessibility()
    }

    /// The session's bridge, once an accessibility bus was found.
    var accessibility: AccessibilityBridge? { session.accessibility }

    // MARK: The buses in the caller's own loop

    /// Reads and writes what the buses allow and handles what came in (replies, signals, screen
    /// readers' calls), and acts on their deadlines (a call or a greeting that took too long, the
    /// next attempt at a bus that is away); call it after poll() returns, whichever descriptor was
    /// ready or when the timeout passed. Never blocks. The same as the session's
    /// ``DesktopSession/serviceBuses()``: the buses are the connection's.
    public func serviceBuses() {
        session.serviceBuses()
    }

    /// The loop sources of the buses the host uses now.
    var busSources: [EventLoop.Source] {
        [session.sessionBus?.source(named: "session-bus"), accessibility?.source].compactMap { $0 }
    }

    /// The buses the host uses now (the session's).
    var buses: [BusConnection] { session.buses }

    /// The session bus's state, for `state`: nil without one, else the bus connection's status.
    public var sessionBusStatus: String? { sessionBus?.status }

    /// How many AT-SPI2 events were sent (to listeners the registry named), for tests and `state`.
    package var accessibilityEventsSent: Int { accessibility?.sentEvents ?? 0 }

    /// This host's part of the tree screen readers see: its toolbar, in a frame named by the title
    /// for a window of its own, directly under the application for a toolbar in the caller's window.
    func accessiblePart() -> AccessibleTree.Part {
        let title: String? = identity.map { _ in wantedWindowState?.title ?? "" }
        let window = AccessibleTree.Window(title: title, size: surface.bounds, isMapped: mapped && isAttached,
                                           isActive: hasFocus)
        return AccessibleTree.Part(toolbar: toolbar, window: window, peek: accessiblePeek())
    }

    /// What this host's part of the tree is made of, compared to learn whether screen readers must
    /// look again: the window as they see it, the layout, the focus, the buttons (by identity) with
    /// each badge's ``BadgeController/revision`` (content, confidence, label, words), and the
    /// actions' words. Cheap: a few values per button, no text formatted.
    var accessibilitySignature: AccessibilitySignature {
        let part = accessiblePart()
        return AccessibilitySignature(
            window: part.window, scale: toolbar.scale, preferredSize: toolbar.preferredSize, strings: accessibilityStrings,
            peek: part.peek,
            buttons: toolbar.buttons.map {
                AccessibilitySignature.Button(id: ObjectIdentifier($0), frame: $0.frame, isFocused: $0.isFocused, revision: $0.badge.revision)
            })
    }

    /// The tree screen readers see now (every host on the connection).
    func accessibleTree() -> AccessibleTree { session.accessibleTree() }

    /// The identity the application gave this host (a top-level window's, or a child's), or nil.
    var applicationIdentity: ApplicationIdentity? {
        if let identity { return identity }
        if case .child(_, _, _, let identity) = placement { return identity }
        return nil
    }

    /// The window's top-left pixel on the screen, asked of the server once after each move
    /// (a window manager's frame moves it without telling the toolbar where, relative to the root).
    func windowOriginOnScreen() -> (x: Int, y: Int) {
        rootOrigin() ?? (0, 0)
    }
}

/// What a host's part of the screen readers' tree is made of (``ToolbarHost/accessibilitySignature``):
/// two equal signatures give the same part.
struct AccessibilitySignature: Equatable {
    /// One button: which, where, whether focused, and its badge's revision.
    struct Button: Equatable {
        var id: ObjectIdentifier
        var frame: Rect
        var isFocused: Bool
        var revision: Int
    }
    var window: AccessibleTree.Window
    var scale: Double
    var preferredSize: Size
    var strings: AccessibilityStrings
    var peek: AccessibleTree.Peek?
    var buttons: [Button]
}
