import CXCB
import Glibc

/// Startup notification (freedesktop.org's startup-notification spec): the launcher that started
/// the program shows a busy cursor or a spinner until the program says it is up.
///
/// The launcher passes an id in `DESKTOP_STARTUP_ID`; the program takes it out of its environment
/// (so its own children do not inherit it), sets `_NET_STARTUP_ID` on its window before mapping
/// it, and sends `remove: ID=…` (as `_NET_STARTUP_INFO_BEGIN` / `_NET_STARTUP_INFO` messages to
/// the root window) once the first frame is on the screen. Not Sendable.
package struct StartupNotification {
    /// The launcher's id.
    package let id: String

    /// Takes `DESKTOP_STARTUP_ID` out of the environment; nil when there is none (or it is empty,
    /// or not valid UTF-8: then it is only removed).
    package static func take() -> StartupNotification? {
        guard let raw = getenv("DESKTOP_STARTUP_ID") else { return nil }
        let bytes = Array(UnsafeBufferPointer(start: UnsafeRawPointer(raw).assumingMemoryBound(to: UInt8.self), count: strlen(raw)))
        unsetenv("DESKTOP_STARTUP_ID")
        guard !bytes.isEmpty, let id = String(validating: bytes, as: UTF8.self) else { return nil }
        return StartupNotification(id: id)
    }

    /// The user action's X timestamp, from the id's `_TIME<n>` suffix (the spec's convention);
    /// nil without one.
    package var timestamp: UInt32? {
        let bytes = Array(id.utf8), marker = Array("_TIME".utf8)
        var start = bytes.count - marker.count
        while start >= 0 {
            if bytes[start..<start + marker.count].elementsEqual(marker) {
                return UInt32(String(decoding: bytes[(start + marker.count)...], as: UTF8.self))
            }
            start -= 1
        }
        return nil
    }

    /// Sets `_NET_STARTUP_ID` on `window` (call before mapping it).
    package func announce(on window: xcb_window_t, connection x: XConnection, atoms: Atoms) {
        x.setProperty(atoms.netStartupID, of: window, type: atoms.utf8String, bytes: Array(id.utf8))
    }

    /// The `remove` message's text, with the id quoted as the spec asks.
    package var removeMessage: String {
        var quoted = "\""
        for character in id {
            if character == "\"" || character == "\\" { quoted += "\\" }
            quoted.append(character)
        }
        return "remove: ID=" + quoted + "\""
    }

    /// Tells the launcher the program is up: the `remove` message, NUL-terminated, in 20-byte
    /// ClientMessages to the root window with PropertyChangeMask.
    package func complete(from window: xcb_window_t, connection x: XConnection, atoms: Atoms) {
        let bytes = Array(removeMessage.utf8) + [0]
        var offset = 0
        while offset < bytes.count {
            var message = xcb_client_message_event_t()
            message.response_type = UInt8(XCB_CLIENT_MESSAGE)
            message.format = 8
            message.window = window
            message.type = offset == 0 ? atoms.netStartupInfoBegin : atoms.netStartupInfo
            let chunk = bytes[offset..<min(offset + 20, bytes.count)]
            withUnsafeMutableBytes(of: &message.data) { raw in
                for (index, byte) in chunk.enumerated() { raw[index] = byte }
            }
            withUnsafeBytes(of: &message) { raw in
                _ = xcb_send_event(x.handle, 0, x.root, XCB_EVENT_MASK_PROPERTY_CHANGE.rawValue,
                                   raw.baseAddress?.assumingMemoryBound(to: CChar.self))
            }
            offset += 20
        }
    }
}
