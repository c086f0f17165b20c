@testable import BadgeApp
import BadgeCore
import BadgeSources
import Testing

/// Marking read through a binding, without a server: the items leave the badge at once (the count
/// drops before the source answers), stay out of readings that come meanwhile, come back with the
/// reason when the source fails, and the source's next reading is its word after it marked them.
@Suite struct MarkReadBindingTests {
    final class Measurer: TextMeasuring {
        func size(of text: String, font: BadgeFont) -> Size { Size(width: Double(text.count) * 7, height: 12) }
    }

    /// A source whose reading and answer the test sets.
    final class StandIn: BadgeSource {
        var reading: SourceReading
        var onChange: ((SourceReading) -> Void)?
        var asked: [(keys: [String]?, done: (MarkReadOutcome) -> Void)] = []
        init(_ reading: SourceReading) { self.reading = reading }
        func start() { onChange?(reading) }
        var descriptors: [Int32] { [] }
        func handle(readable descriptor: Int32) {}
        var timeUntilDue: Double? { nil }
        func handleDeadline() {}
        func refresh() {}
        func stop() {}
        func markRead(_ keys: [String]?, done: @escaping (MarkReadOutcome) -> Void) { asked.append((keys, done)) }
        func say(_ next: SourceReading) {
            reading = next
            onChange?(next)
        }
    }

    static func reading(_ keys: [String], extra: Int = 0) -> SourceReading {
        let items = keys.enumerated().map { BadgeItem(key: $0.element, title: "m\($0.element)", time: Double(100 + $0.offset)) }
        return SourceReading(content: .count(keys.count + extra), description: "stand-in", updated: 1, items: BadgeItemList(items))
    }

    @Test("Optimistic: the count drops at once and stays down through readings until the source answers; a failure puts the item back with the reason")
    func optimisticAndFailure() throws {
        let mail = ToolbarButton(id: "mail", iconName: "mail", badge: BadgeController(accessibilityLabel: "Mail", content: .none,
                                                                                   clock: ManualClock(), measurer: Measurer()))
        let model = ToolbarModel(toolbar: Toolbar(buttons: [mail]))
        let bindings = try SourceBindings(model: model)
        var events: [String] = []
        bindings.onMarkRead = { id, keys, outcome in events.append("\(id) \(keys ?? ["all"]) \(String(describing: outcome))") }
        let source = StandIn(Self.reading(["1", "2", "3"], extra: 2))
        bindings.bind("mail", to: .notmuch(query: "tag:unread"), source: source)
        #expect(mail.badge.value == .count(5) && mail.badge.items.items.count == 3)
        #expect(bindings.markRead("mail", keys: ["2"]) == nil)
        #expect(mail.badge.value == .count(4), "down at once, before the source answers")
        #expect(mail.badge.items.item(forKey: "2") == nil)
        // A reading that comes meanwhile (a delivery) still leaves the item out.
        source.say(Self.reading(["1", "2", "3", "4"], extra: 2))
        #expect(mail.badge.value == .count(5) && mail.badge.items.item(forKey: "2") == nil && mail.badge.items.item(forKey: "4") != nil)
        // The source fails: the item comes back, and why is said.
        source.asked[0].done(.failed("the server said no"))
        #expect(mail.badge.value == .count(6) && mail.badge.items.item(forKey: "2") != nil)
        #expect(bindings.readFailure(of: "mail") == "the server said no")
        #expect(bindings.explanation(of: "mail")?.english.contains("not marked read 0 s ago: the server said no") == true, "\(bindings.explanation(of: "mail")?.english ?? "")")
        #expect(events == ["mail [\"2\"] nil", "mail [\"2\"] Optional(BadgeSources.MarkReadOutcome.failed(\"the server said no\"))"])
        // Mark all, marked: the items stay out until the source's next reading, which is its word.
        #expect(bindings.markRead("mail", keys: nil) == nil)
        // What the source counts without listing (IMAP's other folders) is not marked: it stays.
        #expect(mail.badge.value == .count(2) && mail.badge.items.items.isEmpty, "\(mail.badge.value)")
        #expect(bindings.readFailure(of: "mail") == nil, "a new request clears the old failure")
        source.asked[1].done(.marked)
        #expect(mail.badge.value == .count(2))
        source.say(Self.reading(["5"]))
        #expect(mail.badge.value == .count(1) && mail.badge.items.item(forKey: "5") != nil, "the source's word after it marked")
        // An item the badge does not list is refused, nothing asked.
        #expect(bindings.markRead("mail", keys: ["nope"])?.english == "mail has no item \"nope\"")
        #expect(source.asked.count == 2)
    }
}
