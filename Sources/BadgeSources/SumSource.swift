import BadgeCore

/// Several sources on one badge (a work and a personal mail account): their counts summed, each
/// part with its own connection, state and reason.
///
/// - The count is the sum of the parts' counts; a part without one yet adds nothing.
/// - The reading is stale when any part is (or has no reading yet), and its error names each part
///   that has one ("work: imap.example.org did not answer…"); the description names every part.
/// - The items are all the parts' items, newest first: each key is the part's number and its own
///   key (`2:42`), each detail starts with the part's name ("work · Lunch?"), so the peek says
///   which account a message is in, and marking read goes to the part that owns it.
///
/// Not Sendable: create and use it on the loop's thread.
public final class SumSource: BadgeSource {
    /// One part: a name for people ("work", "me@example.org") and its source.
    public struct Part {
        /// What people call it.
        public var name: String
        /// The source.
        public var source: any BadgeSource

        /// A part named `name`.
        public init(name: String, source: any BadgeSource) {
            self.name = name
            self.source = source
        }
    }

    /// The parts, in order.
    public let parts: [Part]
    /// What the source says now.
    public private(set) var reading: SourceReading
    /// Called whenever ``reading`` changes.
    public var onChange: ((SourceReading) -> Void)?

    /// A source summing `parts`.
    public init(parts: [Part]) {
        self.parts = parts
        reading = SourceReading(description: parts.map(\.name).joined(separator: " + "))
        for (index, part) in parts.enumerated() {
            part.source.onChange = { [weak self] _ in self?.combine(changed: index) }
        }
    }

    /// Starts every part.
    public func start() {
        for part in parts { part.source.start() }
        combine(changed: nil)
    }

    /// Every part's descriptors.
    public var descriptors: [Int32] { parts.flatMap(\.source.descriptors) }
    /// Every part's descriptors waiting to write.
    public var writableDescriptors: [Int32] { parts.flatMap(\.source.writableDescriptors) }

    /// Hands `descriptor` to the part that watches it.
    public func handle(readable descriptor: Int32) {
        parts.first { $0.source.descriptors.contains(descriptor) }?.source.handle(readable: descriptor)
    }

    /// Hands `descriptor` to the part that writes on it.
    public func handle(writable descriptor: Int32) {
        parts.first { $0.source.writableDescriptors.contains(descriptor) }?.source.handle(writable: descriptor)
    }

    /// The earliest part's deadline.
    public var timeUntilDue: Double? { parts.compactMap(\.source.timeUntilDue).min() }

    /// Gives each due part its turn.
    public func handleDeadline() {
        for part in parts {
            if let due = part.source.timeUntilDue, due <= 0 { part.source.handleDeadline() }
        }
    }

    /// Reads every part again.
    public func refresh() {
        for part in parts { part.source.refresh() }
    }

    /// Stops every part.
    public func stop() {
        for part in parts { part.source.stop() }
    }

    /// Marks the items read through the parts that own them (keys `N:KEY`; nil: every part's
    /// counted items); `done` once every part asked has answered, failed when any failed (naming it).
    public func markRead(_ keys: [String]?, done: @escaping (MarkReadOutcome) -> Void) {
        var asked: [(index: Int, keys: [String]?)] = []
        if let keys {
            var byPart: [Int: [String]] = [:]
            for key in keys {
                guard let (index, own) = Self.split(key), parts.indices.contains(index) else {
                    return done(.failed("no item \(key.prefix(80)) in \(reading.description)"))
                }
                byPart[index, default: []].append(own)
            }
            asked = byPart.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        } else {
            asked = parts.indices.map { ($0, nil) }
        }
        var waiting = asked.count
        var failures: [String] = []
        guard waiting > 0 else { return done(.marked) }
        for (index, own) in asked {
            let name = parts[index].name
            parts[index].source.markRead(own) { outcome in
                if case .failed(let reason) = outcome { failures.append("\(name): \(reason)") }
                waiting -= 1
                if waiting == 0 { done(failures.isEmpty ? .marked : .failed(failures.joined(separator: "; "))) }
            }
        }
    }

    /// `2:42` as part index 1 and key `42`.
    static func split(_ key: String) -> (Int, String)? {
        guard let colon = key.firstIndex(of: ":"), let number = Int(key[..<colon]), number >= 1 else { return nil }
        return (number - 1, String(key[key.index(after: colon)...]))
    }

    /// The parts' readings as one.
    private func combine(changed: Int?) {
        var total = 0
        var counted = false
        var stale = false
        var problems: [Sentence] = []
        var items: [BadgeItem] = []
        var unlisted = 0
        var listsItems = false
        var updated: Double?
        for (index, part) in parts.enumerated() {
            let own = part.source.reading
            if case .count(let value)? = own.content {
                total &+= value
                counted = true
            }
            if own.content == nil || own.isStale { stale = true }
            if let error = own.errorToSay {
                problems.append(Sentence("%1$s: %2$s", .text(part.name), .sentence(error)))
            } else if own.content == nil {
                problems.append(Sentence("%s: no reading yet", .text(part.name)))
            }
            if let list = own.items {
                listsItems = true
                unlisted += list.unlisted
                for item in list.items {
                    items.append(BadgeItem(key: "\(index + 1):\(item.key)", title: item.title,
                                           detail: [part.name, item.detail].compactMap { $0 }.joined(separator: " · "), time: item.time,
                                           origin: part.name, iconName: item.iconName, action: item.action,
                                           isDismissable: item.isDismissable, accessibleDescription: item.accessibleDescription))
                }
            }
            if let time = own.updated { updated = max(updated ?? time, time) }
        }
        var next = reading
        let described = parts.map { part in
            let own = part.source.reading
            return own.isStale || own.content == nil
                ? Sentence("%1$s (%2$s, not up to date)", .text(part.name), .sentence(own.descriptionToSay))
                : Sentence("%1$s (%2$s)", .text(part.name), .sentence(own.descriptionToSay))
        }
        let description = described.dropFirst().reduce(described.first ?? Sentence(verbatim: "")) { Sentence("%1$s; %2$s", .sentence($0), .sentence($1)) }
        next.description = description.english
        next.descriptionSentence = description
        next.content = counted ? .count(total) : reading.content
        next.isStale = stale
        next.isPartlyStale = stale && parts.contains { !$0.source.reading.isStale && $0.source.reading.content != nil }
        if let first = problems.first {
            next.fail(problems.dropFirst().reduce(first) { Sentence("%1$s; %2$s", .sentence($0), .sentence($1)) })
        } else {
            next.error = nil
        }
        next.updated = updated
        if listsItems {
            // Newest first by time; the same time keeps each part's own order (newest first), part by part.
            let timed = items.enumerated().sorted { a, b in
                let (x, y) = (a.element.time ?? 0, b.element.time ?? 0)
                return x != y ? x > y : a.offset < b.offset
            }.map(\.element)
            next.items = BadgeItemList(newestFirst: timed, unlisted: unlisted)
        } else {
            next.items = nil
        }
        guard next != reading else { return }
        reading = next
        onChange?(next)
    }
}
