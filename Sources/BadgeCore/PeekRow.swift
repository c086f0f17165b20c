/// One line of a peek (the popup that lists what is behind a badge): an item, an action such as
/// "+1", or a note such as "and 30 more".
public struct PeekRow: Hashable, Sendable {
    /// The first line.
    public var title: String
    /// A second, quieter line, or nil.
    public var detail: String?
    /// Text at the far end of the row (a relative time, "2 min ago"), or nil.
    public var trailing: String?
    /// The origin's icon (a bundled icon's name: "mail", "bell"), drawn at the row's start when
    /// the renderer has it; nil for none.
    public var iconName: String?
    /// Whether the row can be highlighted and activated (items and actions; notes cannot).
    public var isActionable: Bool
    /// Whether Delete may dismiss it.
    public var isDismissable: Bool
    /// The name of the row's second action in the user's language ("Mark read"), or nil for none:
    /// Shift+Return (or Shift+Space) and a middle click on the row do it, and screen readers see
    /// it as the row's second action. The peek stays open for it.
    public var secondaryAction: String? = nil
    /// What a screen reader says for the row.
    public var spokenDescription: String
    /// How many items the row stands for, so a peek cut short can say how many it leaves out:
    /// 1 for an item, N for "and N more", 0 for a heading.
    public var itemCount: Int

    /// Creates a row; `spokenDescription` defaults to the title and detail, `itemCount` to 1 for
    /// an actionable row and 0 for a note.
    public init(title: String, detail: String? = nil, trailing: String? = nil, iconName: String? = nil, isActionable: Bool = true,
                isDismissable: Bool = false, spokenDescription: String? = nil, itemCount: Int? = nil) {
        self.iconName = iconName
        self.itemCount = itemCount ?? (isActionable ? 1 : 0)
        self.title = title
        self.detail = detail
        self.trailing = trailing
        self.isActionable = isActionable
        self.isDismissable = isDismissable
        self.spokenDescription = spokenDescription ?? ([title] + [detail, trailing].compactMap { $0 }).joined(separator: ", ")
    }

    /// The rows for `items`, newest first: at most `limit` items, then a note for the rest
    /// ("and 30 more", which includes the unlisted), using `strings` and the wall-clock `now`.
    /// `secondaryAction` names every item row's second action (``secondaryAction``), if any.
    public static func rows(for items: BadgeItemList, now: Double, limit: Int = 12, strings: PeekStrings = .english,
                            secondaryAction: String? = nil) -> [PeekRow] {
        var rows = items.items.prefix(limit).map { item in
            var row = PeekRow(title: item.title, detail: item.detail ?? item.origin, trailing: item.time.map { strings.ago(now - $0) },
                              iconName: item.iconName, isActionable: item.action != nil || secondaryAction != nil,
                              isDismissable: item.isDismissable,
                              spokenDescription: item.spokenDescription + (item.time.map { ", " + strings.ago(now - $0) } ?? ""), itemCount: 1)
            row.secondaryAction = secondaryAction
            return row
        }
        let shown = rows.count
        let rest = items.count - shown
        if rest > 0 {
            let words = shown == 0 ? strings.unlisted(rest) : strings.andMore(rest)
            rows.append(PeekRow(title: words, isActionable: false, itemCount: rest))
        }
        return rows
    }

    /// `rows` cut to their first `count`, with one note for the rest ("and N more", N the items
    /// the dropped rows stood for, or their number when they stood for none; "N earlier" when no
    /// row is kept): what a peek shows when it cannot fit all of its rows. `rows` themselves when
    /// they all fit.
    public static func cut(_ rows: [PeekRow], keeping count: Int, strings: PeekStrings = .english) -> [PeekRow] {
        let kept = max(0, min(count, rows.count))
        guard kept < rows.count else { return rows }
        let dropped = rows[kept...]
        let items = dropped.reduce(0) { $0 + $1.itemCount }
        let rest = items > 0 ? items : dropped.count
        let words = kept == 0 ? strings.unlisted(rest) : strings.andMore(rest)
        return Array(rows.prefix(kept)) + [PeekRow(title: words, isActionable: false, itemCount: rest)]
    }
}

/// Which row of a peek is highlighted, and how keys and the pointer move it: only actionable
/// rows are highlighted; Up and Down wrap, as GTK's and Qt's menus do.
public struct PeekHighlight: Hashable, Sendable {
    /// The highlighted row's index, or nil.
    public private(set) var index: Int?
    private let actionable: [Int]

    /// A highlight over `rows`; `first` highlights the first actionable row (a keyboard open).
    public init(rows: [PeekRow], first: Bool) {
        actionable = rows.indices.filter { rows[$0].isActionable }
        index = first ? actionable.first : nil
    }

    /// Moves to the next actionable row (down) or the previous one, wrapping; from none, the first or last.
    public mutating func move(forward: Bool) {
        guard !actionable.isEmpty else { return }
        guard let index, let position = actionable.firstIndex(of: index) else {
            self.index = forward ? actionable.first : actionable.last
            return
        }
        let next = forward ? (position + 1) % actionable.count : (position + actionable.count - 1) % actionable.count
        self.index = actionable[next]
    }

    /// Moves to the first or the last actionable row (Home, End).
    public mutating func moveToEnd(last: Bool) {
        index = last ? actionable.last : actionable.first
    }

    /// Highlights `row` when it is actionable; nil (or a note) clears the highlight. True when it changed.
    @discardableResult
    public mutating func hover(_ row: Int?) -> Bool {
        let new = row.flatMap { actionable.contains($0) ? $0 : nil }
        guard new != index else { return false }
        index = new
        return true
    }
}
