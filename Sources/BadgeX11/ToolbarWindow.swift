import BadgeCore
import BadgeDrawing
import CCairo
import CXCB
import Glibc

/// The top-level X window of the toolbar, with its ICCCM/EWMH properties and its back buffer.
///
/// Frames are drawn into a client-side image (the back buffer) and copied to the window with
/// PutImage, only for the damaged rectangles; Expose copies from the buffer without re-rendering.
/// The window's background is None, so the server never clears it: no flicker.
public final class ToolbarWindow {
    /// The window id.
    public let window: xcb_window_t
    /// The window's size in device pixels.
    public private(set) var width: Int
    /// The window's size in device pixels.
    public private(set) var height: Int
    /// The off-screen buffer holding the last rendered frame.
    public private(set) var backBuffer: ImageSurface
    /// The largest side of the back buffer, in device pixels.
    private let bufferLimit: Int

    private let x: XConnection
    private let atoms: Atoms
    private let gc: xcb_gcontext_t
    private var lastTitle = ""

    /// Creates (but does not map) the window at `width` × `height` device pixels.
    public init(connection x: XConnection, atoms: Atoms, width: Int, height: Int, minimumWidth: Int, minimumHeight: Int) throws {
        self.x = x
        self.atoms = atoms
        self.width = max(width, 1)
        self.height = max(height, 1)
        // The buffer first: a throwing initializer that has created the window would leak it (no deinit).
        bufferLimit = max(1024, min(8192, max(Int(x.screen.pointee.width_in_pixels), Int(x.screen.pointee.height_in_pixels))))
        backBuffer = try ImageSurface(width: min(self.width, bufferLimit), height: min(self.height, bufferLimit))
        // Value list in ascending mask-bit order: back pixmap (None), bit gravity, event mask.
        let eventMask: UInt32 = XCB_EVENT_MASK_EXPOSURE.rawValue | XCB_EVENT_MASK_STRUCTURE_NOTIFY.rawValue
            | XCB_EVENT_MASK_BUTTON_PRESS.rawValue | XCB_EVENT_MASK_BUTTON_RELEASE.rawValue
            | XCB_EVENT_MASK_POINTER_MOTION.rawValue | XCB_EVENT_MASK_ENTER_WINDOW.rawValue
            | XCB_EVENT_MASK_LEAVE_WINDOW.rawValue | XCB_EVENT_MASK_KEY_PRESS.rawValue
            | XCB_EVENT_MASK_KEY_RELEASE.rawValue | XCB_EVENT_MASK_FOCUS_CHANGE.rawValue
            | XCB_EVENT_MASK_PROPERTY_CHANGE.rawValue
        let values: [UInt32] = [0, UInt32(XCB_GRAVITY_NORTH_WEST.rawValue), eventMask]
        let mask = XCB_CW_BACK_PIXMAP.rawValue | XCB_CW_BIT_GRAVITY.rawValue | XCB_CW_EVENT_MASK.rawValue
        window = try x.createWindow("the window", width: self.width, height: self.height, mask: mask, values: values)
        gc = x.createCopyGC(for: window)
        setStaticProperties(minimumWidth: minimumWidth, minimumHeight: minimumHeight)
    }

    deinit {
        xcb_free_gc(x.connection, gc)
        xcb_destroy_window(x.connection, window)
    }

    /// Maps the window.
    public func map() {
        xcb_map_window(x.connection, window)
    }

    /// Records a new size from ConfigureNotify; returns true (and makes a new, unpainted back buffer)
    /// when it changed. The caller must paint the whole buffer before the next copy.
    ///
    /// The buffer never grows beyond the screen's larger side (at most 8192 pixels): another client
    /// may resize the window to 32767 × 32767, which would otherwise ask for a 4 GB buffer. What lies
    /// beyond it cannot be on screen.
    public func resize(width newWidth: Int, height newHeight: Int) throws -> Bool {
        let w = max(newWidth, 1), h = max(newHeight, 1)
        guard w != width || h != height else { return false }
        backBuffer = try ImageSurface(width: min(w, bufferLimit), height: min(h, bufferLimit))
        width = w
        height = h
        return true
    }

