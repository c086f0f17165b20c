import CXCB
import Glibc

/// An open connection to an X server and its default screen.
///
/// Owns the `xcb_connection_t`; not Sendable: only the event-loop thread uses it.
public final class XConnection {
    /// The raw XCB connection; valid until this object is deinitialised.
    public let connection: OpaquePointer
    /// The display name it connected to, for messages (":0").
    public let displayName: String
    /// The default screen.
    public let screen: UnsafeMutablePointer<xcb_screen_t>
    /// The root window of the default screen.
    public var root: xcb_window_t { screen.pointee.root }
    /// True when the server expects image data least-significant byte first (PutImage converts otherwise).
    public let imageByteOrderIsLSB: Bool
    /// Bits per pixel of images at the root depth.
    public let bitsPerPixel: Int
    /// The largest request the server accepts, in bytes.
    public let maximumRequestBytes: Int

    /// Connects to `display` (nil: $DISPLAY). Throws with exit status 1 and a message naming the display.
    public init(display: String? = nil) throws {
        let name = display ?? getenv("DISPLAY").map { String(cString: $0) } ?? ""
        guard !name.isEmpty else {
            throw X11Error("badge-demo: no display: DISPLAY is not set (run inside an X session, or use --screenshot FILE.png)",
                           exitStatus: X11Error.cannotOpenDisplayStatus)
        }
        var screenNumber: Int32 = 0
        guard let connection = xcb_connect(name, &screenNumber) else {
            throw X11Error("badge-demo: cannot open display \"\(name)\"", exitStatus: X11Error.cannotOpenDisplayStatus)
        }
        let status = xcb_connection_has_error(connection)
        guard status == 0 else {
            xcb_disconnect(connection)
            throw X11Error("badge-demo: cannot open display \"\(name)\" (\(Self.describe(connectionError: status)))",
                           exitStatus: X11Error.cannotOpenDisplayStatus)
        }
        guard let setup = xcb_get_setup(connection) else {
            xcb_disconnect(connection)
            throw X11Error("badge-demo: display \"\(name)\" sent no setup", exitStatus: X11Error.cannotOpenDisplayStatus)
        }
        var iterator = xcb_setup_roots_iterator(setup)
        var index: Int32 = 0
        while index < screenNumber, iterator.rem > 0 {
            xcb_screen_next(&iterator)
            index += 1
        }
        guard iterator.rem > 0, let screen = iterator.data else {
            xcb_disconnect(connection)
            throw X11Error("badge-demo: display \"\(name)\" has no screen \(screenNumber)", exitStatus: X11Error.cannotOpenDisplayStatus)
        }
        self.connection = connection
        self.displayName = name
        self.screen = screen
        imageByteOrderIsLSB = setup.pointee.image_byte_order == UInt8(XCB_IMAGE_ORDER_LSB_FIRST.rawValue)
        var bpp = 32
        var formats = xcb_setup_pixmap_formats_iterator(setup)
        while formats.rem > 0, let format = formats.data {
            if format.pointee.depth == screen.pointee.root_depth { bpp = Int(format.pointee.bits_per_pixel) }
            xcb_format_next(&formats)
        }
        bitsPerPixel = bpp
        maximumRequestBytes = Int(xcb_get_maximum_request_length(connection)) * 4
    }

    deinit { xcb_disconnect(connection) }

    /// The connection's file descriptor, for poll().
    public var fileDescriptor: Int32 { xcb_get_file_descriptor(connection) }

    /// Non-zero when the connection is broken (server gone, protocol error).
    public var errorStatus: Int32 { xcb_connection_has_error(connection) }

    /// Sends buffered requests; returns false when the connection is broken.
    @discardableResult
    public func flush() -> Bool { xcb_flush(connection) > 0 }

    /// A fresh resource id (window, pixmap, GC).
    public func generateID() -> UInt32 { xcb_generate_id(connection) }

    /// Waits for every request sent so far to be processed (a GetInputFocus round trip).
    /// Events that arrive meanwhile stay queued for `xcb_poll_for_queued_event`.
    public func roundTrip() {
        let cookie = xcb_get_input_focus(connection)
        free(xcb_get_input_focus_reply(connection, cookie, nil))
    }

