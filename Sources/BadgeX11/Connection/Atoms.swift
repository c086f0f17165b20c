import CXCB

/// The atoms the toolbar uses, interned once at startup in one batch.
package struct Atoms: Sendable {
    /// WM_PROTOCOLS.
    package let wmProtocols: xcb_atom_t
    /// WM_DELETE_WINDOW: the window manager's close button.
    package let wmDeleteWindow: xcb_atom_t
    /// WM_NAME.
    package let wmName: xcb_atom_t
    /// _NET_WM_NAME.
    package let netWMName: xcb_atom_t
    /// UTF8_STRING.
    package let utf8String: xcb_atom_t
    /// _NET_WM_PID.
    package let netWMPID: xcb_atom_t
    /// _NET_WM_PING.
    package let netWMPing: xcb_atom_t
    /// _NET_WM_WINDOW_TYPE.
    package let netWMWindowType: xcb_atom_t
    /// _NET_WM_WINDOW_TYPE_NORMAL.
    package let netWMWindowTypeNormal: xcb_atom_t
    /// RESOURCE_MANAGER (the X resource database, for Xft.dpi).
    package let resourceManager: xcb_atom_t
    /// _NET_WM_WINDOW_TYPE_TOOLTIP.
    package let netWMWindowTypeTooltip: xcb_atom_t
    /// _NET_WM_ICON: the window's icons as ARGB CARDINALs.
    package let netWMIcon: xcb_atom_t
    /// _NET_WM_STATE.
    package let netWMState: xcb_atom_t
    /// _NET_WM_STATE_DEMANDS_ATTENTION.
    package let netWMStateDemandsAttention: xcb_atom_t
    /// _NET_SUPPORTING_WM_CHECK: present on the root window while an EWMH window manager runs.
    package let netSupportingWMCheck: xcb_atom_t

    /// _NET_ACTIVE_WINDOW: the request to activate a window (and the root's active window).
    package let netActiveWindow: xcb_atom_t
    /// _NET_CLIENT_LIST: the root's list of the windows the window manager manages, in mapping order.
    package let netClientList: xcb_atom_t
    /// _NET_CLIENT_LIST_STACKING: the same windows, bottom to top.
    package let netClientListStacking: xcb_atom_t
    /// WM_STATE: set by the window manager on each client window it manages (ICCCM 4.1.3.1).
    package let wmState: xcb_atom_t
    /// _NET_STARTUP_ID: the launcher's startup-notification id, on the window.
    package let netStartupID: xcb_atom_t
    /// _NET_STARTUP_INFO_BEGIN: the first part of a startup-notification message.
    package let netStartupInfoBegin: xcb_atom_t
    /// _NET_STARTUP_INFO: the following parts.
    package let netStartupInfo: xcb_atom_t

    /// _NET_WM_SYNC_REQUEST: the window manager's resize-synchronisation protocol.
    package let netWMSyncRequest: xcb_atom_t
    /// _NET_WM_SYNC_REQUEST_COUNTER: the window's SYNC counter for it.
    package let netWMSyncRequestCounter: xcb_atom_t

    /// _XSETTINGS_S0: the selection the XSETTINGS manager of screen 0 owns.
    package let xsettingsSelection: xcb_atom_t
    /// _XSETTINGS_SETTINGS: the manager's settings property.
    package let xsettingsSettings: xcb_atom_t
    /// WM_S0: the selection a window manager of screen 0 owns (ICCCM 4.3); a new owner announces
    /// itself with a MANAGER message.
    package let wmS0: xcb_atom_t
    /// MANAGER: the message announcing a new selection owner.
    package let manager: xcb_atom_t
    /// AT_SPI_BUS: the accessibility bus's address, on the root window (set by at-spi-bus-launcher).
    package let atSPIBus: xcb_atom_t

    /// Interns every atom with one round trip.
    package init(connection: XConnection) throws(X11Error) {
        let names = ["WM_PROTOCOLS", "WM_DELETE_WINDOW", "WM_NAME", "_NET_WM_NAME", "UTF8_STRING", "_NET_WM_PID",
                     "_NET_WM_PING", "_NET_WM_WINDOW_TYPE", "_NET_WM_WINDOW_TYPE_NORMAL", "RESOURCE_MANAGER",
                     "_NET_WM_WINDOW_TYPE_TOOLTIP", "_NET_WM_ICON", "_NET_WM_STATE", "_NET_WM_STATE_DEMANDS_ATTENTION",
                     "_NET_SUPPORTING_WM_CHECK", "_NET_ACTIVE_WINDOW", "_NET_CLIENT_LIST", "_NET_CLIENT_LIST_STACKING", "WM_STATE",
                     "_NET_STARTUP_ID", "_NET_STARTUP_INFO_BEGIN", "_NET_STARTUP_INFO",
                     "_NET_WM_SYNC_REQUEST", "_NET_WM_SYNC_REQUEST_COUNTER", "_XSETTINGS_S0", "_XSETTINGS_SETTINGS", "MANAGER",
                     "AT_SPI_BUS", "WM_S0"]
        let atoms = try connection.internAtoms(names)
        func atom(_ name: String) -> xcb_atom_t { atoms[name] ?? 0 }
        wmProtocols = atom("WM_PROTOCOLS")
        wmDeleteWindow = atom("WM_DELETE_WINDOW")
        wmName = atom("WM_NAME")
        netWMName = atom("_NET_WM_NAME")
        utf8String = atom("UTF8_STRING")
        netWMPID = atom("_NET_WM_PID")
        netWMPing = atom("_NET_WM_PING")
        netWMWindowType = atom("_NET_WM_WINDOW_TYPE")
        netWMWindowTypeNormal = atom("_NET_WM_WINDOW_TYPE_NORMAL")
        resourceManager = atom("RESOURCE_MANAGER")
        netWMWindowTypeTooltip = atom("_NET_WM_WINDOW_TYPE_TOOLTIP")
        netWMIcon = atom("_NET_WM_ICON")
        netWMState = atom("_NET_WM_STATE")
        netWMStateDemandsAttention = atom("_NET_WM_STATE_DEMANDS_ATTENTION")
        netSupportingWMCheck = atom("_NET_SUPPORTING_WM_CHECK")
        netActiveWindow = atom("_NET_ACTIVE_WINDOW")
        netClientList = atom("_NET_CLIENT_LIST")
        netClientListStacking = atom("_NET_CLIENT_LIST_STACKING")
        wmState = atom("WM_STATE")
        netStartupID = atom("_NET_STARTUP_ID")
        netStartupInfoBegin = atom("_NET_STARTUP_INFO_BEGIN")
        netStartupInfo = atom("_NET_STARTUP_INFO")
        netWMSyncRequest = atom("_NET_WM_SYNC_REQUEST")
        netWMSyncRequestCounter = atom("_NET_WM_SYNC_REQUEST_COUNTER")
        xsettingsSelection = atom("_XSETTINGS_S0")
        wmS0 = atom("WM_S0")
        xsettingsSettings = atom("_XSETTINGS_SETTINGS")
        manager = atom("MANAGER")
        atSPIBus = atom("AT_SPI_BUS")
    }
}
