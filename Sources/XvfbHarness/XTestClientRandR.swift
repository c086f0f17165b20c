import CXCB
import CXCBRandR
import Glibc

/// RandR output properties for end-to-end tests: what `xrandr --set` cannot do, creating one
/// (X11Libre's per-output `DPI`, which Xvfb does not make).
extension XTestClient {
    /// The ids and names of the screen's outputs (Xvfb has one, "screen").
    public func outputs() throws -> [(id: UInt32, name: String)] {
        let resources = try reply("RRGetScreenResourcesCurrent") {
            xcb_randr_get_screen_resources_current_reply($0, xcb_randr_get_screen_resources_current($0, root), $1)
        }
        defer { free(resources) }
        let count = Int(xcb_randr_get_screen_resources_current_outputs_length(resources))
        guard count > 0, let ids = xcb_randr_get_screen_resources_current_outputs(resources) else { return [] }
        return try UnsafeBufferPointer(start: ids, count: count).map { id in
            let info = try reply("RRGetOutputInfo") { xcb_randr_get_output_info_reply($0, xcb_randr_get_output_info($0, id, 0), $1) }
            defer { free(info) }
            let length = Int(xcb_randr_get_output_info_name_length(info))
            let name = xcb_randr_get_output_info_name(info).map {
                String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
            } ?? ""
            return (id, name)
        }
    }

    /// Sets (creating it when needed) the 32-bit INTEGER property `name` of the output named
    /// `output` to `value`, as X11Libre's `DPI` is; the server tells RandR clients (RRNotify).
    public func setOutputProperty(output: String, name: String, value: Int32) throws {
        guard let id = try outputs().first(where: { $0.name == output })?.id else {
            throw HarnessError("no output named \(output) on \(display)")
        }
        let property = try atom(name)
        var data = value
        withUnsafeBytes(of: &data) { bytes in
            _ = xcb_randr_change_output_property(connection, id, property, XCB_ATOM_INTEGER.rawValue, 32,
                                                 UInt8(XCB_PROP_MODE_REPLACE.rawValue), 1, bytes.baseAddress)
        }
        try sync()
    }
}
