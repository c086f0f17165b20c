import CXCB
import Glibc

/// One event (or error) from the X server, as ``XConnection/nextEvent()`` returns it.
///
/// Owns the event's memory and frees it when released. Hand it to ``ToolbarHost/handle(_:)``
/// first; what the host does not take is yours: read it typed with ``kind`` (an Expose's area, a
/// ConfigureNotify's geometry, a button's position), or its bytes with ``withUnsafeEvent(_:)``.
/// An event your program polled itself on an adopted connection becomes one with
/// ``init(adopting:)``. Not Sendable: owned by the event-loop thread.
public final class XEvent {
    /// The event as XCB delivered it; valid for the lifetime of this object.
    package let raw: UnsafeMutablePointer<xcb_generic_event_t>

    package init(taking raw: UnsafeMutablePointer<xcb_generic_event_t>) {
        self.raw = raw
    }

    deinit { free(raw) }

    /// The event code (`XCB_EXPOSE`, `XCB_BUTTON_PRESS`, …) without the SendEvent flag; 0 for an error.
    public var code: UInt8 { raw.pointee.response_type & 0x7f }

    /// True when another client sent this event with SendEvent (a window manager's WM_DELETE_WINDOW does).
    public var isSentByClient: Bool { raw.pointee.response_type & 0x80 != 0 }

    /// True for an error reply to an unchecked request.
    public var isError: Bool { code == 0 }

    /// The window the event is about, for the core events that name one (Expose, Configure, Map,
    /// Unmap, Destroy, input, focus, crossing, property and client messages); nil for others,
    /// CreateNotify and ReparentNotify among them.
    ///
    /// For a structure event selected on a parent (SubstructureNotify), this is the child the
    /// event is about, not the parent it was reported to: ``kind`` gives both (`event` and
    /// `window`). For input events it is the window the event was reported to.
    public var window: UInt32? {
        let pointer = UnsafeMutableRawPointer(raw)
        switch Int32(code) {
        case XCB_EXPOSE: return pointer.assumingMemoryBound(to: xcb_expose_event_t.self).pointee.window
        case XCB_CONFIGURE_NOTIFY: return pointer.assumingMemoryBound(to: xcb_configure_notify_event_t.self).pointee.window
        case XCB_MAP_NOTIFY: return pointer.assumingMemoryBound(to: xcb_map_notify_event_t.self).pointee.window
        case XCB_UNMAP_NOTIFY: return pointer.assumingMemoryBound(to: xcb_unmap_notify_event_t.self).pointee.window
        case XCB_DESTROY_NOTIFY: return pointer.assumingMemoryBound(to: xcb_destroy_notify_event_t.self).pointee.window
        case XCB_KEY_PRESS, XCB_KEY_RELEASE: return pointer.assumingMemoryBound(to: xcb_key_press_event_t.self).pointee.event
        case XCB_BUTTON_PRESS, XCB_BUTTON_RELEASE:
            return pointer.assumingMemoryBound(to: xcb_button_press_event_t.self).pointee.event
        case XCB_MOTION_NOTIFY: return pointer.assumingMemoryBound(to: xcb_motion_notify_event_t.self).pointee.event
        case XCB_ENTER_NOTIFY, XCB_LEAVE_NOTIFY: return pointer.assumingMemoryBound(to: xcb_enter_notify_event_t.self).pointee.event
        case XCB_FOCUS_IN, XCB_FOCUS_OUT: return pointer.assumingMemoryBound(to: xcb_focus_in_event_t.self).pointee.event
        case XCB_PROPERTY_NOTIFY: return pointer.assumingMemoryBound(to: xcb_property_notify_event_t.self).pointee.window
        case XCB_CLIENT_MESSAGE: return pointer.assumingMemoryBound(to: xcb_client_message_event_t.self).pointee.window
        default: return nil
        }
    }

    /// Reads the event as the XCB struct `T` (for example `xcb_expose_event_t`) inside `body`.
    /// `T` must be the struct for this event's ``code``.
    package func withEvent<T, Result>(as type: T.Type, _ body: (T) throws -> Result) rethrows -> Result {
        try body(UnsafeMutableRawPointer(raw).assumingMemoryBound(to: T.self).pointee)
    }
}
