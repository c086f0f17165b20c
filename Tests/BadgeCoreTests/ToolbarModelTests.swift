@testable import BadgeCore
import Testing

/// The model: the one owner of a toolbar's state, its funnel and its observers, without a window.
@Suite struct ToolbarModelTests {
    static func button(_ id: String, _ content: BadgeContent = .none) -> ToolbarButton {
        ToolbarButton(id: id, iconName: "bell", badge: BadgeController(accessibilityLabel: id, content: content,
                                                                        clock: ManualClock(), measurer: FakeMeasurer()))
    }

    @Test("Every change goes through the funnel once, to every observer in order, with its cause and whether the count rose")
    func funnel() {
        let mail = Self.button("mail", .count(2))
        let model = ToolbarModel(toolbar: Toolbar(buttons: [mail]))
        var heard: [String] = []
        model.observe { change in
            if case .badge(let button, let cause, let rose) = change { heard.append("view \(button.id) \(cause.rawValue) \(rose)") }
        }
        let board = model.observe { change in
            if case .badge(let button, _, _) = change { heard.append("board \(button.id) \(button.badge.count)") }
        }
        model.change(mail, cause: .source) { $0.value = .count(5) }
        model.change(mail, cause: .click) { $0.decrement() }
        #expect(heard == ["view mail source true", "board mail 5", "view mail click false", "board mail 4"])
        #expect(model.revision == 2)
        board.cancel()
        #expect(model.change(id: "mail", cause: .control) { $0.clear() })
        #expect(!model.change(id: "nope", cause: .control) { $0.clear() }, "no such button: nothing changes")
        #expect(heard.count == 5 && heard.last == "view mail control false", "a cancelled observer hears nothing more")
    }

    @Test("A replacement is one change: observers see the new buttons")
    func replacement() {
        let model = ToolbarModel(toolbar: Toolbar(buttons: [Self.button("a")]))
        var seen: [String] = []
        model.observe { change in
            if case .replaced(let previous) = change { seen = previous.buttons.map(\.id) + model.toolbar.buttons.map(\.id) }
        }
        let same = model.toolbar
        model.replace(toolbar: same)
        #expect(seen.isEmpty, "the same toolbar is no change")
        model.replace(toolbar: Toolbar(buttons: [Self.button("b"), Self.button("c")]))
        #expect(seen == ["a", "b", "c"])
    }

    @Test("Items own the count, in one place: set, inc and dec are refused on a producer's items; remove needs the item")
    func itemsOwnTheCount() {
        let chat = Self.button("chat")
        let model = ToolbarModel(toolbar: Toolbar(buttons: [chat]))
        var changes = 0
        model.observe { _ in changes += 1 }
        #expect(model.apply(.increment(1), to: chat, cause: .control, verb: "inc") == nil)
        #expect(chat.badge.count == 1 && changes == 1)
        let item = BadgeItem(key: "k1", title: "Alice", detail: "", time: 1, action: .producer, isDismissable: true)
        #expect(model.apply(.addItem(item), to: chat, cause: .control, verb: "add") == nil)
        #expect(chat.badge.countIsItems && chat.badge.count == 1)
        for (edit, verb) in [(BadgeEdit.set(7), "set"), (.increment(1), "Increment"), (.decrement(1), "dec")] {
            #expect(model.apply(edit, to: chat, cause: .control, verb: verb) == "\(verb): chat's count is its 1 item; remove it or clear it")
        }
        #expect(chat.badge.count == 1 && changes == 2, "refused: nothing changed, nobody told")
        #expect(model.apply(.removeItem("nope"), to: chat, cause: .control, verb: "remove") == "remove: chat has no item \"nope\"")
        #expect(model.apply(.removeItem("k1"), to: chat, cause: .control, verb: "remove") == nil)
        #expect(!chat.badge.countIsItems)
        #expect(BadgeEdit.removeItem("k1").refusal(on: chat.badge, buttonID: "chat", verb: "RemoveItem") == "RemoveItem: chat has no item \"k1\"; it has no items")
        #expect(model.apply(.set(-3), to: chat, cause: .control, verb: "set") == nil && chat.badge.count == 0, "never below 0")
    }
}
