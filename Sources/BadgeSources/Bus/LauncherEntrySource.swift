import BadgeCore
import BadgeIO

/// The badge hub: another application's unread count, as it broadcasts it for docks through
/// `com.canonical.Unity.LauncherEntry.Update` (Telegram, Thunderbird, Geary, Discord, Pidgin …).
///
/// Follows the count, its visibility and `urgent` of one desktop id, as KDE's task manager does: a
/// visible count shows as a count, urgency without a visible count as a dot.
///
/// Each sender owns what it said: the broadcasts are kept by sender, the one that spoke last shows
/// (Windows' overlay icons stack the same way), and a sender that leaves the bus takes only its own
/// word with it, so the one before shows again (never a ghost count of a program that quit, and a
/// stranger's empty `Update` followed by its exit never clears the real application's count). The
/// application's own broadcasts are never followed: those of its own bus connection, and every one
/// for ``ownDesktopID`` (its dock count holds its total, and following it would count itself up
/// without end, as two profiles following each other would).
/// The API has no way to ask for the count, so until the application next broadcasts, the first
/// reading says so ("waiting for org.telegram.desktop"). Idle: no deadline, no wakeups.
/// Not Sendable: the loop's thread only.
public final class LauncherEntrySource: BadgeSource {
    /// The application followed, as its likeliest desktop file id ("org.telegram.desktop").
    public var desktopID: String { followed.id }
    /// The URI its broadcasts carry ("application://org.telegram.desktop.desktop"), for the likeliest id.
    public var applicationURI: String { followed.uris[0] }
    /// Every URI taken as this application's: one per id that what was given may mean
    /// (``DesktopFileID``; "org.telegram.desktop" may also be the file name of "org.telegram").
    public var applicationURIs: [String] { followed.uris }
    /// The application's name for people, in descriptions ("Telegram").
    public let displayName: String
    /// What the source says now.
    public private(set) var reading: SourceReading
    /// Called with each new reading.
    public var onChange: ((SourceReading) -> Void)?
    /// The desktop id of the application this source runs in ("badge-demo"): broadcasts for it are
    /// the application's own dock count, never followed. A source made for that very id stays
    /// waiting and says why. Set it before ``start()``.
    public var ownDesktopID: String?

    private let connection: BusSourceConnection
    private let followed: DesktopFileID
    private var started = false
    /// What one sender said last.
    private struct Word: Equatable {
        var count: Int64 = 0
        var countVisible = false
        var urgent = false
    }
    /// Each sender's word by unique name, in the order they last spoke (the last one shows).
    private var words: [(sender: String, word: Word)] = []
    /// At most this many senders are remembered (the oldest goes first).
    static let sendersLimit = 64
    /// Each remembered sender's owner watch: only the senders that said something are followed
    /// off the bus, never every peer that leaves.
    private var departures: [String: BusSubscription] = [:]
    /// The sender of a count restored from the last session (``resume(from:)``), until it speaks or leaves.
    private var resumed: String?

    /// Follows `desktopID`'s broadcasts on the bus at `busAddress` (the session bus's
    /// `DBUS_SESSION_BUS_ADDRESS`); `displayName` names it in descriptions (default: the id).
    /// `desktopID` is any form ``DesktopFileID`` reads: "org.telegram.desktop",
    /// "org.telegram.desktop.desktop" or "application://org.telegram.desktop.desktop".
    /// - Throws: ``SourceSetupError`` for an empty id or an unusable address.
    public init(desktopID: String, busAddress: String, displayName: String? = nil) throws(SourceSetupError) {
        let id = try Self.parsed(desktopID)
        followed = id
        self.displayName = displayName ?? id.id
        connection = try BusSourceConnection(address: busAddress, label: "the session bus (launcher \(id))")
        reading = SourceReading(content: nil, said: Sentence("%s (launcher count)", .text(self.displayName)))
    }

    /// Listens on `bus`, a session-bus connection the application already polls.
    /// - Throws: ``SourceSetupError`` for an empty id.
    package init(desktopID: String, sharing bus: BusConnection, displayName: String? = nil) throws(SourceSetupError) {
        let id = try Self.parsed(desktopID)
        followed = id
        self.displayName = displayName ?? id.id
        connection = BusSourceConnection(sharing: bus)
        reading = SourceReading(content: nil, said: Sentence("%s (launcher count)", .text(self.displayName)))
    }

    private static func parsed(_ desktopID: String) throws(SourceSetupError) -> DesktopFileID {
        guard let id = DesktopFileID(desktopID) else {
            throw SourceSetupError("launcher source: \(InputEcho.quoted(desktopID, limit: 80)) is not a desktop id")
        }
        return id
    }

    public func start() {
        guard !started else { return }
        started = true
        let bus = connection.bus
        bus.subscribe(.signal("com.canonical.Unity.LauncherEntry", "Update")) { [weak self] message in self?.receive(message) }
        bus.whenLost { [weak self] reason in self?.lost(reason) }
        bus.whenReady { [weak self] _ in self?.greeted() }
        // The first reading: nothing is known until the application broadcasts.
        publish(SourceReading(content: nil, said: followsItself ? selfDescription : waitingDescription))
    }

