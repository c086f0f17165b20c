import BadgeCore
import CXCB
import CXCBICCCM
import Glibc

/// The ICCCM and EWMH properties of a top-level window: who it belongs to (WM_CLASS), what it
/// answers (WM_PROTOCOLS: WM_DELETE_WINDOW, _NET_WM_PING), its hints, size hints, process,
/// machine and type, and the changing ones: title, urgency, icon.
///
/// Each setter writes only when its value differs from what was last written. Not Sendable.
package final class TopLevelProperties {
    private let x: XConnection
    private let atoms: Atoms
    private let window: xcb_window_t
    private var lastTitle: String?
    private var lastUrgent: Bool?

    /// Writes the static properties of `window` for `identity`, with `minimum` as the smallest size
    /// (device pixels) and `size` as the program-specified size.
    /// With `syncCounter`, the window takes part in `_NET_WM_SYNC_REQUEST` (protocol and counter).
    package init(connection x: XConnection, atoms: Atoms, window: xcb_window_t, identity: ApplicationIdentity,
                 size: (width: Int, height: Int), minimum: (width: Int, height: Int), syncCounter: UInt32? = nil) {
        self.x = x
        self.atoms = atoms
        self.window = window
        x.setProperty(XCB_ATOM_WM_CLASS.rawValue, of: window, type: XCB_ATOM_STRING.rawValue, bytes: identity.wmClassBytes)
        x.setProperty32(atoms.wmProtocols, of: window, type: XCB_ATOM_ATOM.rawValue,
                        values: [atoms.wmDeleteWindow, atoms.netWMPing] + (syncCounter == nil ? [] : [atoms.netWMSyncRequest]))
        if let syncCounter {
            x.setProperty32(atoms.netWMSyncRequestCounter, of: window, type: XCB_ATOM_CARDINAL.rawValue, values: [syncCounter])
        }
        setUrgent(false)
        var hints = xcb_size_hints_t()
        hints.flags = XCB_ICCCM_SIZE_HINT_P_SIZE.rawValue | XCB_ICCCM_SIZE_HINT_P_MIN_SIZE.rawValue
            | XCB_ICCCM_SIZE_HINT_P_WIN_GRAVITY.rawValue
        hints.width = Int32(clamping: size.width)
        hints.height = Int32(clamping: size.height)
        hints.min_width = Int32(clamping: max(minimum.width, 1))
        hints.min_height = Int32(clamping: max(minimum.height, 1))
        hints.win_gravity = UInt32(XCB_GRAVITY_NORTH_WEST.rawValue)
        Self.write(hints, as: XCB_ATOM_WM_NORMAL_HINTS.rawValue, type: XCB_ATOM_WM_SIZE_HINTS.rawValue,
                   count: Int(XCB_ICCCM_NUM_WM_SIZE_HINTS_ELEMENTS), x: x, window: window)
        x.setProperty32(atoms.netWMPID, of: window, type: XCB_ATOM_CARDINAL.rawValue, values: [UInt32(getpid())])
        var host = [CChar](repeating: 0, count: 256)
        if gethostname(&host, host.count - 1) == 0 {
            let name = host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
            x.setProperty(XCB_ATOM_WM_CLIENT_MACHINE.rawValue, of: window, type: XCB_ATOM_STRING.rawValue, bytes: name)
        }
        x.setProperty32(atoms.netWMWindowType, of: window, type: XCB_ATOM_ATOM.rawValue, values: [atoms.netWMWindowTypeNormal])
    }

    /// Sets WM_NAME and _NET_WM_NAME (UTF-8) when the title changed.
    package func setTitle(_ title: String) {
        guard title != lastTitle else { return }
        lastTitle = title
        x.setProperty(atoms.netWMName, of: window, type: atoms.utf8String, bytes: Array(title.utf8))
        // WM_NAME is Latin-1 (STRING); non-Latin-1 characters become "?".
        let latin1 = title.unicodeScalars.map { $0.value < 256 ? UInt8($0.value) : UInt8(ascii: "?") }
        x.setProperty(atoms.wmName, of: window, type: XCB_ATOM_STRING.rawValue, bytes: latin1)
    }

    /// Sets or clears the ICCCM urgency hint in WM_HINTS (with the input hint: the window takes the
    /// keyboard focus, and the initial state Normal).
    package func setUrgent(_ urgent: Bool) {
        guard urgent != lastUrgent else { return }
        lastUrgent = urgent
        var hints = xcb_icccm_wm_hints_t()
        hints.flags = Int32(XCB_ICCCM_WM_HINT_INPUT.rawValue | XCB_ICCCM_WM_HINT_STATE.rawValue
            | (urgent ? XCB_ICCCM_WM_HINT_X_URGENCY.rawValue : 0))
        hints.input = 1
        hints.initial_state = Int32(XCB_ICCCM_WM_STATE_NORMAL.rawValue)
        Self.write(hints, as: XCB_ATOM_WM_HINTS.rawValue, type: XCB_ATOM_WM_HINTS.rawValue,
                   count: Int(XCB_ICCCM_NUM_WM_HINTS_ELEMENTS), x: x, window: window)
    }

    /// Replaces _NET_WM_ICON.
    package func setIcon(_ cardinals: [UInt32]) {
        x.setProperty32(atoms.netWMIcon, of: window, type: XCB_ATOM_CARDINAL.rawValue, values: cardinals)
    }

    /// Writes an ICCCM struct of `count` 32-bit fields as a property.
    package static func write<T>(_ value: T, as property: xcb_atom_t, type: xcb_atom_t, count: Int, x: XConnection, window: xcb_window_t) {
        precondition(MemoryLayout<T>.size == count * 4, "ICCCM struct layout")
        var value = value
        let words = withUnsafeBytes(of: &value) { Array($0.bindMemory(to: UInt32.self)) }
        x.setProperty32(property, of: window, type: type, values: words)
    }
}
