import CXCB
import Glibc

extension XConnection {
    /// Where the pointer is, in root pixels of the default screen: the place a peek opens when a
    /// bar asked for one without saying where it was clicked. One round trip.
    public func pointerPosition() throws(X11Error) -> (x: Int, y: Int) {
        var error: UnsafeMutablePointer<xcb_generic_error_t>?
        guard let reply = xcb_query_pointer_reply(handle, xcb_query_pointer(handle, root), &error) else {
            let code = error?.pointee.error_code
            free(error)
            if let failure { throw failure }
            throw .requestRefused(request: "ask where the pointer is", error: code.map(XErrorDescription.errorName) ?? "no reply")
        }
        defer { free(reply) }
        // On another screen of the display the coordinates are not this root's.
        guard reply.pointee.same_screen != 0 else { throw .unavailable("the pointer's place", reason: "the pointer is on another screen") }
        return (Int(reply.pointee.root_x), Int(reply.pointee.root_y))
    }
}
