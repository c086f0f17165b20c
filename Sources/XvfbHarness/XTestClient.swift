import BadgeCore
import BadgeX11
import CXCB
import CXvfbHarness
import Glibc

/// Connects to `display` through the shell's own connection type (one opening path, one table of
/// connection errors); `who` names the caller in error messages.
func openDisplay(_ display: String, for who: String) throws -> XConnection {
    do {
        return try XConnection(display: display)
    } catch {
        throw HarnessError("\(who) cannot connect to X display \(display): \(error)")
    }
}

/// Describes an XCB connection error code (xcb_connection_has_error), by the shell's table.
func describeConnectionError(_ code: Int32) -> String {
    XConnection.describe(connectionError: code)
}

/// The X connection of the test itself: XTEST input, GetImage capture, properties, client
/// messages. One per test and per server; not Sendable (the XCB connection is owned by the class
/// and disconnected in deinit).
///
/// Every input method flushes and then does a round trip (`sync()`), so when it returns the

/// server has processed the input and queued the resulting events for the app.
public final class XTestClient {
    /// Owns the connection (closed when released).
    private let x: XConnection
    var connection: OpaquePointer { x.handle }
    /// The display name it connected to.
    public let display: String
    /// The root window of the screen.
    public let root: xcb_window_t
    /// Screen size in pixels.
    public let screenWidth: Int, screenHeight: Int
    /// Root depth.
    public let rootDepth: Int
    /// The XTEST version the server reports.
    public let xtestVersion: (major: Int, minor: Int)
    /// The atoms interned so far, by name (one round trip each, the first time).
    var atoms: [String: xcb_atom_t] = [:]
    /// The DAMAGE extension's first event code, once `watchScreen()` ran.
    var damageFirstEvent: UInt8?

    /// Connects to `display` and checks that the XTEST extension is present.
    public init(display: String) throws {
        let x = try openDisplay(display, for: "XTestClient")
        self.x = x
        let c = x.handle
        self.display = display
        root = x.root
        screenWidth = x.screenWidth
        screenHeight = x.screenHeight
        rootDepth = Int(x.rootDepth)

        // XTEST present?
        var queryError: UnsafeMutablePointer<xcb_generic_error_t>?
        let name = "XTEST"
        let query = xcb_query_extension_reply(c, xcb_query_extension(c, UInt16(name.utf8.count), name), &queryError)
        if let queryError { free(queryError) }
        guard let query else {
            throw HarnessError("QueryExtension(XTEST) failed on \(display)")
        }
        let present = query.pointee.present != 0
        free(query)
        guard present else {
            throw HarnessError("the X server at \(display) has no XTEST extension (Xvfb has it unless started with -extension XTEST)")
        }
        var versionError: UnsafeMutablePointer<xcb_generic_error_t>?
        let version = xcb_test_get_version_reply(c, xcb_test_get_version(c, 2, 2), &versionError)
        if let versionError { free(versionError) }
        guard let version else {
            throw HarnessError("XTEST GetVersion failed on \(display)")
        }
        xtestVersion = (Int(version.pointee.major_version), Int(version.pointee.minor_version))
        free(version)
    }

    // MARK: replies and errors

    /// Whether the connection is broken (e.g. the server died).
    public var hasConnectionError: Bool { xcb_connection_has_error(connection) != 0 }

    func reply<T>(_ what: String,
                  _ get: (OpaquePointer, UnsafeMutablePointer<UnsafeMutablePointer<xcb_generic_error_t>?>) -> UnsafeMutablePointer<T>?)
        throws -> UnsafeMutablePointer<T> {
        var error: UnsafeMutablePointer<xcb_generic_error_t>?
        let result = get(connection, &error)
        if let error {
            let e = error.pointee
            free(error)
            if let result { free(result) }
            throw HarnessError("\(what): X error code \(e.error_code) (bad value/resource 0x\(String(e.resource_id, radix: 16)), "
                + "major \(e.major_code) minor \(e.minor_code)) on \(display)")
        }
        guard let result else {
            throw HarnessError("\(what): no reply from \(display): \(describeConnectionError(xcb_connection_has_error(connection)))")
        }
        return result
    }

