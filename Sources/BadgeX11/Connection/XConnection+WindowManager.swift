import CXCB
import Glibc

extension XConnection {
    /// True when an EWMH window manager runs now (the root's `_NET_SUPPORTING_WM_CHECK` names a live window).
    package func windowManagerIsRunning(atoms: Atoms) -> Bool {
        guard let value = property(atoms.netSupportingWMCheck, of: root, type: XCB_ATOM_WINDOW.rawValue, maximumBytes: 4),
              value.count == 4 else { return false }
        let check = value.withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
        return windowExists(check)
    }

    /// True when `window` exists (one round trip: its attributes).
    package func windowExists(_ window: xcb_window_t) -> Bool {
        mapState(of: window) != nil
    }

    /// The map state of `window` (`XCB_MAP_STATE_VIEWABLE`…), nil when it does not exist.
    package func mapState(of window: xcb_window_t) -> UInt8? {
        var error: UnsafeMutablePointer<xcb_generic_error_t>?
        let attributes = xcb_get_window_attributes_reply(handle, xcb_get_window_attributes(handle, window), &error)
        free(error)
        guard let attributes else { return nil }
        defer { free(attributes) }
        return attributes.pointee.map_state
    }

    /// Asks for `window` (any top-level client window, ours or another application's) to be
    /// activated: with a window manager, `_NET_ACTIVE_WINDOW` to the root (source indication 1, an
    /// application, with `time`, the user action's timestamp, for focus-stealing prevention; 0 when
    /// unknown), which also de-iconifies it and switches to its desktop; without one, raises it and
    /// gives it the input focus when it is viewable.
    package func requestActivation(of window: xcb_window_t, time: UInt32, atoms: Atoms) {
        if windowManagerIsRunning(atoms: atoms) {
            var message = xcb_client_message_event_t()
            message.response_type = UInt8(XCB_CLIENT_MESSAGE)
            message.format = 32
            message.window = window
            message.type = atoms.netActiveWindow
            // Source indication 1 (an application), the timestamp, no currently active window of ours.
            message.data.data32 = (1, time, 0, 0, 0)
            sendToRoot(message)
        } else {
            var above = UInt32(XCB_STACK_MODE_ABOVE.rawValue)
            xcb_configure_window(handle, window, UInt16(XCB_CONFIG_WINDOW_STACK_MODE.rawValue), &above)
            // SetInputFocus on an unmapped window is a BadMatch error: only when it is on the screen.
            if mapState(of: window) == UInt8(XCB_MAP_STATE_VIEWABLE.rawValue) {
                xcb_set_input_focus(handle, UInt8(XCB_INPUT_FOCUS_POINTER_ROOT.rawValue), window, time)
            }
        }
    }
}
