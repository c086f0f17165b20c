import BadgeCore
import CXCB
import CXvfbHarness
import Glibc

/// Keyboard input by keysym, input focus and window-management requests for end-to-end tests.
extension XTestClient {
    /// The first keycode whose core keymap entry produces `keysym` in any column (the server's
    /// current mapping, read with GetKeyboardMapping), or nil when no key does.
    public func keycode(forKeysym keysym: UInt32) throws -> UInt8? {
        try keycodeAndColumn(forKeysym: keysym)?.keycode
    }

    /// The keycode producing `keysym` and its keymap column (0 plain, 1 with Shift), or nil.
    public func keycodeAndColumn(forKeysym keysym: UInt32) throws -> (keycode: UInt8, column: Int)? {
        guard let setup = xcb_get_setup(connection) else { throw HarnessError("no setup") }
        let first = setup.pointee.min_keycode, last = setup.pointee.max_keycode
        guard last >= first else { throw HarnessError("the server's keycode range \(first)...\(last) is empty") }
        let count = UInt8(clamping: Int(last) - Int(first) + 1)
        let r = try reply("GetKeyboardMapping") {
            xcb_get_keyboard_mapping_reply($0, xcb_get_keyboard_mapping($0, first, count), $1)
        }
        defer { free(r) }
        let perKey = Int(r.pointee.keysyms_per_keycode)
        let length = Int(xcb_get_keyboard_mapping_keysyms_length(r))
        guard perKey > 0, let syms = xcb_get_keyboard_mapping_keysyms(r) else { return nil }
        // Prefer the unshifted column, then any other.
        for column in 0..<perKey {
            for key in 0..<(length / perKey) where syms[key * perKey + column] == keysym {
                return (UInt8(Int(first) + key), column)
            }
        }
        return nil
    }

    /// Presses and releases the key producing `keysym`, holding the keys of `modifiers` (keysyms,
    /// e.g. Shift_L 0xffe1, Control_L 0xffe3) around it. A keysym found only in the shifted column
    /// (such as "plus" on a US keyboard) is typed with Shift held.
    public func key(keysym: UInt32, modifiers: [UInt32] = []) throws {
        guard let (code, column) = try keycodeAndColumn(forKeysym: keysym) else {
            throw HarnessError("no key produces keysym 0x\(String(keysym, radix: 16)) in the server's keymap")
        }
        var modifiers = modifiers
        if column == 1, !modifiers.contains(0xffe1) { modifiers.append(0xffe1) }
        let modifierCodes = try modifiers.map { sym -> UInt8 in
            guard let c = try keycode(forKeysym: sym) else { throw HarnessError("no key for modifier 0x\(String(sym, radix: 16))") }
            return c
        }
        for c in modifierCodes { fakeKey(press: true, keycode: c) }
        fakeKey(press: true, keycode: code)
        fakeKey(press: false, keycode: code)
        for c in modifierCodes.reversed() { fakeKey(press: false, keycode: c) }
        try sync()
    }

    /// Sends one fake key press or release (without flushing).
    public func fakeKey(press: Bool, keycode: UInt8) {
        fakeInput(press ? .keyPress : .keyRelease, detail: keycode)
    }

    /// Gives the keyboard focus to `window` (the root window: nobody's).
    public func setInputFocus(window: UInt32) throws {
        xcb_set_input_focus(connection, UInt8(XCB_INPUT_FOCUS_POINTER_ROOT.rawValue), window, 0)
        try sync()
    }

    /// Asks for a new size with ConfigureWindow (as a window manager or xdotool would).
    public func resize(window: UInt32, width: Int, height: Int) throws {
        let values: [UInt32] = [UInt32(clamping: width), UInt32(clamping: height)]
        xcb_configure_window(connection, window, UInt16(XCB_CONFIG_WINDOW_WIDTH.rawValue | XCB_CONFIG_WINDOW_HEIGHT.rawValue), values)
        try sync()
    }

    /// Unmaps `window`.
    public func unmap(window: UInt32) throws {
        xcb_unmap_window(connection, window)
        try sync()
    }

    /// Maps `window`.
    public func map(window: UInt32) throws {
        xcb_map_window(connection, window)
        try sync()
    }

    /// The window's parent (the root when not reparented by a window manager).
    public func parent(ofWindow window: UInt32) throws -> UInt32 {
        let r = try reply("QueryTree(0x\(String(window, radix: 16)))") {
            xcb_query_tree_reply($0, xcb_query_tree($0, window), $1)
        }
        defer { free(r) }
        return r.pointee.parent
    }

    /// Whether the window is override-redirect (ignored by window managers, like tooltips).
    public func isOverrideRedirect(window: UInt32) throws -> Bool {
        let r = try reply("GetWindowAttributes(0x\(String(window, radix: 16)))") {
            xcb_get_window_attributes_reply($0, xcb_get_window_attributes($0, window), $1)
        }
        defer { free(r) }
        return r.pointee.override_redirect != 0
    }

    /// The 32-bit values of a property (empty when absent).
    public func cardinals(window: UInt32, name: String) throws -> [UInt32] {
        guard let p = try property(window: window, name: name), p.format == 32 else { return [] }
        var values: [UInt32] = []
        values.reserveCapacity(p.bytes.count / 4)
        p.bytes.withUnsafeBytes { raw in
            for i in 0..<(raw.count / 4) { values.append(raw.loadUnaligned(fromByteOffset: i * 4, as: UInt32.self)) }
        }
        return values
    }
}

extension XTestClient {
    /// Replaces an 8-bit STRING property (e.g. RESOURCE_MANAGER on the root window) and waits until
    /// the server has processed it.
    public func setStringProperty(window: UInt32, name: String, value: String) throws {
        let property = try atom(name)
        let bytes = Array(value.utf8)
        let cookie = bytes.withUnsafeBufferPointer { buffer in
            xcb_change_property_checked(connection, UInt8(XCB_PROP_MODE_REPLACE.rawValue), window, property,
                                        XCB_ATOM_STRING.rawValue, 8, UInt32(buffer.count), buffer.baseAddress)
        }
        if let error = xcb_request_check(connection, cookie) {
            let code = error.pointee.error_code
            free(error)
            throw HarnessError("ChangeProperty \(name) failed with X error \(code)")
        }
    }
}
