import BadgeCore
import BadgeIO

/// The notifications waiting for the user in the notification daemon: displayed plus waiting, not
/// the history.
///
/// Two drivers, chosen by asking the daemon who it is (`GetServerInformation`):
/// - **dunst**: its own count (`displayedLength` + `waitingLength` of `org.dunstproject.cmd0`) and
///   its `paused` state as Do Not Disturb. dunst 1.9 announces only `paused` with
///   PropertiesChanged, so the count is read again whenever notification traffic passes: a
///   `Notify` answered, a `CloseNotification`, a `NotificationClosed`, a `dunstctl` command.
/// - **any other daemon**: the notifications shown since the source started, followed through a
///   monitor connection (`BecomeMonitor`): each `Notify` paired with its reply's id, a
///   `replaces_id` that is still shown counted as no change, `NotificationClosed` removing the id.
///
/// With ``applications``, only notifications whose `desktop-entry` hint (or application name)
/// is one of them count; with dunst that uses the monitor's count too. Idle, with no bus traffic:
/// no deadline, no wakeups. Not Sendable: the loop's thread only.
public final class NotificationSource: BadgeSource {
    /// The daemon's well-known name.
    static let daemonName = "org.freedesktop.Notifications"
    static let daemonPath = "/org/freedesktop/Notifications"
    static let dunstInterface = "org.dunstproject.cmd0"

    /// The applications counted (desktop ids or application names); empty: all.
    public let applications: [String]
    /// What the source says now.
    public private(set) var reading: SourceReading
    /// Called with each new reading.
    public var onChange: ((SourceReading) -> Void)?
    /// The daemon's Do Not Disturb (dunst's `paused`); false for daemons that do not say.
    public private(set) var doNotDisturb = false
    /// Called when ``doNotDisturb`` changes.
    public var onDoNotDisturbChange: ((Bool) -> Void)?
    /// The daemon's name ("dunst", "Notification Daemon"), once known; nil while none is on the bus.
    public internal(set) var serverName: String?

    let address: String
    let query: BusSourceConnection
    var monitor: BusSourceConnection?
    /// The daemon the monitor's rules name (nil: any, while no daemon is on the bus, so a daemon
    /// that appears later, or is started by D-Bus activation, is watched from its first notification).
    var monitorDaemon: String?
    /// The monitor being replaced: it keeps watching until the new one monitors, so nothing passes unseen.
    var standby: BusSourceConnection?
    private var started = false
    /// The daemon's unique name on the bus.
    var owner: String?
    /// Shown notification ids (the monitor's count), and calls to Notify waiting for their reply:
    /// by (caller, serial), whether it counts and the id it replaces.
    /// Each shown notification's item (summary, body, application, time), by id.
    var shown: [UInt32: BadgeItem] = [:]
    var pendingNotify: [String: PendingNotify] = [:]

    /// A `Notify` call waiting for its reply (the id): whether it counts, the id it replaces, and
    /// what it says, for its item.
    struct PendingNotify {
        var counts: Bool
        var replaces: UInt32
        var application: String
        var icon: String
        var summary: String
        var body: String
        var hasDefaultAction: Bool
        var time: Double

        /// The notification's item, once the daemon gave its id.
        func item(id: UInt32) -> BadgeItem {
            BadgeItem(key: String(id), title: summary.isEmpty ? application : summary,
                      detail: NotificationMarkup.plainText(body), time: time, origin: application.isEmpty ? nil : application,
                      iconName: icon.isEmpty ? nil : icon, action: .notification(id: id, hasDefaultAction: hasDefaultAction),
                      isDismissable: true)
        }
    }

    /// The shown notifications as items, newest first; with dunst's own count, what it counts
    /// beyond them (shown before the badge started) is unlisted ("4 earlier").
    func shownItems(count: Int) -> BadgeItemList {
        var list = BadgeItemList(Array(shown.values))
        list.setUnlisted(max(0, count - list.items.count))
        return list
    }

