import CXCB
import Glibc

extension XConnection {
    /// The bytes of `property` on `window` (at most `maximumBytes`), or nil when the window or the
    /// property does not exist, has another type than `type`, is empty, or the server refused.
    /// `type` nil takes any type. One round trip.
    package func property(_ property: xcb_atom_t, of window: xcb_window_t, type: xcb_atom_t?,
                          maximumBytes: Int) -> [UInt8]? {
        let wanted = type ?? xcb_atom_t(XCB_GET_PROPERTY_TYPE_ANY.rawValue)
        let words = UInt32(clamping: (maximumBytes + 3) / 4)
        var error: UnsafeMutablePointer<xcb_generic_error_t>?
        let cookie = xcb_get_property(handle, 0, window, property, wanted, 0, words)
        guard let reply = xcb_get_property_reply(handle, cookie, &error) else {
            free(error)
            return nil
        }
        defer { free(reply) }
        let length = Int(xcb_get_property_value_length(reply))
        guard length > 0, type == nil || reply.pointee.type == wanted, let value = xcb_get_property_value(reply) else { return nil }
        return Array(UnsafeRawBufferPointer(start: value, count: min(length, maximumBytes)))
    }

    /// `property` on `window` as UTF-8 text (a STRING or UTF8_STRING property), or nil.
    package func textProperty(_ property: xcb_atom_t, of window: xcb_window_t, type: xcb_atom_t = XCB_ATOM_STRING.rawValue,
                              maximumBytes: Int) -> String? {
        self.property(property, of: window, type: type, maximumBytes: maximumBytes).map { String(decoding: $0, as: UTF8.self) }
    }
}
