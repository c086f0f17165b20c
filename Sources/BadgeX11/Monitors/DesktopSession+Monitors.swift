/// The session's monitors: one RandR watcher per connection, shared by every host's follower.
extension DesktopSession {
    /// The connection's monitors, set up on first use; nil (asked once) without RandR 1.2.
    package func sharedMonitors() -> RandRMonitors? {
        if monitorsTried { return monitors }
        monitorsTried = true
        monitors = RandRMonitors(connection: connection)
        return monitors
    }

    /// Tells every host's follower when `event` says the monitors may have changed (a RandR event,
    /// or the root's ConfigureNotify). True when it was RandR's own (it is everyone's: the
    /// caller's too); the root's ConfigureNotify goes on to the other handlers.
    package func handleMonitorEvent(_ event: XEvent) -> Bool {
        guard let monitors else { return false }
        if monitors.handle(event) { for host in hosts { host.monitorScaleFollower?.monitorsChanged() } }
        return monitors.isRandREvent(event)
    }
}
