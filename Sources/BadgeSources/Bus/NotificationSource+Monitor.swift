import BadgeCore
import BadgeIO

/// The generic driver's half of ``NotificationSource``: the daemon's traffic, watched on a monitor
/// connection of its own, each `Notify` paired with its reply's id (and, with dunst, the count read
/// again whenever traffic passes).
extension NotificationSource {
    /// Watches the daemon's traffic on a monitor connection of its own (a monitor may send nothing,
    /// so it cannot be the connection that asks questions). With `daemon` nil (none on the bus) the
    /// rules name no sender, so the first notification of a daemon that appears, or that D-Bus
    /// activation starts for it, is seen; the replies are paired with their calls all the same.
    /// A new monitor replaces the old one only once it monitors: the old one watches until then.
    func watchTraffic(of daemon: String?) {
        if monitor != nil, monitorDaemon == daemon { return }
        if let previous = monitorDaemon, previous != daemon {
            // Another daemon: the old one's notifications are not the new one's, and the old
            // monitor's rules do not see the new one's replies.
            shown.removeAll()
            pendingNotify.removeAll()
            monitoring = false
        } else if monitor == nil {
            monitoring = false
        }
        standby?.close()
        standby = monitor
        monitor = nil
        monitorDaemon = daemon
        guard let connection = try? BusSourceConnection(address: address, label: "the session bus (notification monitor)") else {
            monitor = standby
            standby = nil
            return
        }
        monitor = connection
        let rules = [
            DBusMatchRule(kind: .methodCall, interface: Self.daemonName, member: "Notify"),
            DBusMatchRule(kind: .methodCall, interface: Self.daemonName, member: "CloseNotification"),
            DBusMatchRule(kind: .methodCall, interface: Self.dunstInterface),
            DBusMatchRule(kind: .methodReturn, sender: daemon),
            DBusMatchRule.signal(Self.daemonName, "NotificationClosed"),
        ]
        connection.bus.whenReady { [weak self, weak connection] _ in
            connection?.bus.call("org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus.Monitoring",
                                 member: "BecomeMonitor", arguments: [.array(element: "s", rules.map { .string($0.description) }), .uint32(0)]) { reply in
                // Monitoring from now on: what passed before it began is read once more (dunst's
                // count); a refusal leaves dunst's count to the traffic the query connection sees,
                // and the generic count unknown.
                guard let self, self.monitor === connection else { return }
                guard reply != nil else {
                    if !self.usesDunstCount, self.serverName != nil {
                        self.fail(Sentence("the session bus does not let this badge watch the notifications (BecomeMonitor was refused)"))
                    }
                    return
                }
                self.monitoring = true
                self.standby?.close()
                self.standby = nil
                guard self.serverName != nil else {
                    // Watching for a daemon: its first notification will count.
                    if self.owner == nil { self.fail(Self.noDaemonWatching) }
                    return
                }
                if self.usesDunstCount { self.readDunst() } else { self.publishShown() }
            }
        }
        // A monitor may send nothing (no AddMatch): its rules pick out what it overhears all the same.
        for rule in rules {
            connection.bus.subscribe(rule, askingTheBus: false) { [weak self] message in self?.observe(message, daemon: daemon) }
        }
    }

    private func observe(_ message: DBusMessage, daemon: String?) {
        switch message.kind {
        case .methodCall where message.interface == Self.daemonName && message.member == "Notify":
            guard let caller = message.sender else { return }
            let body = message.body
            let replaces = body.count > 1 ? UInt32(clamping: body[1].integerValue ?? 0) : 0
            let text = { (index: Int) in body.count > index ? String((body[index].stringValue ?? "").prefix(4096)) : "" }
            var actions: [String] = []
            if body.count > 5, case .array(_, let words) = body[5] { actions = words.compactMap(\.stringValue) }
            pendingNotify["\(caller) \(message.serial)"] = PendingNotify(
                counts: counts(message), replaces: replaces, application: text(0), icon: text(2), summary: text(3), body: text(4),
                hasDefaultAction: stride(from: 0, to: actions.count, by: 2).contains { actions[$0] == "default" },
                time: SystemTime.realtime)
        case .methodReturn where daemon == nil || message.sender == daemon:
            // Our own questions' answers (dunst's counts) are not traffic.
            guard message.destination != query.bus.uniqueName else { return }
            // Watching every reply (no daemon yet): only a Notify's reply is the daemon's traffic.
            if daemon == nil, !(message.destination.flatMap { caller in message.replySerial.map { pendingNotify["\(caller) \($0)"] != nil } } ?? false) {
                return
            }
            if let caller = message.destination, let serial = message.replySerial,
               let call = pendingNotify.removeValue(forKey: "\(caller) \(serial)"),
               let id = message.body.first?.integerValue.map({ UInt32(clamping: $0) }) {
                if call.replaces != 0, shown[call.replaces] != nil {
                    shown[call.replaces] = nil  // replaced: the same notification, no change in count
                    shown[id] = call.item(id: id)
                } else if call.counts {
                    shown[id] = call.item(id: id)
                }
            }
            trafficPassed()
        case .signal where message.member == "NotificationClosed":
            // Only the daemon closes its notifications: anyone may send this signal, and a
            // stranger's would remove notifications that are still shown.
            guard let closer = daemon ?? owner, message.sender == closer else { return }
            if let id = message.body.first?.integerValue { shown[UInt32(clamping: id)] = nil }
            trafficPassed()
        case .methodCall:
            trafficPassed()  // CloseNotification, a dunstctl command: the count is read once answered
        default:
            break
        }
        if pendingNotify.count > 1024 { pendingNotify.removeAll() }  // callers that never got an answer
    }

    func trafficPassed() {
        if usesDunstCount { readDunst() } else { publishShown() }
    }

    func publishShown() {
        guard serverName != nil else { return }
        guard monitoring else {
            // Not yet watching: what the count is cannot be known.
            return fail(serverName.map { Sentence("waiting for the bus to let this badge watch %s's notifications", .text($0)) }
                ?? Sentence("waiting for the bus to let this badge watch the daemon's notifications"))
        }
        publish(SourceReading(content: .count(shown.count), said: describe(), updated: SystemTime.realtime,
                              items: shownItems(count: shown.count)))
    }

    /// Whether a Notify call counts: every one, or those of ``applications`` (by the
    /// `desktop-entry` hint, else the application name).
    private func counts(_ call: DBusMessage) -> Bool {
        guard !applications.isEmpty else { return true }
        let name = call.body.first?.stringValue ?? ""
        let hints = call.body.count > 6 ? call.body[6].stringKeyedEntries : nil
        let entry = hints?["desktop-entry"]?.stringValue ?? ""
        return applications.contains { $0 == entry || $0 == name || $0 == entry + ".desktop" }
    }
}
