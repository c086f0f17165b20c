/// The session's monitors: one RandR watcher per connection, shared by every host's follower.
extension DesktopSession {
    /// The connection's monitors, set up on first use; nil (asked once) without RandR 1.2.
    package func sharedMonitors() -> RandRMonitors? {
        if monitorsTried { return monitors }
        monitorsTried = true
        monitors = RandRMonitors(connection: connection)
        return monitors
    }

    /// Reads `event` if it is RandR's (it is everyone's: the caller's too) and tells every host's
    /// follower that the monitors may have changed. True when it was RandR's.
    package func handleMonitorEvent(_ event: XEvent) -> Bool {
        guard let monitors, monitors.handle(event) else { return false }
        for host in hosts { host.monitorScaleFollower?.monitorsChanged() }
        return true
    }
}
