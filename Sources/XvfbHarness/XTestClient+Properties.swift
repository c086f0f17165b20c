import BadgeCore
import BadgeX11
import CXCB
import CXvfbHarness
import Glibc

/// Atoms, window properties and WM_PROTOCOLS messages, as a test reads and sends them.
extension XTestClient {

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
}
