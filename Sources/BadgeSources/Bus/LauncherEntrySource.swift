import BadgeCore
import BadgeIO

/// The badge hub: another application's unread count, as it broadcasts it for docks through
/// `com.canonical.Unity.LauncherEntry.Update` (Telegram, Thunderbird, Geary, Discord, Pidgin …).
///
/// Follows the count, its visibility and `urgent` of one desktop id, from any sender, as KDE's task
/// manager does: a visible count shows as a count, urgency without a visible count as a dot. When
/// the sender leaves the bus, its count is dropped (never a ghost count of a program that quit).
/// The API has no way to ask for the count, so until the application next broadcasts, the first
/// reading says so ("waiting for org.telegram.desktop"). Idle: no deadline, no wakeups.
/// Not Sendable: the loop's thread only.
public final class LauncherEntrySource: BadgeSource {
    /// The application followed ("org.telegram.desktop", without ".desktop").
    public let desktopID: String
    /// The URI its broadcasts carry ("application://org.telegram.desktop.desktop").
    public let applicationURI: String
    /// The application's name for people, in descriptions ("Telegram").
    public let displayName: String
    /// What the source says now.
    public private(set) var reading: SourceReading
    /// Called with each new reading.
    public var onChange: ((SourceReading) -> Void)?

    private let connection: BusSourceConnection
    private var started = false
    /// The unique name of the last sender, and what it said.
    private var sender: String?
    private var count: Int64 = 0
    private var countVisible = false
    private var urgent = false

    /// Follows `desktopID`'s broadcasts on the bus at `busAddress` (the session bus's
    /// `DBUS_SESSION_BUS_ADDRESS`); `displayName` names it in descriptions (default: the id).
    /// - Throws: ``SourceSetupError`` for an empty id or an unusable address.
    public init(desktopID: String, busAddress: String, displayName: String? = nil) throws(SourceSetupError) {
        let id = try Self.normalized(desktopID)
        self.desktopID = id
        applicationURI = "application://\(id).desktop"
        self.displayName = displayName ?? id
        connection = try BusSourceConnection(address: busAddress, label: "the session bus (launcher \(id))")
        reading = SourceReading(content: nil, description: "\(self.displayName) (launcher count)")
    }

    /// Listens on `bus`, a session-bus connection the application already polls.
    /// - Throws: ``SourceSetupError`` for an empty id.
    package init(desktopID: String, sharing bus: BusConnection, displayName: String? = nil) throws(SourceSetupError) {
        let id = try Self.normalized(desktopID)
        self.desktopID = id
        applicationURI = "application://\(id).desktop"
        self.displayName = displayName ?? id
        connection = BusSourceConnection(sharing: bus)
        reading = SourceReading(content: nil, description: "\(self.displayName) (launcher count)")
    }

    private static func normalized(_ desktopID: String) throws(SourceSetupError) -> String {
        var id = desktopID
        if id.hasSuffix(".desktop") { id.removeLast(".desktop".count) }
        guard !id.isEmpty, !id.contains("/") else { throw SourceSetupError("launcher source: \"\(desktopID.prefix(80))\" is not a desktop id") }
        return id
    }

    public func start() {
        guard !started else { return }
        started = true
        let bus = connection.bus
        bus.addMatch("type='signal',interface='com.canonical.Unity.LauncherEntry',member='Update'")
        bus.addMatch("type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged',arg2=''")
        bus.listen { [weak self] message in self?.receive(message) }
        bus.whenLost { [weak self] reason in self?.lost(reason) }
        bus.whenReady { [weak self] _ in self?.greeted() }
        // The first reading: nothing is known until the application broadcasts.
        publish(SourceReading(content: nil, description: waitingDescription))
    }

    public var descriptors: [Int32] { started ? connection.descriptors : [] }
    public func handle(readable descriptor: Int32) { connection.handleReadable() }
    public var timeUntilDue: Double? { started ? connection.timeUntilDue : nil }
    public func handleDeadline() { connection.handleDeadline() }

    /// The protocol has no query: a refresh re-reads nothing and keeps what was broadcast.
    public func refresh() {}

    public func stop() {
        started = false
        connection.close()
    }

    private var waitingDescription: String { "\(displayName) (launcher count): waiting for \(desktopID) to broadcast" }

    private func greeted() {
        guard reading.error != nil else { return }
        publish(SourceReading(content: reading.content, description: reading.content == nil ? waitingDescription : describe(),
                              updated: reading.updated))
    }

    private func lost(_ reason: String) {
        var stale = reading
        stale.error = "the session bus is away (\(reason))"
        stale.isStale = true
        publish(stale)
    }

    private func receive(_ message: DBusMessage) {
        if message.isSignal("com.canonical.Unity.LauncherEntry", "Update") {
            guard message.body.count == 2, message.body[0].stringValue == applicationURI,
                  let properties = message.body[1].stringKeyedEntries, let from = message.sender else { return }
            sender = from
            if let value = properties["count"]?.integerValue { count = max(0, value) }
            if let visible = properties["count-visible"]?.boolValue { countVisible = visible }
            if let flag = properties["urgent"]?.boolValue { urgent = flag }
            publish(SourceReading(content: content, description: describe(), updated: SourceClock.realtime))
        } else if message.isSignal("org.freedesktop.DBus", "NameOwnerChanged") {
            guard message.body.count == 3, let name = message.body[0].stringValue, name == sender,
                  message.body[2].stringValue == "" else { return }
            sender = nil
            count = 0
            countVisible = false
            urgent = false
            publish(SourceReading(content: BadgeContent.none, description: "\(displayName) (launcher count): \(desktopID) left the bus",
                                  updated: SourceClock.realtime))
        }
    }

    /// A visible count; urgency alone is a dot; otherwise nothing.
    private var content: BadgeContent {
        if countVisible && count > 0 { return .count(Int(clamping: count)) }
        return urgent ? .dot : .none
    }

    private func describe() -> String { "\(displayName) (launcher count)" }

    private func publish(_ new: SourceReading) {
        guard new != reading else { return }
        reading = new
        onChange?(new)
    }
}