    /// Flushes and does a GetInputFocus round trip. Throws on a broken connection or if the server
    /// reported an error for an earlier request.
    public func sync() throws {
        let r = try reply("GetInputFocus (sync)") { xcb_get_input_focus_reply($0, xcb_get_input_focus($0), $1) }
        free(r)
        while let event = xcb_poll_for_event(connection) {
            let type = event.pointee.response_type
            if type == 0 {
                let code = UnsafeMutableRawPointer(event).assumingMemoryBound(to: xcb_generic_error_t.self).pointee
                free(event)
                throw HarnessError("X error code \(code.error_code) for an earlier request (major \(code.major_code), "
                    + "minor \(code.minor_code), value 0x\(String(code.resource_id, radix: 16))) on \(display)")
            }
            free(event)
        }
    }

    // MARK: XTEST input

    /// Moves the pointer to (x, y) in root coordinates.
    public func move(toRoot point: (x: Int, y: Int)) throws {
        fakeInput(.motionNotify, x: point.x, y: point.y)
        try sync()
    }

    /// Presses `button` (1 left, 2 middle, 3 right, 4/5 wheel up/down) where the pointer is.
    public func press(button: UInt8) throws {
        fakeInput(.buttonPress, detail: button)
        try sync()
    }

    /// Releases `button` where the pointer is.
    public func release(button: UInt8) throws {
        fakeInput(.buttonRelease, detail: button)
        try sync()
    }

    /// Moves to (x, y) in root coordinates, then presses and releases `button`.
    public func click(button: UInt8, atRoot point: (x: Int, y: Int)) throws {
        fakeInput(.motionNotify, x: point.x, y: point.y)
        fakeInput(.buttonPress, detail: button)
        fakeInput(.buttonRelease, detail: button)
        try sync()
    }

    /// Presses and releases the key with this keycode.
    public func key(keycode: UInt8) throws {
        fakeInput(.keyPress, detail: keycode)
        fakeInput(.keyRelease, detail: keycode)
        try sync()
    }

    /// Moves the pointer to the bottom-right corner of the screen (away from a window at the
    /// top-left), so hover effects do not affect a capture.
    public func movePointerToCorner() throws {
        try move(toRoot: (screenWidth - 1, screenHeight - 1))
    }

    // MARK: windows

    /// Position of the window's top-left pixel (inside the border) in root coordinates.
    public func rootPosition(ofWindow window: UInt32) throws -> (x: Int, y: Int) {
        let r = try reply("TranslateCoordinates(0x\(String(window, radix: 16)))") {
            xcb_translate_coordinates_reply($0, xcb_translate_coordinates($0, window, root, 0, 0), $1)
        }
        defer { free(r) }
        return (Int(r.pointee.dst_x), Int(r.pointee.dst_y))
    }

    /// Root coordinates of a point given in the window's coordinates.
    public func rootPoint(inWindow window: UInt32, x: Int, y: Int) throws -> (x: Int, y: Int) {
        let origin = try rootPosition(ofWindow: window)
        return (origin.x + x, origin.y + y)
    }

    /// The window's size and depth (GetGeometry).
    public func geometry(ofWindow window: UInt32) throws -> (width: Int, height: Int, depth: Int) {
        let r = try reply("GetGeometry(0x\(String(window, radix: 16)))") {
            xcb_get_geometry_reply($0, xcb_get_geometry($0, window), $1)
        }
        defer { free(r) }
        return (Int(r.pointee.width), Int(r.pointee.height), Int(r.pointee.depth))
    }

    /// Whether the window exists and is viewable (mapped, with mapped ancestors).
    public func isViewable(window: UInt32) throws -> Bool {
        var error: UnsafeMutablePointer<xcb_generic_error_t>?
        let r = xcb_get_window_attributes_reply(connection, xcb_get_window_attributes(connection, window), &error)
        if let error { free(error); return false }  // BadWindow: gone
        guard let r else { throw HarnessError("GetWindowAttributes: no reply from \(display)") }
        defer { free(r) }
        return r.pointee.map_state == UInt8(XCB_MAP_STATE_VIEWABLE.rawValue)
    }
}
