import BadgeCore
import BadgeDrawing
import CXCB
import CXCBShm
import Glibc

/// A back buffer in a MIT-SHM segment: the server reads the pixels straight from shared memory
/// (ShmPutImage) instead of receiving them over the socket.
///
/// Drawing into the buffer must wait until the server has read the previous upload: each upload
/// asks for a completion event (``completeUpload()``), and ``waitForUploads()`` makes a round trip
/// only when one is still outstanding. Not Sendable: event-loop thread only. Detaches in deinit.
package final class SharedImage {
    /// The image drawn into; its pixels are the segment's.
    package let image: ImageSurface
    /// The segment's id on the server.
    package let segment: xcb_shm_seg_t
    /// Uploads the server has not finished reading.
    package private(set) var uploadsInFlight = 0
    private let x: XConnection
    private let depth: UInt8
    private let address: UnsafeMutableRawPointer

    /// A `width` × `height` ARGB32 buffer attached to the server, or nil when shared memory cannot
    /// be used (no MIT-SHM, a remote server, no segment, a window visual that does not take cairo's
    /// pixels unchanged): the caller falls back to PutImage.
    package init?(connection x: XConnection, width: Int, height: Int) {
        guard x.sharedMemoryCompletionEvent != nil, let visual = try? x.windowVisual(), visual.format.matchesCairo,
              width > 0, height > 0 else { return nil }
        let stride = width * 4
        let id = shmget(IPC_PRIVATE, stride * height, IPC_CREAT | 0o600)
        guard id >= 0 else { return nil }
        guard let address = shmat(id, nil, 0), address != UnsafeMutableRawPointer(bitPattern: -1) else {
            shmctl(id, IPC_RMID, nil)
            return nil
        }
        let segment = x.generateID()
        let cookie = xcb_shm_attach_checked(x.handle, segment, UInt32(id), 1)
        let refused = xcb_request_check(x.handle, cookie)
        // Marked for removal now: it goes away once both we and the server have detached.
        shmctl(id, IPC_RMID, nil)
        guard refused == nil, let image = try? ImageSurface(wrapping: address, width: width, height: height, stride: stride) else {
            free(refused)
            if refused == nil { xcb_shm_detach(x.handle, segment) }
            shmdt(address)
            return nil
        }
        self.x = x
        depth = visual.depth
        self.address = address
        self.segment = segment
        self.image = image
    }

    deinit {
        xcb_shm_detach(x.handle, segment)
        _ = xcb_flush(x.handle)
        shmdt(address)
    }

    /// Copies `rect` of the buffer to `window` (ShmPutImage), asking for a completion event.
    package func put(to window: xcb_window_t, gc: xcb_gcontext_t, rect: PixelRect) {
        let visible = rect.intersection(PixelRect(x: 0, y: 0, width: image.width, height: image.height))
        guard !visible.isEmpty else { return }
        xcb_shm_put_image(x.handle, window, gc, UInt16(image.width), UInt16(image.height),
                          UInt16(visible.x), UInt16(visible.y), UInt16(visible.width), UInt16(visible.height),
                          Int16(visible.x), Int16(visible.y), depth, UInt8(XCB_IMAGE_FORMAT_Z_PIXMAP.rawValue), 1, segment, 0)
        uploadsInFlight += 1
    }

    /// The server has read one upload (its ShmCompletion event arrived).
    package func completeUpload() {
        uploadsInFlight = max(0, uploadsInFlight - 1)
    }

    /// Before drawing into the buffer again: when an upload is still being read, waits for the
    /// server to finish every request sent so far (its completion events arrive later and are
    /// counted then). Usually nothing is outstanding: a frame is a frame apart.
    package func waitForUploads() {
        guard uploadsInFlight > 0 else { return }
        x.roundTrip()
        uploadsInFlight = 0
    }

    /// The segment a ShmCompletion event names, when `event` is one.
    package static func completedSegment(of event: XEvent, connection x: XConnection) -> xcb_shm_seg_t? {
        guard let code = x.sharedMemoryCompletionEvent, event.code == code else { return nil }
        return event.withEvent(as: xcb_shm_completion_event_t.self) { $0.shmseg }
    }
}
