import CXCB

/// The atoms of the XEmbed system tray protocol, interned once when a tray icon starts.
package struct TrayAtoms: Sendable {
    /// `_XEMBED_INFO`'s flag: the embedder maps the window.
    package static let xembedMapped: UInt32 = 1
    /// `SYSTEM_TRAY_REQUEST_DOCK`, the opcode asking the tray to swallow a window.
    package static let requestDock: UInt32 = 0
    /// `_NET_SYSTEM_TRAY_ORIENTATION`'s vertical value (0 is horizontal).
    package static let vertical: UInt32 = 1

    /// `_NET_SYSTEM_TRAY_S<screen>`: the selection the tray of the screen owns.
    package let selection: xcb_atom_t
    /// `_NET_SYSTEM_TRAY_OPCODE`: the messages to the tray.
    package let opcode: xcb_atom_t
    /// `_NET_SYSTEM_TRAY_VISUAL`: the visual the tray wants icons in.
    package let visual: xcb_atom_t
    /// `_NET_SYSTEM_TRAY_ORIENTATION`: how the tray lays icons out.
    package let orientation: xcb_atom_t
    /// `_XEMBED_INFO`: the embedded window's version and flags.
    package let xembedInfo: xcb_atom_t
    /// `_XEMBED`: the embedder's messages.
    package let xembed: xcb_atom_t
    /// `MANAGER`: a new selection owner's announcement on the root.
    package let manager: xcb_atom_t
    /// `_NET_WM_NAME`.
    package let netWMName: xcb_atom_t
    /// `UTF8_STRING`.
    package let utf8String: xcb_atom_t

    /// Interns the atoms for screen `screen` in one round trip.
    package init(connection: XConnection, screen: Int) throws(X11Error) {
        let selectionName = "_NET_SYSTEM_TRAY_S\(screen)"
        let names = [selectionName, "_NET_SYSTEM_TRAY_OPCODE", "_NET_SYSTEM_TRAY_VISUAL", "_NET_SYSTEM_TRAY_ORIENTATION",
                     "_XEMBED_INFO", "_XEMBED", "MANAGER", "_NET_WM_NAME", "UTF8_STRING"]
        let atoms = try connection.internAtoms(names)
        func atom(_ name: String) -> xcb_atom_t { atoms[name] ?? 0 }
        selection = atom(selectionName)
        opcode = atom("_NET_SYSTEM_TRAY_OPCODE")
        visual = atom("_NET_SYSTEM_TRAY_VISUAL")
        orientation = atom("_NET_SYSTEM_TRAY_ORIENTATION")
        xembedInfo = atom("_XEMBED_INFO")
        xembed = atom("_XEMBED")
        manager = atom("MANAGER")
        netWMName = atom("_NET_WM_NAME")
        utf8String = atom("UTF8_STRING")
    }
}