    /// Sets WM_NAME and _NET_WM_NAME (UTF-8) when the title changed.
    public func setTitle(_ title: String) {
        guard title != lastTitle else { return }
        lastTitle = title
        setProperty(atoms.netWMName, type: atoms.utf8String, bytes: Array(title.utf8))
        // WM_NAME is Latin-1 (STRING); non-Latin-1 characters become "?".
        let latin1 = title.unicodeScalars.map { $0.value < 256 ? UInt8($0.value) : UInt8(ascii: "?") }
        setProperty(atoms.wmName, type: XCB_ATOM_STRING.rawValue, bytes: latin1)
    }

    /// Copies the device-pixel rectangle of the back buffer to the window with PutImage.
    /// (Pixels beyond the back buffer, in a window larger than the screen, are left alone.)
    public func present(x px: Int, y py: Int, width pw: Int, height ph: Int) {
        ImageUpload.put(backBuffer, x: x, window: window, gc: gc, rect: px, py, pw, ph)
    }

    /// Sets or clears the ICCCM urgency hint (the window manager flashes the window while set).
    public func setUrgent(_ urgent: Bool) {
        setWMHints(urgent: urgent)
    }

    private func setStaticProperties(minimumWidth: Int, minimumHeight: Int) {
        let wmClass = Array("badge-demo\0BadgeDemo\0".utf8)
        setProperty(XCB_ATOM_WM_CLASS.rawValue, type: XCB_ATOM_STRING.rawValue, bytes: wmClass)
        setProperty32(atoms.wmProtocols, type: XCB_ATOM_ATOM.rawValue, values: [atoms.wmDeleteWindow, atoms.netWMPing])
        setWMHints(urgent: false)
        // WM_NORMAL_HINTS: program-specified size and minimum size (PSize | PMinSize | PWinGravity).
        var hints = [UInt32](repeating: 0, count: 18)
        hints[0] = (1 << 3) | (1 << 4) | (1 << 9)
        hints[3] = UInt32(width)
        hints[4] = UInt32(height)
        hints[5] = UInt32(max(minimumWidth, 1))
        hints[6] = UInt32(max(minimumHeight, 1))
        hints[17] = UInt32(XCB_GRAVITY_NORTH_WEST.rawValue)
        setProperty32(XCB_ATOM_WM_NORMAL_HINTS.rawValue, type: XCB_ATOM_WM_SIZE_HINTS.rawValue, values: hints)
        setProperty32(atoms.netWMPID, type: XCB_ATOM_CARDINAL.rawValue, values: [UInt32(getpid())])
        var host = [CChar](repeating: 0, count: 256)
        if gethostname(&host, host.count - 1) == 0 {
            let name = host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
            setProperty(XCB_ATOM_WM_CLIENT_MACHINE.rawValue, type: XCB_ATOM_STRING.rawValue, bytes: name)
        }
        setProperty32(atoms.netWMWindowType, type: XCB_ATOM_ATOM.rawValue, values: [atoms.netWMWindowTypeNormal])
    }

    private func setWMHints(urgent: Bool) {
        // flags: InputHint | StateHint (| UrgencyHint); input = true; initial state = Normal.
        var hints = [UInt32](repeating: 0, count: 9)
        hints[0] = 1 | 2 | (urgent ? 256 : 0)
        hints[1] = 1
        hints[2] = 1
        setProperty32(XCB_ATOM_WM_HINTS.rawValue, type: XCB_ATOM_WM_HINTS.rawValue, values: hints)
    }

    /// Replaces an 8-bit property of the window.
    func setProperty(_ property: xcb_atom_t, type: xcb_atom_t, bytes: [UInt8]) {
        x.setProperty(property, of: window, type: type, bytes: bytes)
    }

    /// Replaces a 32-bit property of the window.
    func setProperty32(_ property: xcb_atom_t, type: xcb_atom_t, values: [UInt32]) {
        x.setProperty32(property, of: window, type: type, values: values)
    }
}