    private var followsItself: Bool {
        guard let own = ownDesktopID.flatMap(DesktopFileID.init) else { return false }
        return !Set(own.candidates).isDisjoint(with: followed.candidates)
    }

    private var selfDescription: Sentence {
        Sentence("%1$s (launcher count): %2$s is this application's own id; its broadcasts hold this application's own total, and are not followed",
                 .text(displayName), .text(desktopID))
    }

    public var descriptors: [Int32] { started ? connection.descriptors : [] }
    public func handle(readable descriptor: Int32) { connection.handleReadable() }
    public var timeUntilDue: Double? { started ? connection.timeUntilDue : nil }
    public func handleDeadline() { connection.handleDeadline() }

    /// The unique bus name of the sender whose word shows (to save with the count), if any.
    public var shownSender: String? { words.last?.sender ?? resumed }

    /// The count shown was restored from the last session, and `sender` (a unique bus name) said
    /// it: that connection is followed, and once it is found gone (now, or when it leaves) the
    /// count goes, never a ghost of an application that quit. While it is there, the count stays
    /// unconfirmed until the application broadcasts again. Call it after ``start()``.
    public func resume(from sender: String) {
        guard started, sender.hasPrefix(":"), words.isEmpty, departures[sender] == nil else { return }
        resumed = sender
        departures[sender] = connection.bus.watchOwner(of: sender) { [weak self] owner in
            if owner == nil { self?.left(sender) }
        }
    }

    /// The protocol has no query: a refresh re-reads nothing and keeps what was broadcast.
    public func refresh() {}

    public func stop() {
        started = false
        for watch in departures.values { watch.cancel() }
        departures.removeAll()
        connection.close()
    }

    private var waitingDescription: Sentence {
        Sentence("%1$s (launcher count): waiting for %2$s to broadcast", .text(displayName), .text(desktopID))
    }

    private func greeted() {
        guard reading.error != nil, !followsItself else { return }
        publish(SourceReading(content: reading.content, said: reading.content == nil ? waitingDescription : describe(),
                              updated: reading.updated))
    }

    private func lost(_ reason: String) {
        var stale = reading
        stale.fail(Sentence("the session bus is away (%s)", .text(reason)))
        stale.isStale = true
        publish(stale)
    }

    private func receive(_ message: DBusMessage) {
        guard !followsItself, message.body.count == 2, let uri = message.body[0].stringValue, applicationURIs.contains(uri),
              let properties = message.body[1].stringKeyedEntries, let from = message.sender,
              from != connection.bus.uniqueName else { return }
        let known = words.first { $0.sender == from }?.word
        // A new sender that says nothing (an empty `Update`) has no word to show.
        guard known != nil || ["count", "count-visible", "urgent"].contains(where: { properties[$0] != nil }) else { return }
        var word = known ?? Word()
        if let value = properties["count"]?.integerValue { word.count = max(0, value) }
        if let visible = properties["count-visible"]?.boolValue { word.countVisible = visible }
        if let flag = properties["urgent"]?.boolValue { word.urgent = flag }
        words.removeAll { $0.sender == from }
        words.append((from, word))
        resumed = nil
        if departures[from] == nil {
            departures[from] = connection.bus.watchOwner(of: from) { [weak self] owner in
                if owner == nil { self?.left(from) }
            }
        }
        if words.count > Self.sendersLimit {
            for old in words.prefix(words.count - Self.sendersLimit) { departures.removeValue(forKey: old.sender)?.cancel() }
            words.removeFirst(words.count - Self.sendersLimit)
        }
        publish(SourceReading(content: content, said: describe(), updated: SystemTime.realtime))
    }

    /// `name`, which said something, left the bus: its word goes with it.
    private func left(_ name: String) {
        departures.removeValue(forKey: name)?.cancel()
        if resumed == name, words.isEmpty {
            resumed = nil
            publish(SourceReading(content: BadgeContent.none, said: Sentence("%1$s (launcher count): %2$s left the bus", .text(displayName), .text(desktopID)),
                                  updated: SystemTime.realtime))
            return
        }
        guard let index = words.firstIndex(where: { $0.sender == name }) else { return }
        let wasShown = index == words.count - 1
        words.remove(at: index)
        guard wasShown else { return }  // an earlier sender's word was not on show: nothing changes
        if words.isEmpty {
            publish(SourceReading(content: BadgeContent.none, said: Sentence("%1$s (launcher count): %2$s left the bus", .text(displayName), .text(desktopID)),
                                  updated: SystemTime.realtime))
        } else {
            publish(SourceReading(content: content, said: describe(), updated: SystemTime.realtime))
        }
    }

    /// The last sender's word: a visible count; urgency alone is a dot; otherwise nothing.
    private var content: BadgeContent {
        guard let word = words.last?.word else { return .none }
        if word.countVisible && word.count > 0 { return .count(Int(clamping: word.count)) }
        return word.urgent ? .dot : .none
    }

    private func describe() -> Sentence { Sentence("%s (launcher count)", .text(displayName)) }

    private func publish(_ new: SourceReading) {
        guard new != reading else { return }
        reading = new
        onChange?(new)
    }
}