    /// Interns atoms in one batch: every request is sent before any reply is awaited.
    public func internAtoms(_ names: [String]) throws -> [String: xcb_atom_t] {
        let cookies = names.map { name in
            xcb_intern_atom(connection, 0, UInt16(name.utf8.count), name)
        }
        var atoms: [String: xcb_atom_t] = [:]
        for (index, (name, cookie)) in zip(names, cookies).enumerated() {
            var error: UnsafeMutablePointer<xcb_generic_error_t>?
            guard let reply = xcb_intern_atom_reply(connection, cookie, &error) else {
                free(error)
                // Replies still on their way would otherwise stay in XCB's queue.
                for pending in cookies[(index + 1)...] { xcb_discard_reply(connection, pending.sequence) }
                throw X11Error("badge-demo: the X server did not intern atom \(name)")
            }
            atoms[name] = reply.pointee.atom
            free(reply)
        }
        return atoms
    }

    /// Sends a client message to the root window with the substructure masks, as EWMH asks for
    /// requests to the window manager (and for answering its _NET_WM_PING).
    public func sendToRoot(_ message: xcb_client_message_event_t) {
        var message = message
        let mask = XCB_EVENT_MASK_SUBSTRUCTURE_NOTIFY.rawValue | XCB_EVENT_MASK_SUBSTRUCTURE_REDIRECT.rawValue
        withUnsafeBytes(of: &message) { bytes in
            _ = xcb_send_event(connection, 0, root, mask, bytes.baseAddress?.assumingMemoryBound(to: CChar.self))
        }
    }

    /// Replaces an 8-bit property of `window`.
    public func setProperty(_ property: xcb_atom_t, of window: xcb_window_t, type: xcb_atom_t, bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { buffer in
            _ = xcb_change_property(connection, UInt8(XCB_PROP_MODE_REPLACE.rawValue), window, property, type, 8,
                                    UInt32(buffer.count), buffer.baseAddress)
        }
    }

    /// Replaces a 32-bit property of `window`.
    public func setProperty32(_ property: xcb_atom_t, of window: xcb_window_t, type: xcb_atom_t, values: [UInt32]) {
        values.withUnsafeBufferPointer { buffer in
            _ = xcb_change_property(connection, UInt8(XCB_PROP_MODE_REPLACE.rawValue), window, property, type, 32,
                                    UInt32(buffer.count), buffer.baseAddress)
        }
    }

    /// Creates an input-output window on the default screen, checked: throws a message naming `what`
    /// ("the window", "the tooltip window") when the server refuses. `values` follow `mask`'s bit order.
    public func createWindow(_ what: String, width: Int, height: Int, mask: UInt32, values: [UInt32]) throws -> xcb_window_t {
        let window = generateID()
        let cookie = xcb_create_window_checked(connection, screen.pointee.root_depth, window, root, 0, 0,
                                               UInt16(clamping: max(width, 1)), UInt16(clamping: max(height, 1)), 0,
                                               UInt16(XCB_WINDOW_CLASS_INPUT_OUTPUT.rawValue), screen.pointee.root_visual,
                                               mask, values)
        if let error = xcb_request_check(connection, cookie) {
            let code = error.pointee.error_code
            free(error)
            throw X11Error("badge-demo: the X server refused to create \(what) (\(XErrorDescription.errorName(code)))")
        }
        return window
    }

    /// Creates a graphics context for PutImage into `window` (no GraphicsExpose events).
    public func createCopyGC(for window: xcb_window_t) -> xcb_gcontext_t {
        let gc = generateID()
        let values: [UInt32] = [0]
        xcb_create_gc(connection, gc, window, XCB_GC_GRAPHICS_EXPOSURES.rawValue, values)
        return gc
    }

    /// A human-readable reason for an `xcb_connection_has_error` status.
    public static func describe(connectionError status: Int32) -> String {
        switch status {
        case 1: return "connection refused or broken: is an X server running there?"
        case 2: return "an X extension is not supported"
        case 3: return "out of memory"
        case 4: return "request too long"
        case 5: return "cannot parse the display name"
        case 6: return "no such screen on that display"
        case 7: return "file descriptor passing failed"
        default: return "X connection error \(status)"
        }
    }
}
