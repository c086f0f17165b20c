import BadgeCore
import BadgeDrawing
import CXCB

/// A top-level window of your own that you draw into: the window of an application that embeds a
/// badge toolbar (``ToolbarHost/Placement/child(of:x:y:identity:)``) beside content of its own.
///
/// It carries the application's identity (WM_CLASS, WM_PROTOCOLS, hints, size hints, process and
/// machine, window type) like the toolbar's own windows do, answers the window manager's ping, and
/// keeps a client-side back buffer: draw into it with ``draw(_:)``, copy it to the screen with
/// ``present(_:)``; Expose is answered from the buffer.
///
/// The window selects Exposure, StructureNotify, ButtonPress and ButtonRelease, PointerMotion,
/// EnterWindow and LeaveWindow, KeyPress and KeyRelease, FocusChange and PropertyChange: its
/// key presses are yours to forward to the host that has the focus
/// (``ToolbarHost/handleKeyPress(_:)-(XEvent)``), as XEmbed has the embedder keep X's focus on its
/// top-level window (``takeInputFocus()``). Not Sendable: event-loop thread only.
public final class ApplicationWindow {
    /// What happened to the window, from ``handle(_:)``.
    public enum Event: Hashable, Sendable {
        /// Part of the window was exposed (already copied again from the back buffer).
        case exposed(PixelRect)
        /// The window has a new size in device pixels; the back buffer is new and blank: draw it all.
        case resized(width: Int, height: Int)
        /// A pointer button went down at window coordinates (device pixels).
        case pointerPressed(PointerButton, x: Int, y: Int)
        /// A pointer button went up at window coordinates (device pixels).
        case pointerReleased(PointerButton, x: Int, y: Int)
        /// The window manager's close button (WM_DELETE_WINDOW).
        case closeRequested
        /// Another client destroyed the window.
        case destroyed
        /// Any other event about this window (mapping, focus, crossing, motion, keys).
        case other
    }

    private let x: XConnection
    private let atoms: Atoms
    private let surface: WindowSurface
    private let topLevel: TopLevelWindow
    /// Whether the window asks for attention now (set by ``setUrgent(_:)``).
    private var isUrgent = false

    /// Creates (but does not map) a window of `width` × `height` device pixels for `identity`,
    /// never smaller than `minimumWidth` × `minimumHeight`; its title is the identity's.
    public init(connection: XConnection, identity: ApplicationIdentity, width: Int, height: Int,
                minimumWidth: Int = 1, minimumHeight: Int = 1) throws(X11Error) {
        if let failure = connection.failure { throw failure }
        x = connection
        atoms = try Atoms(connection: connection)
        surface = try WindowSurface(connection: connection, width: width, height: height, what: "the application window")
        topLevel = TopLevelWindow(connection: connection, atoms: atoms, window: surface.window, identity: identity,
                                  size: (surface.width, surface.height), minimum: (minimumWidth, minimumHeight),
                                  title: identity.title, synchronizingResizes: false, takingStartupNotification: false)
    }

    /// The window id (to embed a ``ToolbarHost`` into, or for requests of your own).
    public var id: UInt32 { surface.window }
    /// The window's width in device pixels.
    public var width: Int { surface.width }
    /// The window's height in device pixels.
    public var height: Int { surface.height }
    /// False once the window was destroyed.
    public var exists: Bool { surface.exists }

    /// Gives the window X's keyboard focus (SetInputFocus, reverting to the parent), as a
    /// widget toolkit does when the user clicks into it: the focus rule of XEmbed, which BadgeKit's
    /// child hosts follow, is that X's focus stays on the top-level window and its keys are
    /// forwarded to the host that ``ToolbarHost/hasFocus``. A child host whose own window took X's
    /// focus hands the toolbar's focus back (and stops taking keys) when this moves it away.
    /// Sent with the next flush, as ``map()`` is (a host's refresh, or your loop's); a window that
    /// is not viewable gets BadMatch, which arrives as an error event.
    public func takeInputFocus() {
        guard surface.exists else { return }
        xcb_set_input_focus(x.handle, UInt8(XCB_INPUT_FOCUS_PARENT.rawValue), surface.window, xcb_timestamp_t(XCB_CURRENT_TIME))
    }