    /// Closes notification `id` in the daemon (`CloseNotification`), as a click on it would; its
    /// `NotificationClosed` then removes it from the count.
    public func close(notification id: UInt32) {
        guard let owner else { return }
        query.bus.call(owner, path: Self.daemonPath, interface: Self.daemonName, member: "CloseNotification",
                       arguments: [.uint32(id)]) { _ in }
    }
    private var dunstCount: Int?
    /// True once the monitor connection monitors (`BecomeMonitor` answered): before that, the
    /// generic driver cannot know the count, and says so rather than a current 0.
    var monitoring = false
    private var queryInFlight = false
    private var queryAgain = false

    /// Follows the daemon on the bus at `busAddress` (the session bus); `applications` limits the
    /// count to those applications.
    /// - Throws: ``SourceSetupError`` for an unusable address.
    public init(busAddress: String, applications: [String] = []) throws(SourceSetupError) {
        address = busAddress
        self.applications = applications
        query = try BusSourceConnection(address: busAddress, label: "the session bus (notifications)")
        reading = SourceReading(content: nil, said: Sentence("notifications"))
    }

    /// Asks its questions on `bus`, a session-bus connection the application already polls (the
    /// monitor, which may send nothing, is a connection of its own to `busAddress`).
    package init(sharing bus: BusConnection, busAddress: String, applications: [String] = []) {
        address = busAddress
        self.applications = applications
        query = BusSourceConnection(sharing: bus)
        reading = SourceReading(content: nil, said: Sentence("notifications"))
    }

    public func start() {
        guard !started else { return }
        started = true
        let bus = query.bus
        // Only the daemon's name is followed, and only its own property changes are heard: on a
        // shared connection, other subscribers' traffic never reaches this source.
        bus.watchOwner(of: Self.daemonName) { [weak self] owner in self?.daemonOwner(owner) }
        bus.subscribe(.signal("org.freedesktop.DBus.Properties", "PropertiesChanged", sender: Self.daemonName, path: Self.daemonPath,
                              arguments: [0: Self.dunstInterface])) { [weak self] message in self?.propertiesChanged(message) }
        bus.whenLost { [weak self] reason in self?.fail(Sentence("the session bus is away (%s)", .text(reason))) }
        publish(SourceReading(content: nil, said: Sentence("notifications: looking for the notification daemon")))
    }

    public var descriptors: [Int32] {
        guard started else { return [] }
        return query.descriptors + (monitor?.descriptors ?? []) + (standby?.descriptors ?? [])
    }

    public func handle(readable descriptor: Int32) {
        if query.descriptors.contains(descriptor) { query.handleReadable() }
        if let monitor, monitor.descriptors.contains(descriptor) { monitor.handleReadable() }
        if let standby, standby.descriptors.contains(descriptor) { standby.handleReadable() }
    }

    public var timeUntilDue: Double? {
        guard started else { return nil }
        let times = [query.timeUntilDue, monitor?.timeUntilDue, standby?.timeUntilDue].compactMap { $0 }
        return times.min()
    }

    public func handleDeadline() {
        query.handleDeadline()
        monitor?.handleDeadline()
        standby?.handleDeadline()
    }

    public func refresh() {
        if usesDunstCount { readDunst() } else { findDaemon() }
    }

    public func stop() {
        started = false
        monitor?.close()
        monitor = nil
        standby?.close()
        standby = nil
        query.close()
    }

    // MARK: The daemon

    var usesDunstCount: Bool { serverName == "dunst" && applications.isEmpty }

    private func findDaemon() {
        query.bus.call("org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                       member: "GetNameOwner", arguments: [.string(Self.daemonName)]) { [weak self] values in
            self?.daemonOwner(values?.first?.stringValue)
        }
    }

    /// The daemon's name has `name` as its owner now (nil: none).
    private func daemonOwner(_ name: String?) {
        guard let name, !name.isEmpty else { return noDaemon() }
        owner = name
        query.bus.call(name, path: Self.daemonPath, interface: Self.daemonName, member: "GetServerInformation") { [weak self] info in
            guard let self, self.owner == name else { return }
            self.serverName = info?.first?.stringValue ?? "an unnamed daemon"
            self.watchTraffic(of: name)
            if self.usesDunstCount { self.readDunst() } else { self.publishShown() }
            self.readPaused()
        }
    }

