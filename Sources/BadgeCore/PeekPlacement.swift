/// Where a popup goes and how much of it fits, as GTK and Qt place a menu under a widget: below
/// the anchor, its start edge on the anchor's (the left edge, the right one in right-to-left),
/// flipped above when it does not fit below and fits above, slid sideways into the work area and
/// never wider than it. When it fits neither way it goes to the side with more room and is
/// limited to that room: ``fit(rowHeights:noteHeight:padding:scale:anchor:workArea:gap:)`` says
/// how many of its first rows are whole in it, the rest being summed up by one note ("and N
/// more"), so no row is ever drawn cut by the popup's edge or the screen's.
public enum PeekPlacement {
    /// Which side of the anchor a popup opens on.
    public enum Side: Hashable, Sendable {
        /// Under the anchor (the usual side).
        case below
        /// Above the anchor (flipped: more room there).
        case above
    }

    /// What fits of a popup's rows, and where.
    public struct Fit: Hashable, Sendable {
        /// How many of the first rows are shown whole.
        public var shownRows: Int
        /// True when the rows after ``shownRows`` do not fit: one note takes their place.
        public var isCut: Bool
        /// The side of the anchor it opens on.
        public var side: Side

        /// Creates a fit.
        public init(shownRows: Int, isCut: Bool, side: Side) {
            self.shownRows = shownRows
            self.isCut = isCut
            self.side = side
        }
    }

    /// The room below and above `anchor` inside `workArea`, in pixels (never negative).
    public static func room(anchor: PixelRect, workArea: PixelRect, gap: Int = 2) -> (below: Int, above: Int) {
        (max(0, workArea.maxY - (anchor.maxY + gap)), max(0, (anchor.y - gap) - workArea.y))
    }

    /// How many rows of a popup fit next to `anchor` inside `workArea` (root pixels), and on which
    /// side: `rowHeights` are its rows' heights and `noteHeight` the height of the note that stands
    /// for the rest, `padding` the space above the first row and below the last, all in logical
    /// units drawn at `scale` (the popup is `ceil((2 × padding + rows) × scale)` pixels tall).
    /// Below when everything fits there, else above when it fits there, else the side with more
    /// room, with as many first rows as fit whole there above the note.
    public static func fit(rowHeights: [Double], noteHeight: Double, padding: Double, scale: Double, anchor: PixelRect,
                           workArea: PixelRect, gap: Int = 2) -> Fit {
        func pixels(_ logical: Double) -> Int { max(1, Int((logical * scale).rounded(.up))) }
        let (below, above) = room(anchor: anchor, workArea: workArea, gap: gap)
        let whole = pixels(2 * padding + rowHeights.reduce(0, +))
        if whole <= below { return Fit(shownRows: rowHeights.count, isCut: false, side: .below) }
        if whole <= above { return Fit(shownRows: rowHeights.count, isCut: false, side: .above) }
        let side: Side = below >= above ? .below : .above
        let available = max(below, above)
        var shown = 0
        var used = 2 * padding + noteHeight
        while shown < rowHeights.count, pixels(used + rowHeights[shown]) <= available {
            used += rowHeights[shown]
            shown += 1
        }
        return Fit(shownRows: shown, isCut: true, side: side)
    }

    /// The popup's frame for `size` next to `anchor`, inside `workArea` (all in root pixels): on
    /// `side` when given (the one ``fit(rowHeights:noteHeight:padding:scale:anchor:workArea:gap:)``
    /// chose), else below, above when it fits only there, else the larger side; its height and
    /// width are limited to the work area's room, and it is slid into it horizontally.
    public static func frame(size: (width: Int, height: Int), anchor: PixelRect, workArea: PixelRect,
                             direction: LayoutDirection, side: Side? = nil, gap: Int = 2) -> PixelRect {
        let width = max(1, min(size.width, workArea.width))
        var x = direction == .rightToLeft ? anchor.maxX - width : anchor.x
        x = max(workArea.x, min(x, workArea.maxX - width))
        let (below, above) = room(anchor: anchor, workArea: workArea, gap: gap)
        let chosen: Side
        if let side {
            chosen = side
        } else if size.height <= below {
            chosen = .below
        } else if size.height <= above {
            chosen = .above
        } else {
            chosen = below >= above ? .below : .above
        }
        let height = max(1, min(size.height, chosen == .below ? below : above, workArea.height))
        var y = chosen == .below ? anchor.maxY + gap : anchor.y - gap - height
        y = max(workArea.y, min(y, workArea.maxY - height))
        return PixelRect(x: x, y: y, width: width, height: height)
    }
}
