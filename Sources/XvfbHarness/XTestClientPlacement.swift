import BadgeCore
import CXCB
import Glibc

/// Where windows are, as the server says: for tests that place windows (move, resize, close).
extension XTestClient {
    /// The window's position in its parent's coordinates and its size (GetGeometry).
    public func frame(ofWindow window: UInt32) throws -> PixelRect {
        let r = try reply("GetGeometry(0x\(String(window, radix: 16)))") {
            xcb_get_geometry_reply($0, xcb_get_geometry($0, window), $1)
        }
        defer { free(r) }
        return PixelRect(x: Int(r.pointee.x), y: Int(r.pointee.y), width: Int(r.pointee.width), height: Int(r.pointee.height))
    }

    /// Whether the window exists on the server now (GetWindowAttributes answers; BadWindow: gone).
    public func exists(window: UInt32) throws -> Bool {
        var error: UnsafeMutablePointer<xcb_generic_error_t>?
        let r = xcb_get_window_attributes_reply(connection, xcb_get_window_attributes(connection, window), &error)
        if let error { free(error); free(r); return false }
        guard let r else { throw HarnessError("GetWindowAttributes: no reply from \(display)") }
        free(r)
        return true
    }

    /// Moves `window` with ConfigureWindow (as another client or a window manager would).
    public func move(window: UInt32, x: Int, y: Int) throws {
        let values: [UInt32] = [UInt32(bitPattern: Int32(clamping: x)), UInt32(bitPattern: Int32(clamping: y))]
        xcb_configure_window(connection, window, UInt16(XCB_CONFIG_WINDOW_X.rawValue | XCB_CONFIG_WINDOW_Y.rawValue), values)
        try sync()
    }
}

/// An XCB connection the test opens itself with `xcb_connect`, as an application that brings its
/// own connection to BadgeKit does (`XConnection.withAdopted`); disconnected when released.
/// Not Sendable: the test's thread only.
public final class CallerConnection {
    private let raw: OpaquePointer
    /// The display it connected to.
    public let display: String
    /// The screen `xcb_connect` chose.
    public let screen: Int
    private let root: xcb_window_t
    private let rootVisual: xcb_visualid_t

    /// Connects to `display`; throws when the server is not there.
    public init(display: String) throws {
        var screenNumber: Int32 = 0
        guard let c = xcb_connect(display, &screenNumber) else { throw HarnessError("xcb_connect(\(display)) returned nothing") }
        let status = xcb_connection_has_error(c)
        guard status == 0 else {
            xcb_disconnect(c)
            throw HarnessError("CallerConnection cannot connect to \(display): \(describeConnectionError(status))")
        }
        var iterator = xcb_setup_roots_iterator(xcb_get_setup(c))
        for _ in 0..<screenNumber where iterator.rem > 0 { xcb_screen_next(&iterator) }
        guard iterator.rem > 0, let screen = iterator.data else {
            xcb_disconnect(c)
            throw HarnessError("CallerConnection: \(display) has no screen \(screenNumber)")
        }
        raw = c
        self.display = display
        self.screen = Int(screenNumber)
        root = screen.pointee.root
        rootVisual = screen.pointee.root_visual
    }

    deinit { xcb_disconnect(raw) }

    /// The `xcb_connection_t *`, to adopt; valid while this object lives.
    public var unsafeConnection: OpaquePointer { raw }

    /// True when a GetInputFocus round trip is answered and the connection has no error.
    public func roundTripSucceeds() -> Bool {
        var error: UnsafeMutablePointer<xcb_generic_error_t>?
        let reply = xcb_get_input_focus_reply(raw, xcb_get_input_focus(raw), &error)
        defer { free(reply); free(error) }
        return reply != nil && error == nil && xcb_connection_has_error(raw) == 0
    }

    /// Creates and maps a window of the caller's at (`x`, `y`) of the root, filled with
    /// `background` by the server (Exposure and StructureNotify selected); returns its id.
    public func createWindow(x: Int, y: Int, width: Int, height: Int, background: RGB) throws -> UInt32 {
        let pixel = try XTestClient(display: display).pixelValue(for: background)
        let window = xcb_generate_id(raw)
        let mask = XCB_CW_BACK_PIXEL.rawValue | XCB_CW_OVERRIDE_REDIRECT.rawValue | XCB_CW_EVENT_MASK.rawValue
        let values: [UInt32] = [pixel, 1, XCB_EVENT_MASK_EXPOSURE.rawValue | XCB_EVENT_MASK_STRUCTURE_NOTIFY.rawValue]
        let cookie = xcb_create_window_checked(raw, UInt8(XCB_COPY_FROM_PARENT), window, root, Int16(clamping: x), Int16(clamping: y),
                                               UInt16(clamping: width), UInt16(clamping: height), 0,
                                               UInt16(XCB_WINDOW_CLASS_INPUT_OUTPUT.rawValue), rootVisual, mask, values)
        if let error = xcb_request_check(raw, cookie) {
            let code = error.pointee.error_code
            free(error)
            throw HarnessError("CallerConnection: CreateWindow refused (X error \(code))")
        }
        xcb_map_window(raw, window)
        _ = xcb_flush(raw)
        return window
    }

    /// Selects `mask` (replacing this connection's selection) on the root window.
    public func selectRootEvents(_ mask: UInt32) throws {
        let values = [mask]
        if let error = xcb_request_check(raw, xcb_change_window_attributes_checked(raw, root, XCB_CW_EVENT_MASK.rawValue, values)) {
            free(error)
            throw HarnessError("CallerConnection: ChangeWindowAttributes on the root refused")
        }
    }

    /// The events this connection selects on the root window (its `your_event_mask`).
    public func rootEventMask() throws -> UInt32 {
        var error: UnsafeMutablePointer<xcb_generic_error_t>?
        let reply = xcb_get_window_attributes_reply(raw, xcb_get_window_attributes(raw, root), &error)
        defer { free(reply); free(error) }
        guard let reply, error == nil else { throw HarnessError("CallerConnection: GetWindowAttributes(root) failed") }
        return reply.pointee.your_event_mask
    }

    /// SubstructureNotify, for tests that select root events of the caller's own.
    public static let substructureNotify = XCB_EVENT_MASK_SUBSTRUCTURE_NOTIFY.rawValue
}
