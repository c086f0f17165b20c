import CXCB
import Glibc

extension XTestClient {
    /// Tries to grab the pointer on the root window and lets it go at once: the X status, 0 when
    /// no other client holds a pointer grab (1: another client does, 4: frozen). Tells a test
    /// whether a popup's grab is held, or was left behind.
    public func pointerGrabStatus() throws -> UInt8 {
        let cookie = xcb_grab_pointer(connection, 0, root, UInt16(XCB_EVENT_MASK_BUTTON_PRESS.rawValue), UInt8(XCB_GRAB_MODE_ASYNC.rawValue),
                                      UInt8(XCB_GRAB_MODE_ASYNC.rawValue), xcb_window_t(XCB_NONE), xcb_cursor_t(XCB_NONE),
                                      UInt32(XCB_CURRENT_TIME))
        guard let reply = xcb_grab_pointer_reply(connection, cookie, nil) else { throw HarnessError("GrabPointer got no reply") }
        let status = reply.pointee.status
        free(reply)
        if status == 0 { xcb_ungrab_pointer(connection, UInt32(XCB_CURRENT_TIME)) }
        _ = xcb_flush(connection)
        return status
    }
}
