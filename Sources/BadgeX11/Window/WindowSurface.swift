import BadgeCore
import BadgeDrawing
import CXCB
import Glibc

/// An X window drawn client-side: frames are drawn into an image (the back buffer) and copied to
/// the window with PutImage, only for the damaged rectangles; Expose copies from the buffer without
/// re-rendering. The window's background is None, so the server never clears it: no flicker.
///
/// Either a top-level window (a child of the root) or a child of a window another part of the
/// program owns. Not Sendable: event-loop thread only. Destroys its window when released.
package final class WindowSurface {
    /// The window id.
    package let window: xcb_window_t
    /// The window's size in device pixels.
    package private(set) var width: Int
    /// The window's size in device pixels.
    package private(set) var height: Int
    /// The off-screen buffer holding the last rendered frame.
    package private(set) var backBuffer: ImageSurface
    /// The same buffer in shared memory, when MIT-SHM is used for the uploads.
    private var shared: SharedImage?
    /// How the buffer reaches the window: "shm" (MIT-SHM) or "putimage" (over the socket).
    package var uploadMethod: String { shared == nil ? "putimage" : "shm" }
    /// False once the server destroyed the window (it is not destroyed again).
    package var exists = true
    /// Where the window is in its parent's coordinates (the root's for a top-level window) and its
    /// size, in device pixels: what was last asked for, or what the server last said.
    package internal(set) var frame = PixelRect(x: 0, y: 0, width: 1, height: 1)
    /// The window's parent now: the one it was made in, or a window manager's frame after a reparent.
    package var parent: xcb_window_t = 0
    /// The largest side of the back buffer, in device pixels.
    private let bufferLimit: Int
    let x: XConnection
    private let visual: WindowVisual
    private let gc: xcb_gcontext_t

    /// The events a toolbar or application window listens to.
    package static let eventMask: UInt32 = XCB_EVENT_MASK_EXPOSURE.rawValue | XCB_EVENT_MASK_STRUCTURE_NOTIFY.rawValue
        | XCB_EVENT_MASK_BUTTON_PRESS.rawValue | XCB_EVENT_MASK_BUTTON_RELEASE.rawValue
        | XCB_EVENT_MASK_POINTER_MOTION.rawValue | XCB_EVENT_MASK_ENTER_WINDOW.rawValue
        | XCB_EVENT_MASK_LEAVE_WINDOW.rawValue | XCB_EVENT_MASK_KEY_PRESS.rawValue
        | XCB_EVENT_MASK_KEY_RELEASE.rawValue | XCB_EVENT_MASK_FOCUS_CHANGE.rawValue
        | XCB_EVENT_MASK_PROPERTY_CHANGE.rawValue

    /// Creates (but does not map) a window of `width` × `height` device pixels at (`x`, `y`) in
    /// `parent` (nil: a top-level window), in the connection's ``XConnection/windowVisual()``.
    /// Throws ``X11Error/noSuchWindow(_:)`` for a missing parent, and
    /// ``X11Error/unavailable(_:reason:)`` for a screen with no visual to draw in.
    package init(connection x: XConnection, parent: xcb_window_t? = nil, x originX: Int = 0, y originY: Int = 0,
                 width: Int, height: Int, what: String) throws(X11Error) {
        self.x = x
        visual = try x.windowVisual()
        self.width = max(width, 1)
        self.height = max(height, 1)
        // The buffer first: a throwing initializer that has created the window would leak it (no deinit).
        bufferLimit = max(1024, min(8192, max(x.screenWidth, x.screenHeight)))
        let bufferWidth = min(self.width, bufferLimit), bufferHeight = min(self.height, bufferLimit)
        if let shared = SharedImage(connection: x, width: bufferWidth, height: bufferHeight) {
            self.shared = shared
            backBuffer = shared.image
        } else {
            do {
                backBuffer = try ImageSurface(width: bufferWidth, height: bufferHeight)
            } catch {
                throw .unavailable("a \(width)×\(height) window buffer", reason: error.message)
            }
        }
        // Value list in ascending mask-bit order: back pixmap (None), bit gravity, event mask.
        let values: [UInt32] = [UInt32(XCB_BACK_PIXMAP_NONE.rawValue), UInt32(XCB_GRAVITY_NORTH_WEST.rawValue), Self.eventMask]
        let mask = XCB_CW_BACK_PIXMAP.rawValue | XCB_CW_BIT_GRAVITY.rawValue | XCB_CW_EVENT_MASK.rawValue
        window = try x.createWindow(what, parent: parent, x: originX, y: originY, width: self.width, height: self.height,
                                    mask: mask, values: values)
        gc = x.createCopyGC(for: window)
        frame = PixelRect(x: originX, y: originY, width: self.width, height: self.height)
        self.parent = parent ?? x.root
    }

    deinit {
        xcb_free_gc(x.handle, gc)
        if exists { xcb_destroy_window(x.handle, window) }
    }

    /// Maps the window.
    package func map() {
        xcb_map_window(x.handle, window)
    }

    /// Records a new size from ConfigureNotify; returns true (and makes a new, unpainted back buffer)
    /// when it changed. The caller must paint the whole buffer before the next copy.
    ///
    /// The buffer never grows beyond the screen's larger side (at most 8192 pixels): another client
    /// may resize the window to 32767 × 32767, which would otherwise ask for a 4 GB buffer. What lies
    /// beyond it cannot be on screen.
    package func resize(width newWidth: Int, height newHeight: Int) throws(DrawingError) -> Bool {
        let w = max(newWidth, 1), h = max(newHeight, 1)
        guard w != width || h != height else { return false }
        let bufferWidth = min(w, bufferLimit), bufferHeight = min(h, bufferLimit)
        if shared != nil, let replacement = SharedImage(connection: x, width: bufferWidth, height: bufferHeight) {
            shared = replacement
            backBuffer = replacement.image
        } else {
            shared = nil
            backBuffer = try ImageSurface(width: bufferWidth, height: bufferHeight)
        }
        width = w
        height = h
        return true
    }

    /// Asks the server to resize the window (a child window; a top-level one asks its window manager).
    package func requestSize(width: Int, height: Int) {
        let values: [UInt32] = [UInt32(max(1, min(width, 32_767))), UInt32(max(1, min(height, 32_767)))]
        xcb_configure_window(x.handle, window, UInt16(XCB_CONFIG_WINDOW_WIDTH.rawValue | XCB_CONFIG_WINDOW_HEIGHT.rawValue), values)
        frame.width = Int(values[0])
        frame.height = Int(values[1])
    }

    /// The whole window, in device pixels.
    package var bounds: PixelRect { PixelRect(x: 0, y: 0, width: width, height: height) }

    /// Copies the device-pixel rectangle of the back buffer to the window with PutImage.
    /// (Pixels beyond the back buffer, in a window larger than the screen, are left alone.)
    package func present(_ rect: PixelRect) {
        guard exists else { return }
        if let shared {
            shared.put(to: window, gc: gc, rect: rect)
        } else {
            ImageUpload.put(backBuffer, x: x, visual: visual, window: window, gc: gc, rect: rect)
        }
    }

    /// Call before drawing into the back buffer: waits, if needed, until the server has read the
    /// last shared-memory upload.
    package func prepareToDraw() {
        shared?.waitForUploads()
    }

    /// Takes a ShmCompletion event for this window's buffer; true when it was one.
    package func handleUploadCompletion(_ event: XEvent) -> Bool {
        guard let shared, let segment = SharedImage.completedSegment(of: event, connection: x), segment == shared.segment else {
            return false
        }
        shared.completeUpload()
        return true
    }
}
