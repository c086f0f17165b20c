import BadgeCore
import BadgeIO

/// Every application's dock count at once (`{"launcher": "*"}`): the sum of the visible counts
/// broadcast through `com.canonical.Unity.LauncherEntry.Update`, and one item per application
/// with its name and icon from its desktop file, its count, and the action to raise or launch it.
///
/// Each (sender, application) owns what it said, as ``LauncherEntrySource``'s senders do: a sender
/// that leaves the bus takes its applications' counts with it. The application's own broadcasts
/// (its bus connection's, and those for ``ownDesktopID``) are never counted. At most
/// ``applicationsLimit`` applications are remembered. Idle: no deadline, no wakeups. Not Sendable:
/// the loop's thread only.
public final class LauncherHubSource: BadgeSource {
    /// What the source says now.
    public private(set) var reading: SourceReading
    /// Called with each new reading.
    public var onChange: ((SourceReading) -> Void)?
    /// The desktop id of the application this source runs in: never counted.
    public var ownDesktopID: String?
    /// At most this many applications are remembered (the one quiet longest goes first).
    public static let applicationsLimit = 64

    private let connection: BusSourceConnection
    private let finder: DesktopEntryFinder
    private var started = false
    /// One application's word: who said it, the desktop id, and what.
    private struct Word {
        var sender: String
        var desktopID: String
        var count: Int64 = 0
        var countVisible = false
        var urgent = false
        var time: Double
    }
    private var words: [Word] = []
    /// Each sender's owner watch (only those that said something are followed off the bus).
    private var departures: [String: BusSubscription] = [:]
    /// Desktop files read once per id (nil: none found).
    private var entries: [String: DesktopEntry?] = [:]

    /// Follows every broadcast on the bus at `busAddress`.
    public init(busAddress: String, finder: DesktopEntryFinder = DesktopEntryFinder()) throws(SourceSetupError) {
        connection = try BusSourceConnection(address: busAddress, label: "the session bus (launcher counts)")
        self.finder = finder
        reading = SourceReading(content: nil, said: Self.description)
    }

    /// Listens on `bus`, a session-bus connection the application already polls.
    package init(sharing bus: BusConnection, finder: DesktopEntryFinder = DesktopEntryFinder()) {
        connection = BusSourceConnection(sharing: bus)
        self.finder = finder
        reading = SourceReading(content: nil, said: Self.description)
    }

    static let description = Sentence("every application's launcher count")

    public func start() {
        guard !started else { return }
        started = true
        let bus = connection.bus
        bus.subscribe(.signal("com.canonical.Unity.LauncherEntry", "Update")) { [weak self] message in self?.receive(message) }
        bus.whenLost { [weak self] reason in
            guard let self else { return }
            var stale = self.reading
            stale.fail(Sentence("the session bus is away (%s)", .text(reason)))
            stale.isStale = true
            self.publish(stale)
        }
        // Nothing to ask: 0 until an application broadcasts, and current.
        publish(SourceReading(content: .count(0), said: Self.description, updated: SystemTime.realtime, items: BadgeItemList()))
    }

    public var descriptors: [Int32] { started ? connection.descriptors : [] }
    public func handle(readable descriptor: Int32) { connection.handleReadable() }
    public var timeUntilDue: Double? { started ? connection.timeUntilDue : nil }
    public func handleDeadline() { connection.handleDeadline() }
    /// The protocol has no query: nothing to read again.
    public func refresh() {}
    public func stop() {
        started = false
        for watch in departures.values { watch.cancel() }
        departures.removeAll()
        connection.close()
    }

    private func receive(_ message: DBusMessage) {
        guard message.body.count == 2, let uri = message.body[0].stringValue, let id = DesktopFileID(uri)?.id,
              let properties = message.body[1].stringKeyedEntries, let from = message.sender,
              from != connection.bus.uniqueName, !isOwn(id) else { return }
        let index = words.firstIndex { $0.sender == from && $0.desktopID == id }
        guard index != nil || ["count", "count-visible", "urgent"].contains(where: { properties[$0] != nil }) else { return }
        var word = index.map { words[$0] } ?? Word(sender: from, desktopID: id, time: SystemTime.realtime)
        if let value = properties["count"]?.integerValue { word.count = max(0, value) }
        if let visible = properties["count-visible"]?.boolValue { word.countVisible = visible }
        if let flag = properties["urgent"]?.boolValue { word.urgent = flag }
        word.time = SystemTime.realtime
        if let index { words.remove(at: index) }
        words.append(word)
        if words.count > Self.applicationsLimit { words.removeFirst(words.count - Self.applicationsLimit) }
        if departures[from] == nil {
            departures[from] = connection.bus.watchOwner(of: from) { [weak self] owner in
                if owner == nil { self?.left(from) }
            }
        }
        for (sender, watch) in departures where !words.contains(where: { $0.sender == sender }) {
            watch.cancel()
            departures[sender] = nil
        }
        publishWords()
    }

    /// `name`, which said something, left the bus: its applications' counts go with it.
    private func left(_ name: String) {
        departures.removeValue(forKey: name)?.cancel()
        guard words.contains(where: { $0.sender == name }) else { return }
        words.removeAll { $0.sender == name }
        publishWords()
    }

    private func isOwn(_ id: String) -> Bool {
        guard let own = ownDesktopID.flatMap(DesktopFileID.init), let other = DesktopFileID(id) else { return false }
        return !Set(own.candidates).isDisjoint(with: other.candidates)
    }

    /// The sum of the visible counts, and an item per application that shows one (or is urgent),
    /// the last word per application winning.
    private func publishWords() {
        var latest: [String: Word] = [:]
        for word in words { latest[word.desktopID] = word }
        var items: [BadgeItem] = []
        var total = 0
        for word in latest.values where (word.countVisible && word.count > 0) || word.urgent {
            let count = word.countVisible ? Int(clamping: word.count) : 0
            total = total.addingReportingOverflow(count).overflow ? Int.max : total + count
            let entry = desktopEntry(word.desktopID)
            let detail = count > 0 ? "\(count) unread" : "asks for attention"
            items.append(BadgeItem(key: word.desktopID, title: entry?.name ?? word.desktopID, detail: detail, time: word.time,
                                   origin: word.desktopID, iconName: entry?.icon, action: .launch(desktopID: word.desktopID)))
        }
        let content: BadgeContent = total > 0 ? .count(total) : (items.isEmpty ? .count(0) : .dot)
        publish(SourceReading(content: content, said: Self.description, updated: SystemTime.realtime,
                              items: BadgeItemList(items)))
    }

    private func desktopEntry(_ id: String) -> DesktopEntry? {
        if let known = entries[id] { return known }
        let found = try? finder.entry(forID: id)
        if entries.count > Self.applicationsLimit * 2 { entries.removeAll() }
        entries[id] = .some(found)
        return found
    }

    private func publish(_ new: SourceReading) {
        guard new != reading else { return }
        reading = new
        onChange?(new)
    }
}
