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
    private var atoms: [String: xcb_atom_t] = [:]
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

    // MARK: atoms and properties

    /// The atom for `name`, created if needed (cached).
    public func atom(_ name: String) throws -> xcb_atom_t {
        if let a = atoms[name] { return a }
        let r = try reply("InternAtom(\(name))") {
            xcb_intern_atom_reply($0, xcb_intern_atom($0, 0, UInt16(name.utf8.count), name), $1)
        }
        defer { free(r) }
        atoms[name] = r.pointee.atom
        return r.pointee.atom
    }

    /// The name of an atom.
    public func atomName(_ atom: xcb_atom_t) throws -> String {
        if atom == 0 { return "None" }
        let r = try reply("GetAtomName(\(atom))") { xcb_get_atom_name_reply($0, xcb_get_atom_name($0, atom), $1) }
        defer { free(r) }
        let length = Int(xcb_get_atom_name_name_length(r))
        guard let chars = xcb_get_atom_name_name(r) else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: chars, count: length), as: UTF8.self)
    }

    /// Reads property `name` of `window` (any type); nil when the window has no such property.
    public func property(window: UInt32, name: String) throws -> WindowProperty? {
        let a = try atom(name)
        let r = try reply("GetProperty(\(name))") {
            xcb_get_property_reply($0, xcb_get_property($0, 0, window, a, 0 /* AnyPropertyType */, 0, 1 << 20), $1)
        }
        defer { free(r) }
        if r.pointee.type == 0 { return nil }
        guard r.pointee.bytes_after == 0 else { throw HarnessError("property \(name) is larger than 4 MB") }
        let length = Int(xcb_get_property_value_length(r))
        var bytes: [UInt8] = []
        if length > 0, let value = xcb_get_property_value(r) {
            bytes = Array(UnsafeRawBufferPointer(start: value, count: length))
        }
        return WindowProperty(typeName: try atomName(r.pointee.type), format: Int(r.pointee.format), bytes: bytes)
    }

    /// Asks the server to send this connection PropertyNotify events for `window` (needed by
    /// `waitForProperty`). Call it before the action that changes the property.
    public func selectPropertyChanges(window: UInt32) throws {
        let mask: [UInt32] = [XCB_EVENT_MASK_PROPERTY_CHANGE.rawValue]
        xcb_change_window_attributes(connection, window, XCB_CW_EVENT_MASK.rawValue, mask)
        try sync()
    }

    /// Reads property `name` of `window` until `predicate` accepts it, waking on PropertyNotify
    /// events (select them first with `selectPropertyChanges`), never by sleeping. Throws with the
    /// last value seen when `timeout` passes.
    @discardableResult
    public func waitForProperty(window: UInt32, name: String, timeout: Double = 5,
                                until predicate: (WindowProperty?) -> Bool) throws -> WindowProperty? {
        let deadline = Deadline(seconds: timeout)
        while true {
            let value = try property(window: window, name: name)
            if predicate(value) { return value }
            if deadline.hasPassed {
                throw HarnessError("property \(name) of window 0x\(String(window, radix: 16)) did not reach the expected value "
                    + "within \(timeout) s; last value: \(value.map { "\($0.typeName) '\($0.string)'" } ?? "none")")
            }
            // Wait for any event (only PropertyNotify is selected), queued in XCB or on the socket.
            if let event = xcb_poll_for_queued_event(connection) { free(event); continue }
            var pfd = [pollfd(fd: xcb_get_file_descriptor(connection), events: Int16(POLLIN), revents: 0)]
            _ = poll(&pfd, 1, deadline.remainingMilliseconds)
            while let event = xcb_poll_for_event(connection) { free(event) }
            if hasConnectionError { throw HarnessError("connection to \(display) broke while waiting for \(name)") }
        }
    }

    /// Sends WM_PROTOCOLS/WM_DELETE_WINDOW as a ClientMessage (format 32) to the window itself with
    /// event mask 0 (so it goes to the window's owner), like a window manager's close button.
    public func sendDeleteWindow(window: UInt32) throws {
        let protocols = try atom("WM_PROTOCOLS")
        let delete = try atom("WM_DELETE_WINDOW")
        var event = xcb_client_message_event_t()
        event.response_type = UInt8(XCB_CLIENT_MESSAGE)
        event.format = 32
        event.sequence = 0
        event.window = window
        event.type = protocols
        withUnsafeMutableBytes(of: &event.data) { raw in
            raw.storeBytes(of: delete, toByteOffset: 0, as: UInt32.self)
            raw.storeBytes(of: UInt32(0) /* CurrentTime */, toByteOffset: 4, as: UInt32.self)
        }
        withUnsafeBytes(of: &event) { raw in
            _ = xcb_send_event(connection, 0, window, 0, raw.baseAddress?.assumingMemoryBound(to: CChar.self))
        }
        try sync()
    }

    // MARK: capture

    /// Reads the window's pixels (or `rect` of it, in window coordinates) with GetImage in ZPixmap
    /// format and decodes them with the window visual's masks and the server's byte order. Supports
    /// 32, 24 and 16 bits per pixel (depth 24 B,G,R,x little-endian; depth 16 RGB565).
    public func capture(window: UInt32, rect: PixelRect? = nil) throws -> CapturedImage {
        let area: PixelRect
        if let rect {
            area = rect
        } else {
            let g = try geometry(ofWindow: window)
            area = PixelRect(x: 0, y: 0, width: g.width, height: g.height)
        }
        guard area.width > 0, area.height > 0 else { throw HarnessError("capture: empty rectangle \(area)") }
        let r = try reply("GetImage(0x\(String(window, radix: 16)), \(area)) — the window must be mapped, unobscured and the rectangle inside it") {
            xcb_get_image_reply($0, xcb_get_image($0, UInt8(XCB_IMAGE_FORMAT_Z_PIXMAP.rawValue), window,
                                                  Int16(clamping: area.x), Int16(clamping: area.y),
                                                  UInt16(clamping: area.width), UInt16(clamping: area.height), UInt32.max), $1)
        }
        defer { free(r) }
        let depth = r.pointee.depth
        let visualID = r.pointee.visual
        let length = Int(xcb_get_image_data_length(r))
        guard let data = xcb_get_image_data(r) else { throw HarnessError("GetImage returned no data") }
        let bytes = UnsafeBufferPointer(start: data, count: length)

        guard let setup = xcb_get_setup(connection) else { throw HarnessError("no setup") }
        // Pixmap format for this depth: bits per pixel and scanline padding.
        var format: (bpp: Int, pad: Int)?
        var formats = xcb_setup_pixmap_formats_iterator(setup)
        while formats.rem > 0 {
            if let f = formats.data, f.pointee.depth == depth { format = (Int(f.pointee.bits_per_pixel), Int(f.pointee.scanline_pad)) }
            xcb_format_next(&formats)
        }
        guard let format else { throw HarnessError("no pixmap format for depth \(depth)") }
        guard let masks = visualMasks(setup: setup, visual: visualID) else {
            throw HarnessError("visual 0x\(String(visualID, radix: 16)) of depth \(depth) is not TrueColor/DirectColor (cannot decode)")
        }
        guard [16, 24, 32].contains(format.bpp), format.pad > 0, format.pad % 8 == 0 else {
            throw HarnessError("unsupported pixmap format: \(format.bpp) bits per pixel, scanline pad \(format.pad) (depth \(depth))")
        }
        let bytesPerPixel = format.bpp / 8
        let stride = ((area.width * format.bpp + format.pad - 1) / format.pad) * format.pad / 8
        guard length >= stride * (area.height - 1) + area.width * bytesPerPixel else {
            throw HarnessError("GetImage data too short: \(length) bytes for \(area) at \(format.bpp) bpp")
        }
        let msbFirst = setup.pointee.image_byte_order == UInt8(XCB_IMAGE_ORDER_MSB_FIRST.rawValue)
        let channels = [masks.red, masks.green, masks.blue].map { mask -> (mask: UInt32, shift: UInt32, max: UInt32) in
            let shift = UInt32(mask.trailingZeroBitCount)
            return (mask, shift, mask >> shift)
        }
        var pixels: [RGB] = []
        pixels.reserveCapacity(area.area)
        for y in 0..<area.height {
            var offset = y * stride
            for _ in 0..<area.width {
                var value: UInt32 = 0
                for i in 0..<bytesPerPixel {
                    let byte = UInt32(bytes[offset + i])
                    value |= msbFirst ? byte << UInt32(8 * (bytesPerPixel - 1 - i)) : byte << UInt32(8 * i)
                }
                offset += bytesPerPixel
                func channel(_ c: (mask: UInt32, shift: UInt32, max: UInt32)) -> UInt8 {
                    guard c.max > 0 else { return 0 }
                    let v = (value & c.mask) >> c.shift
                    return UInt8((v * 255 + c.max / 2) / c.max)
                }
                pixels.append(RGB(r: channel(channels[0]), g: channel(channels[1]), b: channel(channels[2])))
            }
        }
        return CapturedImage(width: area.width, height: area.height, origin: (area.x, area.y), pixels: pixels)
    }

    private func visualMasks(setup: UnsafePointer<xcb_setup_t>, visual: xcb_visualid_t) -> (red: UInt32, green: UInt32, blue: UInt32)? {
        var screens = xcb_setup_roots_iterator(setup)
        while screens.rem > 0 {
            if let screen = screens.data {
                var depths = xcb_screen_allowed_depths_iterator(screen)
                while depths.rem > 0 {
                    if let d = depths.data {
                        var visuals = xcb_depth_visuals_iterator(d)
                        while visuals.rem > 0 {
                            if let v = visuals.data, v.pointee.visual_id == visual {
                                let c = v.pointee._class
                                guard c == UInt8(XCB_VISUAL_CLASS_TRUE_COLOR.rawValue) || c == UInt8(XCB_VISUAL_CLASS_DIRECT_COLOR.rawValue) else { return nil }
                                return (v.pointee.red_mask, v.pointee.green_mask, v.pointee.blue_mask)
                            }
                            xcb_visualtype_next(&visuals)
                        }
                    }
                    xcb_depth_next(&depths)
                }
            }
            xcb_screen_next(&screens)
        }
        return nil
    }

    /// The pixel value for `colour` in the root visual (for test windows of our own).
    func pixelValue(for colour: RGB) throws -> UInt32 {
        guard let setup = xcb_get_setup(connection) else { throw HarnessError("no setup") }
        guard let screen = xcb_setup_roots_iterator(setup).data else { throw HarnessError("no screen") }
        guard let masks = visualMasks(setup: setup, visual: screen.pointee.root_visual) else {
            throw HarnessError("root visual is not TrueColor")
        }
        func place(_ v: UInt8, _ mask: UInt32) -> UInt32 {
            let shift = UInt32(mask.trailingZeroBitCount), maxValue = mask >> shift
            return ((UInt32(v) * maxValue + 127) / 255) << shift
        }
        return place(colour.r, masks.red) | place(colour.g, masks.green) | place(colour.b, masks.blue)
    }
}
