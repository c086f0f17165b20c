import BadgeCore

/// What a button's peek lists and what each row means: its items, newest first (at most 12, and
/// "and N more"); or, for a button without items, where its value comes from and what may be done
/// with it (+1, −1 and Clear for a count set by hand, "Read again" for a source's), so a peek never
/// opens empty. Pure: made from the badge and the words of its provenance, tested without X.
struct PeekMenu: Equatable {
    /// What a row stands for.
    enum Entry: Equatable {
        /// The item with this key, of the button with this id.
        case item(button: String, key: String)
        /// An edit of a count set by hand.
        case edit(button: String, BadgeAction)
        /// Read the button's source again.
        case refresh(button: String)
        /// Mark every item of the button read through its source.
        case markAllRead(button: String)
        /// Words only.
        case note
    }

    /// The id the peek reports: its button's, or ``totalID`` for the tray's peek of every button.
    var buttonID: String
    /// The rows, in order.
    var rows: [PeekRow]
    /// What each row stands for, by index.
    var entries: [Entry]

    /// The most items listed before "and N more".
    static let itemLimit = 12

    /// The peek's words in the user's language: the library's (times, "and N more") and the app's
    /// rows for a count without items.
    struct Words {
        var peek: PeekStrings
        var readAgain: String
        var clear: String
        var plusOne: String
        var minusOne: String
        /// An item row's second action, and the row that does it for every item.
        var markRead = "Mark read"
        var markAllRead = "Mark all read"
        /// The note over the items when marking read failed: "Not marked read: REASON".
        var notMarkedRead: @Sendable (String) -> String = { "Not marked read: \($0)" }

        /// English.
        static let english = Words(peek: .english, readAgain: "Read again", clear: "Clear", plusOne: "plus 1", minusOne: "minus 1")
    }

    /// The peek of `button`: `explanation` says where its value comes from ("from ~/Maildir,
    /// 2 s ago"), `ownsCount` whether a source owns the number (no edits then), `now` the wall clock.
    /// `marksRead` says whether its source can mark items read (each item row gets "Mark read" as
    /// its second action, and a last row "Mark all read"), `readFailure` why the last try failed
    /// (a note over the items).
    static func make(for button: ToolbarButton, explanation: String, ownsCount: Bool, now: Double,
                     words: Words = .english, marksRead: Bool = false, readFailure: String? = nil, staleReason: String? = nil) -> PeekMenu {
        let strings = words.peek
        let badge = button.badge
        var notice: [PeekRow] = []
        if let readFailure { notice = [PeekRow(title: words.notMarkedRead(readFailure), isActionable: false)] }
        // Items of a source that is not up to date (an account of several away): why, over them.
        if badge.hasItems, let staleReason { notice.append(PeekRow(title: staleReason, isActionable: false)) }
        if badge.hasItems {
            let rows = PeekRow.rows(for: badge.items, now: now, limit: itemLimit, strings: strings,
                                    secondaryAction: marksRead ? words.markRead : nil)
            let listed = badge.items.items.prefix(itemLimit).map { Entry.item(button: button.id, key: $0.key) }
            var entries = Array(repeating: Entry.note, count: notice.count) + listed + Array(repeating: .note, count: rows.count - listed.count)
            var all = notice + rows
            if marksRead {
                all.append(PeekRow(title: words.markAllRead))
                entries.append(.markAllRead(button: button.id))
            }
            return PeekMenu(buttonID: button.id, rows: all, entries: entries)
        }
        var rows = notice + [PeekRow(title: badge.valueDescription, detail: explanation, isActionable: false)]
        var entries: [Entry] = Array(repeating: .note, count: notice.count) + [.note]
        if ownsCount {
            rows.append(PeekRow(title: words.readAgain))
            entries.append(.refresh(button: button.id))
        } else {
            for (title, spoken, action) in [("+1", words.plusOne, BadgeAction.increment), ("−1", words.minusOne, .decrement),
                                            (words.clear, words.clear, .clear)] {
                rows.append(PeekRow(title: title, spokenDescription: spoken))
                entries.append(.edit(button: button.id, action))
            }
        }
        return PeekMenu(buttonID: button.id, rows: rows, entries: entries)
    }

    /// The id the tray's peek of every button reports.
    static let totalID = "tray"

    /// The tray's peek: every button with something to show, its value as a heading, then its
    /// newest items, at most ``itemLimit`` items in all ("and N more" under each button cut short).
    static func total(of buttons: [ToolbarButton], now: Double, words: Words = .english) -> PeekMenu {
        let strings = words.peek
        var rows: [PeekRow] = []
        var entries: [Entry] = []
        var budget = itemLimit
        for button in buttons where button.badge.label != .hidden {
            rows.append(PeekRow(title: button.badge.valueDescription, isActionable: false))
            entries.append(.note)
            guard button.badge.hasItems else { continue }
            let shown = min(budget, button.badge.items.items.count)
            let itemRows = PeekRow.rows(for: button.badge.items, now: now, limit: shown, strings: strings)
            rows += itemRows
            entries += button.badge.items.items.prefix(shown).map { Entry.item(button: button.id, key: $0.key) }
            entries += Array(repeating: .note, count: itemRows.count - shown)
            budget -= shown
        }
        if rows.isEmpty {
            rows = [PeekRow(title: strings.empty(), isActionable: false)]
            entries = [.note]
        }
        return PeekMenu(buttonID: totalID, rows: rows, entries: entries)
    }

    /// What row `index` stands for (a note when out of range).
    func entry(at index: Int) -> Entry {
        entries.indices.contains(index) ? entries[index] : .note
    }
}
