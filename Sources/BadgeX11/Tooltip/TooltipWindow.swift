import BadgeCore
import BadgeDrawing
import CXCB
import Glibc

/// The tooltip: an override-redirect window (the window manager leaves it alone) that shows one line
/// of text near the pointer, drawn by the app into its own buffer and copied with PutImage.
///
/// Created once and reused; mapped while shown. Not Sendable: event-loop thread only.
package final class TooltipWindow {
    /// The window id.
    package let window: xcb_window_t
    /// The shown text, or nil while hidden.
    package private(set) var text: String?
    /// Where it is shown, in root coordinates (device pixels); meaningful while shown.
    package private(set) var frame = PixelRect(x: 0, y: 0, width: 1, height: 1)

    private let x: XConnection
    private let visual: WindowVisual
    private let gc: xcb_gcontext_t
    private var image: ImageSurface?

    /// Creates the (unmapped) tooltip window; its WM_CLASS is the application's, as GTK's tooltips
    /// have (its window type, `_NET_WM_WINDOW_TYPE_TOOLTIP`, says what it is).
    package init(connection x: XConnection, atoms: Atoms, identity: ApplicationIdentity) throws(X11Error) {
        self.x = x
        visual = try x.windowVisual()
        // Value list in ascending mask-bit order: back pixmap (None), override-redirect, save-under, event mask.
        let values: [UInt32] = [UInt32(XCB_BACK_PIXMAP_NONE.rawValue), 1, 1, XCB_EVENT_MASK_EXPOSURE.rawValue]
        let mask = XCB_CW_BACK_PIXMAP.rawValue | XCB_CW_OVERRIDE_REDIRECT.rawValue | XCB_CW_SAVE_UNDER.rawValue
            | XCB_CW_EVENT_MASK.rawValue
        window = try x.createWindow("the tooltip window", width: 1, height: 1, mask: mask, values: values)
        gc = x.createCopyGC(for: window)
        x.setProperty(XCB_ATOM_WM_CLASS.rawValue, of: window, type: XCB_ATOM_STRING.rawValue, bytes: identity.wmClassBytes)
        x.setProperty32(atoms.netWMWindowType, of: window, type: XCB_ATOM_ATOM.rawValue, values: [atoms.netWMWindowTypeTooltip])
    }

    deinit {
        xcb_free_gc(x.handle, gc)
        xcb_destroy_window(x.handle, window)
    }

    /// Shows `label` with its top-left corner near root point (`rootX`, `rootY`), kept on screen;
    /// `renderer` paints it at `scale`. Throws (leaving the tooltip as it was) when it cannot be drawn.
    package func show(_ label: String, rootX: Int, rootY: Int, scale: Double, renderer: TooltipRenderer) throws {
        let size = renderer.size(of: label, scale: scale)
        let screenWidth = x.screenWidth, screenHeight = x.screenHeight
        let left = max(0, min(rootX, screenWidth - size.width))
        let top = max(0, min(rootY, screenHeight - size.height))
        let image = try ImageSurface(width: size.width, height: size.height)
        try image.draw { cr in renderer.draw(label, scale: scale, width: size.width, height: size.height, in: cr) }
        self.image = image
        let values: [UInt32] = [UInt32(bitPattern: Int32(left)), UInt32(bitPattern: Int32(top)),
                                UInt32(size.width), UInt32(size.height), UInt32(XCB_STACK_MODE_ABOVE.rawValue)]
        let mask = UInt16(XCB_CONFIG_WINDOW_X.rawValue | XCB_CONFIG_WINDOW_Y.rawValue | XCB_CONFIG_WINDOW_WIDTH.rawValue
            | XCB_CONFIG_WINDOW_HEIGHT.rawValue | XCB_CONFIG_WINDOW_STACK_MODE.rawValue)
        xcb_configure_window(x.handle, window, mask, values)
        if text == nil { xcb_map_window(x.handle, window) }
        text = label
        frame = PixelRect(x: left, y: top, width: size.width, height: size.height)
        present()
    }

    /// Unmaps the tooltip and releases its image (up to 16 MB for a long label at 4×).
    package func hide() {
        guard text != nil else { return }
        text = nil
        image = nil
        xcb_unmap_window(x.handle, window)
    }

    /// Copies the tooltip's image to its window (after showing it, and on Expose).
    package func present() {
        guard text != nil, let image else { return }
        ImageUpload.put(image, x: x, visual: visual, window: window, gc: gc, rect: PixelRect(x: 0, y: 0, width: image.width, height: image.height))
    }
}
