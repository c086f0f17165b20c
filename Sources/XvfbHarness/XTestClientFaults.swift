import BadgeCore
import CXCB
import CXvfbHarness
import Glibc

/// Faults and load from outside the app: destroying its window, killing its connection, input bursts
/// sent without round trips, and the server's per-client resource counts (X-Resource extension).
extension XTestClient {
    /// Sends one XTEST fake input without flushing or waiting (for bursts; end with `flush()` and a sync).
    /// Motion is absolute, in root coordinates.
    public func fakeInput(_ type: FakeInputType, detail: UInt8 = 0, x: Int = 0, y: Int = 0) {
        xcb_test_fake_input(connection, type.rawValue, detail, 0, type == .motionNotify ? root : 0,
                            Int16(clamping: x), Int16(clamping: y), 0)
    }

    /// Sends every buffered request. Throws when the connection is broken.
    public func flush() throws {
        guard xcb_flush(connection) > 0 else {
            throw HarnessError("flush to \(display) failed: \(describeConnectionError(xcb_connection_has_error(connection)))")
        }
    }

    /// Destroys `window` as another client would (xcb_destroy_window), and waits until the server did.
    public func destroy(window: UInt32) throws {
        xcb_destroy_window(connection, window)
        try sync()
    }

    /// Closes the connection of the client that owns `resource` (xcb_kill_client, like `xkill` or
    /// `xdotool windowkill`), and waits until the server did.
    public func killClient(owning resource: UInt32) throws {
        xcb_kill_client(connection, resource)
        try sync()
    }

    /// The X-Resource extension's major opcode, or nil when the server lacks it.
    public func xResourceOpcode() throws -> UInt8? {
        let name = "X-Resource"
        let r = try reply("QueryExtension(X-Resource)") {
            xcb_query_extension_reply($0, xcb_query_extension($0, UInt16(name.utf8.count), name), $1)
        }
        defer { free(r) }
        return r.pointee.present != 0 ? r.pointee.major_opcode : nil
    }

    /// How many resources of each type (atom name: "WINDOW", "PIXMAP", "GC", ...) the server holds for
    /// the client that owns `resource` (X-Resource QueryClientResources). Throws without the extension.
    public func clientResources(owning resource: UInt32) throws -> [String: Int] {
        guard let major = try xResourceOpcode() else {
            throw HarnessError("the X server at \(display) has no X-Resource extension")
        }
        let sequence = xvfbharness_xres_query_client_resources(connection, major, resource)
        guard sequence != 0 else { throw HarnessError("X-Resource QueryClientResources: could not send the request to \(display)") }
        var error: UnsafeMutablePointer<xcb_generic_error_t>?
        let raw = xcb_wait_for_reply(connection, sequence, &error)
        if let error {
            let code = error.pointee.error_code
            free(error)
            free(raw)
            throw HarnessError("X-Resource QueryClientResources(0x\(String(resource, radix: 16))): X error \(code) on \(display)")
        }
        guard let raw else {
            throw HarnessError("X-Resource QueryClientResources: no reply from \(display): "
                + describeConnectionError(xcb_connection_has_error(connection)))
        }
        defer { free(raw) }
        let lengthWords = Int(raw.load(fromByteOffset: 4, as: UInt32.self))
        let types = Int(raw.load(fromByteOffset: 8, as: UInt32.self))
        guard types * 2 <= lengthWords else {
            throw HarnessError("X-Resource reply lists \(types) types in \(lengthWords) words")
        }
        var counts: [String: Int] = [:]
        for i in 0..<types {
            let type = raw.load(fromByteOffset: 32 + 8 * i, as: UInt32.self)
            let count = raw.load(fromByteOffset: 36 + 8 * i, as: UInt32.self)
            counts[try atomName(type), default: 0] += Int(count)
        }
        return counts
    }
}
