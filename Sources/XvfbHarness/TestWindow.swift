import BadgeCore
import BadgeX11
import CXCB
import Glibc

/// An event received by a `TestWindow`.
public enum TestWindowEvent: Equatable, Sendable {
    /// ButtonPress at window coordinates.
    case buttonPress(button: Int, x: Int, y: Int)
    /// ButtonRelease at window coordinates.
    case buttonRelease(button: Int, x: Int, y: Int)
    /// KeyPress.
    case keyPress(keycode: Int)
    /// KeyRelease.
    case keyRelease(keycode: Int)
    /// MotionNotify at window coordinates.
    case motion(x: Int, y: Int)
    /// Expose; `count` more follow.
    case expose(count: Int)
    /// MapNotify.
    case mapNotify
    /// A ClientMessage: its type atom, format and first 32-bit data word.
    case clientMessage(type: UInt32, format: Int, data0: UInt32)
    /// Any other event or an error (type 0), by response type.
    case other(type: Int)
}

/// A plain X client of the test's own: one window filled with a background colour, with its own
/// connection. Used to test the harness itself without the app (and as a simple occluder); with
/// `managed: true` and a WM_CLASS, it stands for another application under a window manager.
public final class TestWindow {
    /// Owns the connection (closed when released).
    private let x: XConnection
    var connection: OpaquePointer { x.handle }
    /// The window id.
    public let window: xcb_window_t
    /// Its size.
    public let width: Int, height: Int

    /// Creates, names and maps a window at (x, y) in root coordinates, and waits (deadline
    /// `timeout`) until it is exposed, so it can be captured and clicked. By default it is
    /// override-redirect (no window manager touches it); `managed: true` makes it an ordinary
    /// top-level window that a window manager frames and lists. `wmClass` sets WM_CLASS (instance,
    /// class) and `pid` sets `_NET_WM_PID`, as another application's window has them.
    public init(display: String, x: Int = 0, y: Int = 0, width: Int = 200, height: Int = 100,
                background: RGB = RGB(hex: 0x336699), title: String = "harness test window", managed: Bool = false,
                wmClass: (instance: String, className: String)? = nil, pid: Int32? = nil, timeout: Double = 10) throws {
        let helper = try XTestClient(display: display)  // for the visual pixel value
        let pixel = try helper.pixelValue(for: background)
        let connection = try openDisplay(display, for: "TestWindow")
        self.x = connection
        let c = connection.handle
        self.width = width
        self.height = height
        window = xcb_generate_id(c)
        let mask = XCB_CW_BACK_PIXEL.rawValue | (managed ? 0 : XCB_CW_OVERRIDE_REDIRECT.rawValue) | XCB_CW_EVENT_MASK.rawValue
        let events = XCB_EVENT_MASK_EXPOSURE.rawValue | XCB_EVENT_MASK_BUTTON_PRESS.rawValue
            | XCB_EVENT_MASK_BUTTON_RELEASE.rawValue | XCB_EVENT_MASK_KEY_PRESS.rawValue
            | XCB_EVENT_MASK_KEY_RELEASE.rawValue | XCB_EVENT_MASK_STRUCTURE_NOTIFY.rawValue
            | XCB_EVENT_MASK_POINTER_MOTION.rawValue
        let values: [UInt32] = managed ? [pixel, events] : [pixel, 1, events]  // ascending mask-bit order
        xcb_create_window(c, UInt8(XCB_COPY_FROM_PARENT), window, connection.root,
                          Int16(clamping: x), Int16(clamping: y), UInt16(clamping: width), UInt16(clamping: height), 0,
                          UInt16(XCB_WINDOW_CLASS_INPUT_OUTPUT.rawValue), connection.rootVisual, mask, values)
        xcb_change_property(c, UInt8(XCB_PROP_MODE_REPLACE.rawValue), window, XCB_ATOM_WM_NAME.rawValue,
                            XCB_ATOM_STRING.rawValue, 8, UInt32(title.utf8.count), title)
        let protocols = try helper.atom("WM_PROTOCOLS"), delete = try helper.atom("WM_DELETE_WINDOW")
        var deleteAtom = delete
        xcb_change_property(c, UInt8(XCB_PROP_MODE_REPLACE.rawValue), window, protocols, XCB_ATOM_ATOM.rawValue, 32, 1, &deleteAtom)
        if let wmClass {
            let value = Array((wmClass.instance + "\0" + wmClass.className + "\0").utf8)
            xcb_change_property(c, UInt8(XCB_PROP_MODE_REPLACE.rawValue), window, XCB_ATOM_WM_CLASS.rawValue,
                                XCB_ATOM_STRING.rawValue, 8, UInt32(value.count), value)
        }
        if let pid {
            var value = UInt32(bitPattern: pid)
            xcb_change_property(c, UInt8(XCB_PROP_MODE_REPLACE.rawValue), window, try helper.atom("_NET_WM_PID"),
                                XCB_ATOM_CARDINAL.rawValue, 32, 1, &value)
        }
        xcb_map_window(c, window)
        xcb_flush(c)
        _ = try waitForEvent(timeout: timeout) { if case .expose = $0 { return true }; return false }
    }

