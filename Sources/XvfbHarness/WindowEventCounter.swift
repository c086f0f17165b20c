import BadgeX11
import CXCB
import Glibc

/// Counts the Expose and ConfigureNotify events of someone else's window, on a connection of the
/// test's own: X sends every client that selects them on a window the same events, so a program
/// that says how many it received can be checked against what the server sent.
/// Not Sendable: the test's thread only.
public final class WindowEventCounter {
    private let x: XConnection
    /// The window watched.
    public let window: UInt32
    /// Expose and ConfigureNotify events of `window` read so far.
    public private(set) var exposes = 0, configures = 0

    /// Connects to `display` and selects Exposure and StructureNotify on `window` (this
    /// connection's selection; the owner's stays as it is).
    public init(display: String, window: UInt32) throws {
        x = try openDisplay(display, for: "WindowEventCounter")
        self.window = window
        let mask = [XCB_EVENT_MASK_EXPOSURE.rawValue | XCB_EVENT_MASK_STRUCTURE_NOTIFY.rawValue]
        if let error = xcb_request_check(x.handle, xcb_change_window_attributes_checked(x.handle, window, XCB_CW_EVENT_MASK.rawValue, mask)) {
            free(error)
            throw HarnessError("WindowEventCounter: cannot select events on window 0x\(String(window, radix: 16))")
        }
    }

    /// Reads every event the server sent up to now (a round trip) and returns the totals.
    public func counts() throws -> (exposes: Int, configures: Int) {
        free(xcb_get_input_focus_reply(x.handle, xcb_get_input_focus(x.handle), nil))
        if xcb_connection_has_error(x.handle) != 0 { throw HarnessError("WindowEventCounter: the connection broke") }
        while let event = xcb_poll_for_event(x.handle) {
            defer { free(event) }
            switch Int32(event.pointee.response_type & 0x7f) {
            case XCB_EXPOSE:
                let expose = UnsafeRawPointer(event).assumingMemoryBound(to: xcb_expose_event_t.self).pointee
                if expose.window == window { exposes += 1 }
            case XCB_CONFIGURE_NOTIFY:
                let configure = UnsafeRawPointer(event).assumingMemoryBound(to: xcb_configure_notify_event_t.self).pointee
                if configure.window == window && configure.event == window { configures += 1 }
            default:
                break
            }
        }
        return (exposes, configures)
    }
}
