import CXCB
import CXCBSync
import Glibc

/// `_NET_WM_SYNC_REQUEST` (EWMH): a compositing window manager sends a number before it resizes
/// the window, and waits until the window's SYNC counter reaches it, i.e. until the frame for the
/// new size is drawn, before it shows the new size. No tearing, no stretched old frame.
///
/// The counter is created when the server has the SYNC extension; without it the protocol is not
/// advertised and resizes work as before. Not Sendable: event-loop thread only. Destroys the counter.
package final class ResizeSync {
    /// The counter the window manager watches (`_NET_WM_SYNC_REQUEST_COUNTER`).
    package let counter: xcb_sync_counter_t
    private let x: XConnection
    /// The value asked for by the last request, not yet reached.
    private var pending: xcb_sync_int64_t?

    /// Creates the counter at 0, or nil when the server has no SYNC extension.
    package init?(connection x: XConnection) {
        guard let reply = xcb_sync_initialize_reply(x.handle, xcb_sync_initialize(x.handle, 3, 1), nil) else { return nil }
        free(reply)
        let counter = x.generateID()
        let cookie = xcb_sync_create_counter_checked(x.handle, counter, xcb_sync_int64_t(hi: 0, lo: 0))
        if let error = xcb_request_check(x.handle, cookie) {
            free(error)
            return nil
        }
        self.x = x
        self.counter = counter
    }

    deinit { xcb_sync_destroy_counter(x.handle, counter) }

    /// A `_NET_WM_SYNC_REQUEST` message's value (data32[2] low, data32[3] high): reached with the
    /// next frame drawn.
    package func request(low: UInt32, high: UInt32) {
        pending = xcb_sync_int64_t(hi: Int32(bitPattern: high), lo: low)
    }

    /// True while a request waits for its frame.
    package var isPending: Bool { pending != nil }

    /// The frame for the requested size is on its way: set the counter (after the frame's upload,
    /// on the same connection, so the server sees them in that order).
    package func frameDrawn() {
        guard let value = pending else { return }
        pending = nil
        xcb_sync_set_counter(x.handle, counter, value)
    }
}