    /// Maps (shows) the window.
    public func map() {
        surface.map()
    }

    /// Asks the window manager to resize the window to `width` × `height` device pixels (at least
    /// 1, at most 32767; without a window manager the server does it at once). The window manager
    /// may choose another size. ``width`` and ``height`` follow, and the back buffer is made anew,
    /// when the server confirms it: ``handle(_:)`` returns ``Event/resized(width:height:)``.
    public func resize(width: Int, height: Int) {
        guard surface.exists else { return }
        surface.requestSize(width: width, height: height)
    }

    /// Asks the window manager to move the window to (`x`, `y`) on the screen, in device pixels
    /// (without a window manager the server does it at once). The window manager may place it
    /// elsewhere.
    public func move(x: Int, y: Int) {
        surface.move(x: x, y: y)
    }

    /// Sets the title (WM_NAME and _NET_WM_NAME), written only when it changed.
    public func setTitle(_ title: String) {
        topLevel.properties.setTitle(title)
    }

    /// Sets or clears urgency as a ``ToolbarHost``'s window does: the ICCCM urgency hint, and
    /// `_NET_WM_STATE_DEMANDS_ATTENTION` (asked of the window manager when one runs).
    /// A window manager that starts later is asked again when it begins managing the window.
    public func setUrgent(_ urgent: Bool) {
        isUrgent = urgent
        topLevel.windowManager.setUrgent(urgent, properties: topLevel.properties)
    }

    /// Draws into the back buffer: `body` gets a context in device pixels. Call ``present(_:)``
    /// for the part you changed. Throws when cairo fails.
    public func draw(_ body: (CairoContext) throws -> Void) throws {
        surface.prepareToDraw()
        try surface.backBuffer.draw(body)
    }

    /// Copies `rect` of the back buffer (the whole window when nil) to the screen. Flush the
    /// connection (``XConnection/flush()``) or refresh a host on it to send it.
    public func present(_ rect: PixelRect? = nil) {
        surface.present(rect ?? surface.bounds)
    }

    /// Takes `event` if it is about this window and says what it means; nil for other windows'
    /// events. Expose is answered here (from the back buffer); a ping is answered here.
    public func handle(_ event: XEvent) -> Event? {
        if surface.handleUploadCompletion(event) { return .other }
        guard !event.isError, event.window == surface.window, surface.exists else { return nil }
        switch Int32(event.code) {
        case XCB_EXPOSE:
            let rect = event.withEvent(as: xcb_expose_event_t.self) {
                PixelRect(x: Int($0.x), y: Int($0.y), width: Int($0.width), height: Int($0.height))
            }
            surface.present(rect)
            return .exposed(rect)
        case XCB_CONFIGURE_NOTIFY:
            let (width, height) = event.withEvent(as: xcb_configure_notify_event_t.self) { (Int($0.width), Int($0.height)) }
            guard (try? surface.resize(width: width, height: height)) == true else { return .other }
            return .resized(width: surface.width, height: surface.height)
        case XCB_BUTTON_PRESS, XCB_BUTTON_RELEASE:
            let (detail, px, py) = event.withEvent(as: xcb_button_press_event_t.self) { ($0.detail, Int($0.event_x), Int($0.event_y)) }
            guard let button = ToolbarHost.pointerButton(detail) else { return .other }
            return Int32(event.code) == XCB_BUTTON_PRESS ? .pointerPressed(button, x: px, y: py) : .pointerReleased(button, x: px, y: py)
        case XCB_DESTROY_NOTIFY:
            surface.exists = false
            return .destroyed
        case XCB_CLIENT_MESSAGE:
            let message = event.withEvent(as: xcb_client_message_event_t.self) { $0 }
            return topLevel.windowManager.handle(message) == .close ? .closeRequested : .other
        case XCB_PROPERTY_NOTIFY:
            // A window manager that started after the window took it: it never saw the request.
            if isUrgent, topLevel.windowManager.isManagedAnew(event) { topLevel.windowManager.setUrgent(true, properties: topLevel.properties) }
            return .other
        default:
            return .other
        }
    }
}
