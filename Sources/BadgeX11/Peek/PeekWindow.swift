import BadgeCore
import BadgeDrawing
import CXCB
import Glibc

/// The peek's window: an override-redirect popup menu (`_NET_WM_WINDOW_TYPE_POPUP_MENU`,
/// transient for the toolbar's window), as GTK and Qt make theirs. It grabs the pointer and the
/// keyboard once mapped, placed inside the work area of the monitor its button is on, and draws
/// its rows with ``PeekRenderer`` into its own buffer.
///
/// Not Sendable: event-loop thread only.
package final class PeekWindow {
    /// The window id.
    package let window: xcb_window_t
    /// Where it is, in root pixels (while open).
    package private(set) var frame = PixelRect(x: 0, y: 0, width: 1, height: 1)
    /// True between `show` and `hide`.
    package private(set) var isShown = false
    /// True once the server has mapped it.
    package private(set) var isMapped = false
    /// True while it holds the pointer and keyboard grabs.
    package private(set) var isGrabbed = false

    private let x: XConnection
    private let visual: WindowVisual
    private let gc: xcb_gcontext_t
    private let workAreaAtom: xcb_atom_t
    private let currentDesktopAtom: xcb_atom_t
    private var image: ImageSurface?

    /// The pointer events the popup takes while it grabs.
    static let pointerMask = XCB_EVENT_MASK_BUTTON_PRESS.rawValue | XCB_EVENT_MASK_BUTTON_RELEASE.rawValue
        | XCB_EVENT_MASK_POINTER_MOTION.rawValue | XCB_EVENT_MASK_LEAVE_WINDOW.rawValue | XCB_EVENT_MASK_ENTER_WINDOW.rawValue

    /// Creates the (unmapped) popup window, transient for `owner`, with the application's WM_CLASS.
    package init(connection x: XConnection, atoms: Atoms, identity: ApplicationIdentity, owner: xcb_window_t) throws(X11Error) {
        self.x = x
        visual = try x.windowVisual()
        let names = try x.internAtoms(["_NET_WM_WINDOW_TYPE_POPUP_MENU", "_NET_WORKAREA", "_NET_CURRENT_DESKTOP"])
        workAreaAtom = names["_NET_WORKAREA"] ?? 0
        currentDesktopAtom = names["_NET_CURRENT_DESKTOP"] ?? 0
        let events = XCB_EVENT_MASK_EXPOSURE.rawValue | XCB_EVENT_MASK_STRUCTURE_NOTIFY.rawValue | XCB_EVENT_MASK_KEY_PRESS.rawValue
            | Self.pointerMask
        // Value list in ascending mask-bit order: back pixmap (None), override-redirect, save-under, event mask.
        let values: [UInt32] = [UInt32(XCB_BACK_PIXMAP_NONE.rawValue), 1, 1, events]
        let mask = XCB_CW_BACK_PIXMAP.rawValue | XCB_CW_OVERRIDE_REDIRECT.rawValue | XCB_CW_SAVE_UNDER.rawValue
            | XCB_CW_EVENT_MASK.rawValue
        window = try x.createWindow("the peek window", width: 1, height: 1, mask: mask, values: values)
        gc = x.createCopyGC(for: window)
        x.setProperty(XCB_ATOM_WM_CLASS.rawValue, of: window, type: XCB_ATOM_STRING.rawValue, bytes: identity.wmClassBytes)
        if let popupMenu = names["_NET_WM_WINDOW_TYPE_POPUP_MENU"] {
            x.setProperty32(atoms.netWMWindowType, of: window, type: XCB_ATOM_ATOM.rawValue, values: [popupMenu])
        }
        x.setProperty32(XCB_ATOM_WM_TRANSIENT_FOR.rawValue, of: window, type: XCB_ATOM_WINDOW.rawValue, values: [owner])
    }

    deinit {
        if isGrabbed {
            xcb_ungrab_pointer(x.handle, UInt32(XCB_CURRENT_TIME))
            xcb_ungrab_keyboard(x.handle, UInt32(XCB_CURRENT_TIME))
        }
        xcb_free_gc(x.handle, gc)
        xcb_destroy_window(x.handle, window)
    }

    /// Shows `image` at `frame` (root pixels), above everything, and maps the window.
    package func show(_ image: ImageSurface, at frame: PixelRect) {
        self.image = image
        let values: [UInt32] = [UInt32(bitPattern: Int32(frame.x)), UInt32(bitPattern: Int32(frame.y)),
                                UInt32(max(1, frame.width)), UInt32(max(1, frame.height)), UInt32(XCB_STACK_MODE_ABOVE.rawValue)]
        let mask = UInt16(XCB_CONFIG_WINDOW_X.rawValue | XCB_CONFIG_WINDOW_Y.rawValue | XCB_CONFIG_WINDOW_WIDTH.rawValue
            | XCB_CONFIG_WINDOW_HEIGHT.rawValue | XCB_CONFIG_WINDOW_STACK_MODE.rawValue)
        xcb_configure_window(x.handle, window, mask, values)
        self.frame = frame
        if !isShown { xcb_map_window(x.handle, window) }
        isShown = true
        present()
    }

    /// Replaces the image (a new highlight, new rows) in place.
    package func redraw(_ image: ImageSurface) {
        self.image = image
        present()
    }

    /// Ungrabs, unmaps and drops the image.
    package func hide() {
        guard isShown else { return }
        ungrab()
        isShown = false
        isMapped = false
        image = nil
        xcb_unmap_window(x.handle, window)
    }

    /// The server mapped the window (MapNotify).
    package func didMap() { isMapped = isShown }

    /// Copies the image to the window (after showing, and on Expose).
    package func present() {
        guard isShown, let image else { return }
        ImageUpload.put(image, x: x, visual: visual, window: window, gc: gc,
                        rect: PixelRect(x: 0, y: 0, width: min(image.width, frame.width), height: min(image.height, frame.height)))
    }

    /// A CARDINAL property's 32-bit values (in the client's byte order, as XCB delivers them).
    static func cardinals(_ bytes: [UInt8]) -> [UInt32] {
        var values: [UInt32] = []
        var index = 0
        while index + 4 <= bytes.count {
            var value: UInt32 = 0
            withUnsafeMutableBytes(of: &value) { raw in
                for offset in 0..<4 { raw[offset] = bytes[index + offset] }
            }
            values.append(value)
            index += 4
        }
        return values
    }

    /// Why a grab was refused: X's status (1 already grabbed, 2 invalid time, 3 not viewable, 4 frozen).
    package enum GrabResult: Equatable {
        /// Both grabs are held.
        case grabbed
        /// Another client holds a grab, or the device is frozen: worth trying again shortly.
        case busy(String)
        /// It cannot work (not viewable, a refused request).
        case failed(String)
    }

    /// Grabs the pointer and the keyboard for the popup (owner-events off: every event comes to
    /// it, in its coordinates, as Qt's popups grab). One round trip each.
    package func grab() -> GrabResult {
        guard isShown else { return .failed("the peek is not shown") }
        if isGrabbed { return .grabbed }
        let pointerCookie = xcb_grab_pointer(x.handle, 0, window, UInt16(Self.pointerMask), UInt8(XCB_GRAB_MODE_ASYNC.rawValue),
                                             UInt8(XCB_GRAB_MODE_ASYNC.rawValue), xcb_window_t(XCB_NONE), xcb_cursor_t(XCB_NONE),
                                             UInt32(XCB_CURRENT_TIME))
        let keyboardCookie = xcb_grab_keyboard(x.handle, 0, window, UInt32(XCB_CURRENT_TIME), UInt8(XCB_GRAB_MODE_ASYNC.rawValue),
                                               UInt8(XCB_GRAB_MODE_ASYNC.rawValue))
        let pointer = Self.status(xcb_grab_pointer_reply(x.handle, pointerCookie, nil))
        let keyboard = Self.status(xcb_grab_keyboard_reply(x.handle, keyboardCookie, nil))
        if pointer == 0, keyboard == 0 {
            isGrabbed = true
            return .grabbed
        }
        // Never keep half a grab: the other device would be stuck with us.
        if pointer == 0 { xcb_ungrab_pointer(x.handle, UInt32(XCB_CURRENT_TIME)) }
        if keyboard == 0 { xcb_ungrab_keyboard(x.handle, UInt32(XCB_CURRENT_TIME)) }
        let failing = pointer != 0 ? ("pointer", pointer) : ("keyboard", keyboard)
        let reason = "the \(failing.0) grab was refused (\(Self.describe(status: failing.1)))"
        return failing.1 == 1 || failing.1 == 4 ? .busy(reason) : .failed(reason)
    }

    private static func status<Reply>(_ reply: UnsafeMutablePointer<Reply>?) -> Int {
        guard let reply else { return -1 }
        defer { free(reply) }
        return reply.withMemoryRebound(to: xcb_grab_pointer_reply_t.self, capacity: 1) { Int($0.pointee.status) }
    }

    private static func describe(status: Int) -> String {
        switch status {
        case 1: return "another client holds a grab"
        case 2: return "invalid time"
        case 3: return "not viewable"
        case 4: return "frozen by another grab"
        default: return "no reply"
        }
    }

    /// Releases both grabs.
    package func ungrab() {
        guard isGrabbed else { return }
        isGrabbed = false
        xcb_ungrab_pointer(x.handle, UInt32(XCB_CURRENT_TIME))
        xcb_ungrab_keyboard(x.handle, UInt32(XCB_CURRENT_TIME))
    }

    /// The work area a popup at `anchor` may use: the monitor holding most of the anchor (RandR),
    /// cut to the window manager's `_NET_WORKAREA` for the current desktop where one is set (as GTK
    /// applies it to the primary monitor only, the one rectangle cannot describe the others).
    package func workArea(for anchor: PixelRect, monitors: MonitorLayout) -> PixelRect {
        let screen = PixelRect(x: 0, y: 0, width: x.screenWidth, height: x.screenHeight)
        let monitor = monitors.mostOf(anchor) ?? monitors.monitors.first { $0.frame.contains(x: anchor.x, y: anchor.y) }
        var area = monitor?.frame ?? screen
        guard monitor?.isPrimary ?? true, workAreaAtom != 0,
              let bytes = x.property(workAreaAtom, of: x.root, type: XCB_ATOM_CARDINAL.rawValue, maximumBytes: 4 * 4 * 64) else {
            return area
        }
        let values = Self.cardinals(bytes).map { Int(Int32(bitPattern: $0)) }
        var desktop = 0
        if currentDesktopAtom != 0, let current = x.property(currentDesktopAtom, of: x.root, type: XCB_ATOM_CARDINAL.rawValue, maximumBytes: 4),
           let first = Self.cardinals(current).first {
            desktop = Int(first)
        }
        let start = desktop * 4
        guard values.count >= start + 4 || values.count >= 4 else { return area }
        let base = values.count >= start + 4 ? start : 0
        let work = PixelRect(x: values[base], y: values[base + 1], width: values[base + 2], height: values[base + 3])
        let cut = area.intersection(work)
        if cut.width > 0, cut.height > 0 { area = cut }
        return area
    }
}