    /// The next event, waiting up to `timeout` seconds (poll on the connection's descriptor); nil
    /// on timeout. Throws when the connection breaks.
    public func nextEvent(timeout: Double) throws -> TestWindowEvent? {
        let deadline = Deadline(seconds: timeout)
        while true {
            if let e = xcb_poll_for_event(connection) {
                defer { free(e) }
                return decode(e)
            }
            let error = xcb_connection_has_error(connection)
            if error != 0 { throw HarnessError("TestWindow connection broke: \(describeConnectionError(error))") }
            if deadline.hasPassed { return nil }
            var pfd = [pollfd(fd: xcb_get_file_descriptor(connection), events: Int16(POLLIN), revents: 0)]
            _ = poll(&pfd, 1, deadline.remainingMilliseconds)
        }
    }

    /// Waits for an event satisfying `predicate`, discarding others; throws on timeout.
    public func waitForEvent(timeout: Double, where predicate: (TestWindowEvent) -> Bool) throws -> TestWindowEvent {
        let deadline = Deadline(seconds: timeout)
        var seen: [TestWindowEvent] = []
        while let e = try nextEvent(timeout: Double(deadline.remainingMilliseconds) / 1000) {
            if predicate(e) { return e }
            seen.append(e)
        }
        throw HarnessError("TestWindow: no matching event within \(timeout) s; saw \(seen)")
    }

    private func decode(_ e: UnsafeMutablePointer<xcb_generic_event_t>) -> TestWindowEvent {
        let type = Int(e.pointee.response_type & 0x7f)
        let raw = UnsafeMutableRawPointer(e)
        switch type {
        case Int(XCB_BUTTON_PRESS), Int(XCB_BUTTON_RELEASE):
            let b = raw.assumingMemoryBound(to: xcb_button_press_event_t.self).pointee
            return type == Int(XCB_BUTTON_PRESS)
                ? .buttonPress(button: Int(b.detail), x: Int(b.event_x), y: Int(b.event_y))
                : .buttonRelease(button: Int(b.detail), x: Int(b.event_x), y: Int(b.event_y))
        case Int(XCB_KEY_PRESS), Int(XCB_KEY_RELEASE):
            let k = raw.assumingMemoryBound(to: xcb_key_press_event_t.self).pointee
            return type == Int(XCB_KEY_PRESS) ? .keyPress(keycode: Int(k.detail)) : .keyRelease(keycode: Int(k.detail))
        case Int(XCB_MOTION_NOTIFY):
            let m = raw.assumingMemoryBound(to: xcb_motion_notify_event_t.self).pointee
            return .motion(x: Int(m.event_x), y: Int(m.event_y))
        case Int(XCB_EXPOSE):
            return .expose(count: Int(raw.assumingMemoryBound(to: xcb_expose_event_t.self).pointee.count))
        case Int(XCB_MAP_NOTIFY):
            return .mapNotify
        case Int(XCB_CLIENT_MESSAGE):
            var m = raw.assumingMemoryBound(to: xcb_client_message_event_t.self).pointee
            let data0 = withUnsafeBytes(of: &m.data) { $0.load(as: UInt32.self) }
            return .clientMessage(type: m.type, format: Int(m.format), data0: data0)
        default:
            return .other(type: type)
        }
    }
}
