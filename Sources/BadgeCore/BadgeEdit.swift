/// One change of a badge, as every front end says it: the control protocol's commands (`set`,
/// `inc`, `add` …) and the D-Bus interface's methods (`Set`, `Increment`, `AddItem` …) map onto
/// these, and ``ToolbarModel/apply(_:to:cause:verb:)`` makes them through the model's funnel, so
/// both vocabularies share one executor and one set of rules.
public enum BadgeEdit: Hashable, Sendable {
    /// The count (0 or more).
    case set(Int)
    /// Add to the count.
    case increment(Int)
    /// Subtract from the count (never below 0).
    case decrement(Int)
    /// No badge.
    case clear
    /// A text badge (capped as every badge text is; empty text removes the badge).
    case text(String)
    /// A dot, blinking or steady.
    case dot(blink: Bool)
    /// An item (added, or in place of the one with its key).
    case addItem(BadgeItem)
    /// The item with this key.
    case removeItem(String)

    /// Makes the change on `badge` (``refusal(on:buttonID:verb:)`` says first whether it may).
    public func apply(to badge: BadgeController) {
        switch self {
        case .set(let count): badge.value = .count(max(0, count))
        case .increment(let step): badge.increment(by: step)
        case .decrement(let step): badge.decrement(by: step)
        case .clear: badge.clear()
        case .text(let text): badge.setText(text)
        case .dot(let blink): badge.showDot(blink: blink)
        case .addItem(let item): badge.addItem(item)
        case .removeItem(let key): badge.removeItem(key: key)
        }
    }

    /// Why the edit cannot be made on `badge` (of the button `buttonID`, asked for as `verb`:
    /// "set", "Increment" …), in words for the one who asked; nil when it can.
    ///
    /// The one place of the rule "items own the count": a count made of a producer's items is
    /// their number, so a number given by hand (set, increment, decrement) would lie about them
    /// (remove the items, or clear the badge). And an item can be removed only when it is there.
    public func refusal(on badge: BadgeController, buttonID: String, verb: String) -> String? {
        refusalSentence(on: badge, buttonID: buttonID, verb: verb)?.english
    }

    /// ``refusal(on:buttonID:verb:)`` as a sentence, for the app to say in the user's language.
    package func refusalSentence(on badge: BadgeController, buttonID: String, verb: String) -> Sentence? {
        switch self {
        case .set, .increment, .decrement:
            guard badge.countIsItems else { return nil }
            return Sentence(one: "%1$s: %2$s's count is its %3$s item; remove it or clear it",
                            other: "%1$s: %2$s's count is its %3$s items; remove them or clear it",
                            count: badge.items.count, .text(verb), .text(buttonID), .number(badge.items.count))
        case .removeItem(let key):
            guard badge.items.item(forKey: key) == nil else { return nil }
            return badge.hasItems ? Sentence("%1$s: %2$s has no item \"%3$s\"", .text(verb), .text(buttonID), .text(InputEcho.escaped(key, quote: true)))
                : Sentence("%1$s: %2$s has no item \"%3$s\"; it has no items", .text(verb), .text(buttonID), .text(InputEcho.escaped(key, quote: true)))
        case .clear, .text, .dot, .addItem:
            return nil
        }
    }
}

extension BadgeController {
    /// True when the count is a producer's items' number: then a click, a key or a command that
    /// would set a number opens the peek or is refused instead (``BadgeEdit/refusal(on:buttonID:verb:)``).
    public var countIsItems: Bool { items.items.contains { $0.action == .producer } }
}

extension ToolbarModel {
    /// Makes `edit` on `button`'s badge through the funnel (``change(_:cause:_:)``), unless the
    /// rules refuse it: then nothing changes and the reason is returned
    /// (``BadgeEdit/refusal(on:buttonID:verb:)``). The control protocol and the D-Bus interface
    /// both come here.
    @discardableResult
    public func apply(_ edit: BadgeEdit, to button: ToolbarButton, cause: ChangeCause, verb: String) -> String? {
        applying(edit, to: button, cause: cause, verb: verb)?.english
    }

    /// ``apply(_:to:cause:verb:)`` with the refusal as a sentence, for the app to say in the user's language.
    @discardableResult
    package func applying(_ edit: BadgeEdit, to button: ToolbarButton, cause: ChangeCause, verb: String) -> Sentence? {
        if let refusal = edit.refusalSentence(on: button.badge, buttonID: button.id, verb: verb) { return refusal }
        change(button, cause: cause) { edit.apply(to: $0) }
        return nil
    }
}
