import Testing
@testable import BadgeCore

/// Items behind a count: keyed, newest first, bounded, and the one list the controller owns.
@Suite struct BadgeItemTests {
    @Test("A key already there is replaced, never counted twice: 1,000 adds over 100 keys give 100 items")
    func keysReplace() {
        var list = BadgeItemList()
        for index in 0..<1000 {
            list.insert(BadgeItem(key: "k\(index % 100)", title: "item \(index)", time: Double(index)))
        }
        #expect(list.items.count == 100)
        #expect(list.count == 100)
        #expect(list.unlisted == 0)
        // The newest add of each key is the one kept, and the list is newest first.
        #expect(list.items.first?.title == "item 999")
        #expect(list.item(forKey: "k5")?.title == "item 905")
        #expect(list.items.map(\.time) == list.items.map(\.time).sorted { ($0 ?? 0) > ($1 ?? 0) })
    }

    @Test("Beyond 200 the oldest are dropped and counted as unlisted: the count stays honest")
    func bounded() {
        var list = BadgeItemList()
        for index in 0..<230 { list.insert(BadgeItem(key: "\(index)", title: "t", time: Double(index))) }
        #expect(list.items.count == BadgeItemList.maximumCount)
        #expect(list.unlisted == 30)
        #expect(list.count == 230)
        #expect(list.item(forKey: "0") == nil)
        #expect(list.item(forKey: "229") != nil)
    }

    @Test("Items without a time follow the timed ones, the later added first")
    func untimedOrder() {
        var list = BadgeItemList()
        list.insert(BadgeItem(key: "a", title: "a"))
        list.insert(BadgeItem(key: "b", title: "b", time: 5))
        list.insert(BadgeItem(key: "c", title: "c"))
        #expect(list.items.map(\.key) == ["b", "c", "a"])
        #expect(list.remove(key: "c")?.title == "c")
        #expect(list.remove(key: "c") == nil)
        #expect(list.items.map(\.key) == ["b", "a"])
    }

    @Test("Text is one line, capped in whole characters; an empty title is the key")
    func cleaned() {
        let item = BadgeItem(key: "id-1", title: "  Alice\n\tSmith  ", detail: "\u{1B}[31mred\r\n", origin: "")
        #expect(item.title == "Alice Smith")
        #expect(item.detail == "[31mred")
        #expect(item.origin == nil)
        #expect(BadgeItem(key: "k", title: " \n").title == "k")
        let long = BadgeItem(key: "k", title: String(repeating: "é", count: 1000))
        #expect(long.title.utf8.count <= BadgeItem.maximumTextBytes)
        #expect(long.title.allSatisfy { $0 == "é" })
        #expect(BadgeItem(key: "k", title: "t", time: .nan).time == nil)
        #expect(item.spokenDescription == "Alice Smith, [31mred")
        #expect(BadgeItem(key: "k", title: "t", accessibleDescription: "Build 12 failed").spokenDescription == "Build 12 failed")
    }

    @Test("The controller owns the items: the count follows them, a value set directly empties them")
    func controllerOwnsItems() {
        let harness = Harness(content: .count(0))
        let badge = harness.controller
        let start = badge.revision
        #expect(badge.addItem(BadgeItem(key: "1", title: "Alice")) == false)
        #expect(badge.addItem(BadgeItem(key: "2", title: "Bob")) == false)
        #expect(badge.addItem(BadgeItem(key: "1", title: "Alice again")) == true)
        #expect(badge.value == .count(2))
        #expect(badge.hasItems)
        #expect(badge.revision > start)
        #expect(badge.removeItem(key: "nope") == nil)
        #expect(badge.removeItem(key: "2")?.title == "Bob")
        #expect(badge.value == .count(1))
        badge.setItems(BadgeItemList([BadgeItem(key: "x", title: "x")], unlisted: 4))
        #expect(badge.value == .count(5))
        badge.setItems(BadgeItemList([BadgeItem(key: "x", title: "x")]), count: 40)
        #expect(badge.value == .count(40))
        #expect(badge.accessibilityDescription == "Mail, 40 unread: x")
        badge.setItems(BadgeItemList([BadgeItem(key: "a", title: "Alice", time: 2), BadgeItem(key: "b", title: "Bob", time: 1),
                                      BadgeItem(key: "c", title: "Carol", time: 0)]))
        #expect(badge.accessibilityDescription == "Mail, 3 unread: Alice, Bob, …")
        // One sender is named once (issue 37: "Alice, Alice, …" in the tooltip).
        badge.setItems(BadgeItemList([BadgeItem(key: "a", title: "Alice", time: 3), BadgeItem(key: "b", title: "Alice", time: 2),
                                      BadgeItem(key: "c", title: "Bob", time: 1)]))
        #expect(badge.accessibilityDescription == "Mail, 3 unread: Alice, Bob")
        badge.setItems(BadgeItemList([BadgeItem(key: "a", title: "Alice", time: 3), BadgeItem(key: "b", title: "Alice", time: 2)]))
        #expect(badge.accessibilityDescription == "Mail, 2 unread: Alice")
        badge.setItems(BadgeItemList([BadgeItem(key: "a", title: "Alice", time: 4), BadgeItem(key: "b", title: "Alice", time: 3),
                                      BadgeItem(key: "c", title: "Bob", time: 2), BadgeItem(key: "d", title: "Carol", time: 1)]))
        #expect(badge.accessibilityDescription == "Mail, 4 unread: Alice, Bob, …")
        badge.setItems(BadgeItemList([BadgeItem(key: "a", title: "Alice", time: 2)], unlisted: 3))
        #expect(badge.accessibilityDescription == "Mail, 4 unread: Alice, …")
        badge.value = .count(7)
        #expect(!badge.hasItems)
        #expect(badge.accessibilityDescription == "Mail, 7 unread")
        badge.addItem(BadgeItem(key: "y", title: "y"))
        badge.showDot()
        #expect(!badge.hasItems)
    }

    @Test("A list given newest first keeps that order for items of the same time (a mail burst), and orders by time otherwise")
    func newestFirstOrder() {
        let burst = (1...5).reversed().map { BadgeItem(key: "\($0)", title: "m\($0)", time: 100) }
        let list = BadgeItemList(newestFirst: burst + [BadgeItem(key: "old", title: "old", time: 50), BadgeItem(key: "late", title: "late", time: 200)],
                                 unlisted: 2)
        #expect(list.items.map(\.key) == ["late", "5", "4", "3", "2", "1", "old"])
        #expect(list.count == 9)
    }

    static let times: [(Double, String)] = [
        (0, "just now"), (59, "just now"), (-30, "just now"), (120, "2 min ago"), (10_800, "3 h ago"),
        (129_600, "yesterday"), (345_600, "4 days ago"),
    ]

    @Test("Relative times in English", arguments: times)
    func ago(seconds: Double, words: String) {
        #expect(PeekStrings.english.ago(seconds) == words)
    }
}