    /// The error while no daemon is on the bus and the monitor waits for one.
    static let noDaemonWatching = Sentence("no notification daemon on the session bus (watching for one: its first notification will count)")

    private func noDaemon() {
        owner = nil
        serverName = nil
        // The daemon's notifications went with it; the next one is watched for from now on.
        shown.removeAll()
        pendingNotify.removeAll()
        watchTraffic(of: nil)
        setDoNotDisturb(false)
        var none = SourceReading(content: reading.content, said: Sentence("notifications"), updated: reading.updated,
                                 error: Sentence("no notification daemon on the session bus"), isStale: true, isAbsent: true)
        if reading.content == nil { none.content = nil }
        publish(none)
    }

    func fail(_ error: Sentence) {
        var stale = reading
        stale.fail(error)
        stale.isStale = true
        publish(stale)
    }

    func readDunst() {
        guard let owner else { return }
        if queryInFlight {
            queryAgain = true
            return
        }
        queryInFlight = true
        query.bus.call(owner, path: Self.daemonPath, interface: "org.freedesktop.DBus.Properties", member: "GetAll",
                       arguments: [.string(Self.dunstInterface)]) { [weak self] values in
            guard let self else { return }
            self.queryInFlight = false
            if let entries = values?.first?.stringKeyedEntries {
                let displayed = entries["displayedLength"]?.integerValue ?? 0
                let waiting = entries["waitingLength"]?.integerValue ?? 0
                self.dunstCount = Int(clamping: max(0, displayed) + max(0, waiting))
                if let paused = entries["paused"]?.boolValue { self.setDoNotDisturb(paused) }
                let count = self.dunstCount ?? 0
                self.publish(SourceReading(content: .count(count), said: self.describe(),
                                           updated: SystemTime.realtime, items: self.shownItems(count: count)))
            } else {
                self.fail(Sentence("dunst did not answer with its counts"))
            }
            if self.queryAgain {
                self.queryAgain = false
                self.readDunst()
            }
        }
    }

    private func readPaused() {
        guard let owner, serverName == "dunst" else { return }
        query.bus.call(owner, path: Self.daemonPath, interface: "org.freedesktop.DBus.Properties", member: "Get",
                       arguments: [.string(Self.dunstInterface), .string("paused")]) { [weak self] values in
            if let paused = values?.first?.boolValue { self?.setDoNotDisturb(paused) }
        }
    }

    private func setDoNotDisturb(_ on: Bool) {
        guard on != doNotDisturb else { return }
        doNotDisturb = on
        onDoNotDisturbChange?(on)
        if serverName != nil { publish(SourceReading(content: reading.content, said: describe(), updated: reading.updated)) }
    }

    func describe() -> Sentence {
        let daemon = serverName.map { Sentence(verbatim: $0) } ?? Sentence("the notification daemon")
        let which = applications.isEmpty ? Sentence("notifications")
            : Sentence("notifications of %s", .text(applications.joined(separator: ", ")))
        let said = usesDunstCount ? Sentence("%1$s in %2$s", .sentence(which), .sentence(daemon))
            : Sentence("%1$s in %2$s since the badge started", .sentence(which), .sentence(daemon))
        return doNotDisturb ? Sentence("%s (do not disturb)", .sentence(said)) : said
    }

    /// dunst's `PropertiesChanged` (the subscription takes only the daemon's own, for its interface).
    private func propertiesChanged(_ message: DBusMessage) {
        guard message.sender == owner, let changed = message.body.count > 1 ? message.body[1].stringKeyedEntries : nil else { return }
        if let paused = changed["paused"]?.boolValue { setDoNotDisturb(paused) }
        if changed["displayedLength"] != nil || changed["waitingLength"] != nil, usesDunstCount { readDunst() }
    }

    func publish(_ new: SourceReading) {
        guard new != reading else { return }
        reading = new
        onChange?(new)
    }
}
