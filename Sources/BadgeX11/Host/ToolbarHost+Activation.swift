import CXCB

/// Coming to the front when the application is launched again (a single-instance application's
/// second launch, a `msg activate`).
extension ToolbarHost {
    /// Brings the top-level window to the front: maps it and asks the window manager to activate
    /// it (`_NET_ACTIVE_WINDOW`); without a window manager, raises and focuses it.
    ///
    /// - Parameter startupID: the new launch's `DESKTOP_STARTUP_ID`, when a launcher gave one: it
    ///   is set as the window's `_NET_STARTUP_ID`, its `_TIME` stamp tells the window manager when
    ///   the user asked (focus-stealing prevention), and the launcher is told the launch is done.
    /// - Returns: false for a child window (its owner decides), true otherwise.
    @discardableResult
    public func activate(startupID: String? = nil) -> Bool {
        guard let topLevel else { return false }
        var time: UInt32 = 0
        if let startupID, !startupID.isEmpty {
            let startup = StartupNotification(id: startupID)
            startup.announce(on: surface.window, connection: connection, atoms: atoms)
            time = startup.timestamp ?? 0
            topLevel.windowManager.activate(time: time)
            startup.complete(from: surface.window, connection: connection, atoms: atoms)
        } else {
            topLevel.windowManager.activate(time: time)
        }
        try? connection.flush()
        return true
    }
}
