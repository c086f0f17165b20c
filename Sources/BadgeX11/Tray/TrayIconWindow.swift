import BadgeCore
import BadgeDrawing
import CXCB
import CXCBICCCM
import Glibc

/// The small window an XEmbed system tray swallows: made in the tray's visual (a 32-bit ARGB
/// visual with a colormap of its own when the tray asks for one, so the icon is drawn with
/// transparency; the shell's visual otherwise), with `_XEMBED_INFO` (version 0, mapped), size
/// hints and a name (the tooltip trays show). The tray sizes it; the image is copied to it whole.
///
/// Not Sendable: event-loop thread only. Destroys its window (and colormap) when released.
package final class TrayIconWindow {
    /// The window.
    package let window: xcb_window_t
    /// True when the window's visual has alpha: the image may be transparent.
    package let hasAlpha: Bool
    /// The size the tray gave it, in device pixels (what was asked until it says).
    package private(set) var width: Int
    /// The size the tray gave it, in device pixels.
    package private(set) var height: Int
    /// The window it is in now (the root until the tray reparents it).
    package var parent: xcb_window_t
    /// False once the server destroyed it.
    package var exists = true

    private let x: XConnection
    private let visual: WindowVisual
    private let colormap: xcb_colormap_t?
    private let gc: xcb_gcontext_t

    /// The events the icon window listens to: exposure, its size and parent, clicks.
    static let eventMask: UInt32 = XCB_EVENT_MASK_EXPOSURE.rawValue | XCB_EVENT_MASK_STRUCTURE_NOTIFY.rawValue
        | XCB_EVENT_MASK_BUTTON_PRESS.rawValue | XCB_EVENT_MASK_ENTER_WINDOW.rawValue | XCB_EVENT_MASK_LEAVE_WINDOW.rawValue

    /// Makes the (unmapped) icon window of `side` device pixels square in `trayVisual` (the
    /// `_NET_SYSTEM_TRAY_VISUAL` the tray asked for, when it is a 32-bit TrueColor visual in
    /// cairo's layout; nil or anything else: the shell's visual), named `name`. Checked: throws
    /// ``X11Error/requestRefused(request:error:)`` when the server refuses the colormap or the window.
    package init(connection x: XConnection, atoms: TrayAtoms, trayVisual: VisualDescription?, side: Int, name: String) throws(X11Error) {
        self.x = x
        let side = max(side, 1)
        width = side
        height = side
        parent = x.root
        var mask = XCB_CW_BACK_PIXMAP.rawValue | XCB_CW_EVENT_MASK.rawValue
        // Without alpha, the window shows its parent's background (ParentRelative): the tray's
        // colour or picture, read back under the icon (``backdrop()``).
        var values: [UInt32] = [UInt32(XCB_BACK_PIXMAP_PARENT_RELATIVE.rawValue), Self.eventMask]
        if let argb = trayVisual.flatMap({ Self.alphaVisual($0, connection: x) }) {
            visual = argb
            hasAlpha = true
        } else {
            visual = try x.windowVisual()
            hasAlpha = false
        }
        if visual.needsColormap {
            let map = x.generateID()
            let cookie = xcb_create_colormap_checked(x.handle, UInt8(XCB_COLORMAP_ALLOC_NONE.rawValue), map, x.root, visual.id)
            if let error = xcb_request_check(x.handle, cookie) {
                let code = error.pointee.error_code
                free(error)
                throw .requestRefused(request: "create a colormap for the tray icon", error: XErrorDescription.errorName(code))
            }
            colormap = map
            // A window of another visual than its parent's cannot copy its border or colormap.
            mask = XCB_CW_BACK_PIXEL.rawValue | XCB_CW_BORDER_PIXEL.rawValue | XCB_CW_EVENT_MASK.rawValue | XCB_CW_COLORMAP.rawValue
            values = [0, 0, Self.eventMask, map]
        } else {
            colormap = nil
        }
        let window = x.generateID()
        let cookie = xcb_create_window_checked(x.handle, visual.depth, window, x.root, 0, 0, UInt16(clamping: side), UInt16(clamping: side), 0,
                                               UInt16(XCB_WINDOW_CLASS_INPUT_OUTPUT.rawValue), visual.id, mask, values)
        if let error = xcb_request_check(x.handle, cookie) {
            let code = error.pointee.error_code
            free(error)
            if let colormap { xcb_free_colormap(x.handle, colormap) }
            throw .requestRefused(request: "create the tray icon window", error: XErrorDescription.errorName(code))
        }
        self.window = window
        gc = x.createCopyGC(for: window)
        // XEMBED_MAPPED: the tray maps the window once it has swallowed it.
        x.setProperty32(atoms.xembedInfo, of: window, type: atoms.xembedInfo, values: [0, TrayAtoms.xembedMapped])
        var hints = xcb_size_hints_t()
        hints.flags = XCB_ICCCM_SIZE_HINT_P_SIZE.rawValue | XCB_ICCCM_SIZE_HINT_P_MIN_SIZE.rawValue
            | XCB_ICCCM_SIZE_HINT_BASE_SIZE.rawValue
        hints.width = Int32(side)
        hints.height = Int32(side)
        hints.base_width = Int32(side)
        hints.base_height = Int32(side)
        // GtkSocket trays (trayer, fbpanel) size the icon by its minimum: asking for 1 gives 1.
        hints.min_width = Int32(side)
        hints.min_height = Int32(side)
        TopLevelProperties.write(hints, as: XCB_ATOM_WM_NORMAL_HINTS.rawValue, type: XCB_ATOM_WM_SIZE_HINTS.rawValue,
                                 count: Int(XCB_ICCCM_NUM_WM_SIZE_HINTS_ELEMENTS), x: x, window: window)
        setName(name, atoms: atoms)
    }

    deinit {
        xcb_free_gc(x.handle, gc)
        if exists { xcb_destroy_window(x.handle, window) }
        if let colormap { xcb_free_colormap(x.handle, colormap) }
    }

    /// A 32-bit TrueColor visual whose pixels are cairo's ARGB32 words as they are (alpha in the
    /// top byte, the machine's byte order), for drawing with transparency; nil for anything else.
    static func alphaVisual(_ visual: VisualDescription, connection x: XConnection) -> WindowVisual? {
        guard visual.depth == 32, visual.visualClass == UInt8(XCB_VISUAL_CLASS_TRUE_COLOR.rawValue),
              let format = PixelFormat(depth: 24, bitsPerPixel: 32, scanlinePad: 32, redMask: visual.redMask,
                                       greenMask: visual.greenMask, blueMask: visual.blueMask,
                                       leastSignificantByteFirst: x.imageByteOrderIsLSB),
              format.matchesCairo else { return nil }
        return WindowVisual(id: visual.id, depth: 32, needsColormap: true, format: format)
    }

    /// Sets WM_NAME and _NET_WM_NAME (what trays show as the icon's tooltip).
    package func setName(_ name: String, atoms: TrayAtoms) {
        x.setProperty(XCB_ATOM_WM_NAME.rawValue, of: window, type: XCB_ATOM_STRING.rawValue, bytes: Array(name.utf8))
        x.setProperty(atoms.netWMName, of: window, type: atoms.utf8String, bytes: Array(name.utf8))
    }

    /// Records the size from a ConfigureNotify; true when it changed.
    package func resized(width newWidth: Int, height newHeight: Int) -> Bool {
        let w = max(newWidth, 1), h = max(newHeight, 1)
        guard w != width || h != height else { return false }
        width = w
        height = h
        return true
    }

    /// The tray's own pixels behind the icon, for a window without alpha: the window cleared to its
    /// parent's background and read back, as opaque ARGB. Nil with alpha (the tray composites),
    /// when the window is not viewable yet (GetImage refuses), or when its pixels are not cairo's.
    package func backdrop() -> ImageSurface? {
        guard exists, !hasAlpha, visual.format.matchesCairo, let image = try? ImageSurface(width: width, height: height) else { return nil }
        xcb_clear_area(x.handle, 0, window, 0, 0, 0, 0)
        let cookie = xcb_get_image(x.handle, UInt8(XCB_IMAGE_FORMAT_Z_PIXMAP.rawValue), window, 0, 0,
                                   UInt16(clamping: width), UInt16(clamping: height), UInt32.max)
        var error: UnsafeMutablePointer<xcb_generic_error_t>?
        guard let reply = xcb_get_image_reply(x.handle, cookie, &error) else {
            free(error)
            return nil
        }
        defer { free(reply) }
        let length = Int(xcb_get_image_data_length(reply))
        guard let data = xcb_get_image_data(reply), length >= width * height * 4 else { return nil }
        let rowBytes = length / max(height, 1)
        for row in 0..<height {
            for column in 0..<width {
                let at = row * rowBytes + column * 4
                // The format matches cairo's: each pixel is a word in the machine's order, 0xXXRRGGBB.
                let pixel = UnsafeRawPointer(data).loadUnaligned(fromByteOffset: at, as: UInt32.self)
                image.setPixel(x: column, y: row, alpha: 255, red: UInt8(truncatingIfNeeded: pixel >> 16),
                               green: UInt8(truncatingIfNeeded: pixel >> 8), blue: UInt8(truncatingIfNeeded: pixel))
            }
        }
        return image
    }

    /// Copies `image` (the window's size) to the window.
    package func present(_ image: ImageSurface) {
        guard exists else { return }
        ImageUpload.put(image, x: x, visual: visual, window: window, gc: gc,
                        rect: PixelRect(x: 0, y: 0, width: min(image.width, width), height: min(image.height, height)))
    }
}
