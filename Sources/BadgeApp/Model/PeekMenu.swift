import BadgeCore

/// What a button's peek lists and what each row means: its items, newest first (at most 12, and
/// "and N more"); or, for a button without items, where its value comes from and what may be done
/// with it (+1, −1 and Clear for a count set by hand, "Read again" for a source's), so a peek never
/// opens empty. Pure: made from the badge and the words of its provenance, tested without X.
struct PeekMenu: Equatable {
    /// What a row stands for.
    enum Entry: Equatable {
        /// The item with this key.
        case item(String)
        /// An edit of a count set by hand.
        case edit(BadgeAction)
        /// Read the source again.
        case refresh
        /// Words only.
        case note
    }

    /// The button it is for.
    var buttonID: String
    /// The rows, in order.
    var rows: [PeekRow]
    /// What each row stands for, by index.
    var entries: [Entry]

    /// The most items listed before "and N more".
    static let itemLimit = 12

    /// The peek of `button`: `explanation` says where its value comes from ("from ~/Maildir,
    /// 2 s ago"), `ownsCount` whether a source owns the number (no edits then), `now` the wall clock.
    static func make(for button: ToolbarButton, explanation: String, ownsCount: Bool, now: Double,
                     strings: PeekStrings = .english) -> PeekMenu {
        let badge = button.badge
        if badge.hasItems {
            let rows = PeekRow.rows(for: badge.items, now: now, limit: itemLimit, strings: strings)
            let listed = badge.items.items.prefix(itemLimit).map { Entry.item($0.key) }
            return PeekMenu(buttonID: button.id, rows: rows, entries: listed + Array(repeating: .note, count: rows.count - listed.count))
        }
        var rows = [PeekRow(title: badge.valueDescription, detail: explanation, isActionable: false)]
        var entries: [Entry] = [.note]
        if ownsCount {
            rows.append(PeekRow(title: "Read again"))
            entries.append(.refresh)
        } else {
            for (title, action) in [("+1", BadgeAction.increment), ("−1", .decrement), ("Clear", .clear)] {
                rows.append(PeekRow(title: title, spokenDescription: title == "−1" ? "minus 1" : title == "+1" ? "plus 1" : title))
                entries.append(.edit(action))
            }
        }
        return PeekMenu(buttonID: button.id, rows: rows, entries: entries)
    }

    /// What row `index` stands for (a note when out of range).
    func entry(at index: Int) -> Entry {
        entries.indices.contains(index) ? entries[index] : .note
    }
}
