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
    /// What a screen reader says for the row.
    public var spokenDescription: String

    /// Creates a row; `spokenDescription` defaults to the title and detail.
    public init(title: String, detail: String? = nil, trailing: String? = nil, iconName: String? = nil, isActionable: Bool = true,
                isDismissable: Bool = false, spokenDescription: String? = nil) {
        self.iconName = iconName
        self.title = title
        self.detail = detail
        self.trailing = trailing
        self.isActionable = isActionable
        self.isDismissable = isDismissable
        self.spokenDescription = spokenDescription ?? ([title] + [detail, trailing].compactMap { $0 }).joined(separator: ", ")
    }

    /// The rows for `items`, newest first: at most `limit` items, then a note for the rest
    /// ("and 30 more", which includes the unlisted), using `strings` and the wall-clock `now`.
    public static func rows(for items: BadgeItemList, now: Double, limit: Int = 12, strings: PeekStrings = .english) -> [PeekRow] {
        var rows = items.items.prefix(limit).map { item in
            PeekRow(title: item.title, detail: item.detail ?? item.origin, trailing: item.time.map { strings.ago(now - $0) },
                    iconName: item.iconName, isActionable: item.action != nil, isDismissable: item.isDismissable,
                    spokenDescription: item.spokenDescription + (item.time.map { ", " + strings.ago(now - $0) } ?? ""))
        }
        let shown = rows.count
        let rest = items.count - shown
        if rest > 0 {
            let words = shown == 0 ? strings.unlisted(rest) : strings.andMore(rest)
            rows.append(PeekRow(title: words, isActionable: false))
        }
        return rows
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

/// Where a popup goes, as GTK places a menu under a widget: below the anchor, its start edge on
/// the anchor's (the left edge, the right one in right-to-left), flipped above when it does not
/// fit below and fits above, slid sideways into the work area, and cut to the work area's height
/// when it fits neither way (the side with more room).
public enum PeekPlacement {
    /// The popup's frame for `size` next to `anchor`, inside `workArea` (all in root pixels).
    public static func frame(size: (width: Int, height: Int), anchor: PixelRect, workArea: PixelRect,
                             direction: LayoutDirection, gap: Int = 2) -> PixelRect {
        let width = min(size.width, workArea.width)
        var x = direction == .rightToLeft ? anchor.maxX - width : anchor.x
        x = max(workArea.x, min(x, workArea.maxX - width))
        let below = workArea.maxY - (anchor.maxY + gap)
        let above = (anchor.y - gap) - workArea.y
        var height = size.height
        var y: Int
        if size.height <= below {
            y = anchor.maxY + gap
        } else if size.height <= above {
            y = anchor.y - gap - size.height
        } else if below >= above {
            height = max(1, below)
            y = anchor.maxY + gap
        } else {
            height = max(1, above)
            y = anchor.y - gap - height
        }
        y = max(workArea.y, min(y, workArea.maxY - height))
        return PixelRect(x: x, y: y, width: width, height: height)
    }
}
