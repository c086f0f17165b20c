import CXCB
import CXKBCommonX11
import Glibc

/// The core keyboard's keymap and state through xkbcommon-x11: real layouts, and layout switches
/// honoured (XKB StateNotify updates the group; NewKeyboardNotify and MapNotify reload the keymap).
///
/// Not Sendable: owned by the event-loop thread, like the connection it reads from.
package final class Keyboard {
    /// Kept alive here: the keymap is re-read through it whenever the server says it changed.
    private let x: XConnection
    private var connection: OpaquePointer { x.handle }
    private let context: OpaquePointer
    private var keymap: OpaquePointer?
    private var state: OpaquePointer?
    private let deviceID: Int32
    /// The first event code of the XKB extension; XKB events arrive with this response type.
    package let firstEvent: UInt8

    /// Sets up the XKB extension, loads the core keyboard's keymap and selects XKB events.
    /// Throws a one-line message when the server has no usable XKB.
    package init(connection x: XConnection) throws(X11Error) {
        self.x = x
        let connection = x.handle
        var major: UInt16 = 0, minor: UInt16 = 0
        var baseEvent: UInt8 = 0, baseError: UInt8 = 0
        guard xkb_x11_setup_xkb_extension(connection, UInt16(XKB_X11_MIN_MAJOR_XKB_VERSION), UInt16(XKB_X11_MIN_MINOR_XKB_VERSION),
                                          XKB_X11_SETUP_XKB_EXTENSION_NO_FLAGS, &major, &minor, &baseEvent, &baseError) == 1 else {
            throw .unavailable("keyboard input", reason: "the X server has no usable XKB extension")
        }
        firstEvent = baseEvent
        let device = xkb_x11_get_core_keyboard_device_id(connection)
        guard device >= 0 else { throw .unavailable("keyboard input", reason: "XKB names no core keyboard") }
        deviceID = device
        guard let context = xkb_context_new(XKB_CONTEXT_NO_FLAGS) else {
            throw .unavailable("keyboard input", reason: "xkbcommon could not create a context")
        }
        self.context = context
        // Every stored property is set now, so a throw runs deinit, which releases the context.
        guard reloadKeymap() else {
            throw .unavailable("keyboard input", reason: "the X server sent no usable keyboard map")
        }
        let events = UInt16(XCB_XKB_EVENT_TYPE_NEW_KEYBOARD_NOTIFY.rawValue | XCB_XKB_EVENT_TYPE_MAP_NOTIFY.rawValue
            | XCB_XKB_EVENT_TYPE_STATE_NOTIFY.rawValue)
        let cookie = xcb_xkb_select_events_checked(connection, UInt16(XCB_XKB_ID_USE_CORE_KBD.rawValue), events, 0, events,
                                                   0xff, 0xff, nil)
        if let error = xcb_request_check(connection, cookie) {
            let code = error.pointee.error_code
            free(error)
            throw .requestRefused(request: "select XKB events", error: XErrorDescription.errorName(code))
        }
    }

    deinit {
        if let state { xkb_state_unref(state) }
        if let keymap { xkb_keymap_unref(keymap) }
        xkb_context_unref(context)
    }

    /// Reads the keymap and state of the core keyboard again; false when the server's reply is unusable
    /// (the previous keymap is kept then).
    @discardableResult
    package func reloadKeymap() -> Bool {
        guard let newKeymap = xkb_x11_keymap_new_from_device(context, connection, deviceID, XKB_KEYMAP_COMPILE_NO_FLAGS) else {
            return false
        }
        guard let newState = xkb_x11_state_new_from_device(newKeymap, connection, deviceID) else {
            xkb_keymap_unref(newKeymap)
            return false
        }
        if let state { xkb_state_unref(state) }
        if let keymap { xkb_keymap_unref(keymap) }
        keymap = newKeymap
        state = newState
        return true
    }

    /// Handles an event whose response type is `firstEvent`; returns true when it was an XKB event.
    package func handleXKBEvent(_ event: UnsafeMutableRawPointer) -> Bool {
        // Every XKB event starts with: response_type, xkbType, sequence, time, deviceID.
        let xkbType = event.load(fromByteOffset: 1, as: UInt8.self)
        let device = event.load(fromByteOffset: 8, as: UInt8.self)
        switch Int32(xkbType) {
        case XCB_XKB_NEW_KEYBOARD_NOTIFY:
            if Int32(device) == deviceID { reloadKeymap() }
        case XCB_XKB_MAP_NOTIFY:
            reloadKeymap()
        case XCB_XKB_STATE_NOTIFY:
            let notify = event.assumingMemoryBound(to: xcb_xkb_state_notify_event_t.self).pointee
            if let state {
                xkb_state_update_mask(state, xkb_mod_mask_t(notify.baseMods), xkb_mod_mask_t(notify.latchedMods),
                                      xkb_mod_mask_t(notify.lockedMods), xkb_layout_index_t(bitPattern: Int32(notify.baseGroup)),
                                      xkb_layout_index_t(bitPattern: Int32(notify.latchedGroup)),
                                      xkb_layout_index_t(notify.lockedGroup))
            }
        default:
            return false
        }
        return true
    }

    /// What a press of `keycode` means in the current layout and modifiers.
    package func press(keycode: UInt8) -> KeyPress {
        guard let state else { return KeyPress(symbol: 0, text: "", control: false, shift: false) }
        return press(keycode: keycode, in: state)
    }

    /// What a press of `keycode` means with the core modifier state `modifiers` (an X KeyPress's
    /// `state`: the eight real modifiers, whose xkbcommon indices are their core bits, and the XKB
    /// group in bits 13–14): for a key another window received and forwarded, whose modifiers
    /// need not be the ones the keyboard's state follows now.
    package func press(keycode: UInt8, modifiers: UInt16) -> KeyPress {
        guard let keymap, let scratch = xkb_state_new(keymap) else { return press(keycode: keycode) }
        defer { xkb_state_unref(scratch) }
        let group = xkb_layout_index_t((modifiers >> 13) & 0x3)
        xkb_state_update_mask(scratch, xkb_mod_mask_t(modifiers & 0xff), 0, 0, 0, 0, group)
        return press(keycode: keycode, in: scratch)
    }

    private func press(keycode: UInt8, in state: OpaquePointer) -> KeyPress {
        let key = xkb_keycode_t(keycode)
        let symbol = xkb_state_key_get_one_sym(state, key)
        var buffer = [CChar](repeating: 0, count: 64)
        let length = Int(xkb_state_key_get_utf8(state, key, &buffer, buffer.count))
        let text = length > 0 && length < buffer.count
            ? String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
        return KeyPress(symbol: symbol, text: text, control: isActive(XKB_MOD_NAME_CTRL, in: state),
                        shift: isActive(XKB_MOD_NAME_SHIFT, in: state))
    }

    private func isActive(_ modifier: String, in state: OpaquePointer) -> Bool {
        xkb_state_mod_name_is_active(state, modifier, XKB_STATE_MODS_EFFECTIVE) > 0
    }
}
