import CXCB

/// What makes a window a top-level window of the application's, for a ``ToolbarHost`` with a
/// window of its own and an ``ApplicationWindow`` alike: the identity and the properties the window
/// manager reads (WM_CLASS, title, hints, icon), its protocols (close, ping, sync request) and one
/// urgency behaviour, and, for a toolbar's window, the launcher's startup notification and
/// `_NET_WM_SYNC_REQUEST`.
///
/// Not Sendable: event-loop thread only.
package final class TopLevelWindow {
    /// Who the window is.
    package let identity: ApplicationIdentity
    /// The properties the window manager reads.
    package let properties: TopLevelProperties
    /// Close, ping and sync requests, and urgency.
    package let windowManager: WindowManagerProtocols
    /// `_NET_WM_SYNC_REQUEST` (nil without the SYNC extension, or when not asked for).
    package let resizeSync: ResizeSync?
    /// The launcher's startup notification, until it is answered.
    package var startup: StartupNotification?

    /// Sets the properties of `window` for `identity` (title included); with `synchronizingResizes`,
    /// takes part in `_NET_WM_SYNC_REQUEST`; with `takingStartupNotification`, takes
    /// `DESKTOP_STARTUP_ID` out of the environment and announces it on the window.
    package init(connection: XConnection, atoms: Atoms, window: xcb_window_t, identity: ApplicationIdentity,
                 size: (width: Int, height: Int), minimum: (width: Int, height: Int), title: String,
                 synchronizingResizes: Bool, takingStartupNotification: Bool) {
        self.identity = identity
        let sync = synchronizingResizes ? ResizeSync(connection: connection) : nil
        resizeSync = sync
        properties = TopLevelProperties(connection: connection, atoms: atoms, window: window, identity: identity,
                                        size: size, minimum: minimum, syncCounter: sync?.counter)
        properties.setTitle(title)
        windowManager = WindowManagerProtocols(connection: connection, atoms: atoms, window: window)
        if takingStartupNotification {
            startup = StartupNotification.take()
            startup?.announce(on: window, connection: connection, atoms: atoms)
        }
    }
}
