import BadgeCore
import Testing

/// Where a peek goes and how many of its rows fit (pure, no X): a 1280×800 work area, a button at
/// each edge, at scales 1 and 2. The peek of 12 items (two lines each) and "and 202 more" fits
/// above or below at 1×; at 2× it fits neither way, so it is limited to the larger side and shows
/// its first rows whole with one note for the rest.
@Suite struct PeekPlacementTests {
    static let area = PixelRect(x: 0, y: 0, width: 1280, height: 800)
    /// Logical heights as PeekRenderer gives them: an item with a detail line, and a note.
    static let itemHeight = 43.0, noteHeight = 30.0, padding = 4.0

    static func rows() -> [PeekRow] {
        (0..<12).map { PeekRow(title: "Item \($0)", detail: "detail", itemCount: 1) }
            + [PeekRow(title: "and 202 more", isActionable: false, itemCount: 202)]
    }

    static func heights(_ rows: [PeekRow]) -> [Double] { rows.map { $0.detail == nil ? noteHeight : itemHeight } }

    /// The popup's pixel height for `rows` at `scale`, as PeekRenderer.Layout.pixelSize rounds it.
    static func pixelHeight(_ rows: [PeekRow], scale: Double) -> Int {
        Int(((2 * padding + heights(rows).reduce(0, +)) * scale).rounded(.up))
    }

    /// A 44-logical button at `scale`, its toolbar's window 12 logical pixels from the edges.
    static func button(_ edge: (vertical: String, horizontal: String), scale: Double) -> PixelRect {
        let side = Int(44 * scale), margin = Int(12 * scale)
        let x = edge.horizontal == "left" ? margin : area.width - margin - side
        let y = edge.vertical == "top" ? margin : area.height - margin - side
        return PixelRect(x: x, y: y, width: side, height: side)
    }

    static let corners = [("top", "left"), ("top", "right"), ("bottom", "left"), ("bottom", "right")]

    @Test("At each corner, scales 1 and 2, LTR and RTL: inside the work area, off the button, every shown row whole in it",
          arguments: [1.0, 2.0], [LayoutDirection.leftToRight, .rightToLeft])
    func corners(scale: Double, direction: LayoutDirection) {
        let rows = Self.rows()
        for corner in Self.corners {
            let anchor = Self.button(corner, scale: scale)
            let fit = PeekPlacement.fit(rowHeights: Self.heights(rows), noteHeight: Self.noteHeight, padding: Self.padding, scale: scale,
                                        anchor: anchor, workArea: Self.area)
            let shown = PeekRow.cut(rows, keeping: fit.shownRows)
            let size = (width: Int(420 * scale), height: Self.pixelHeight(shown, scale: scale))
            let frame = PeekPlacement.frame(size: size, anchor: anchor, workArea: Self.area, direction: direction, side: fit.side)
            let label = "\(corner) at \(scale)× \(direction): \(fit), \(frame)"
            #expect(frame.x >= 0 && frame.y >= 0 && frame.maxX <= 1280 && frame.maxY <= 800, "\(label)")
            #expect(frame.height == size.height, "the rows it shows are whole: \(label)")
            #expect(frame.width == size.width, "\(label)")
            #expect(fit.side == (corner.0 == "top" ? .below : .above), "the side with the room: \(label)")
            #expect(fit.side == .below ? frame.y >= anchor.maxY : frame.maxY <= anchor.y, "it never covers its button: \(label)")
            if direction == .leftToRight {
                #expect(corner.1 == "left" ? frame.x == anchor.x : frame.maxX == 1280, "its start edge on the button's, or slid in: \(label)")
            } else {
                #expect(corner.1 == "right" ? frame.maxX == anchor.maxX : frame.x == 0, "mirrored, or slid in: \(label)")
            }
            if scale == 1 {
                #expect(!fit.isCut && fit.shownRows == 13 && shown == rows, "everything fits at 1×: \(label)")
            } else {
                // 698 pixels of room: 2 × (8 + 30) for the padding and the note, then 86 a row: 7 rows.
                #expect(fit.isCut && fit.shownRows == 7, "\(label)")
                #expect(shown.count == 8 && shown.last?.title == "and 207 more" && shown.last?.isActionable == false, "\(shown.map(\.title))")
                #expect(Self.pixelHeight(Array(shown.prefix(7)) + [rows[12]], scale: scale) <= 698)
                #expect(Self.pixelHeight(Array(rows.prefix(8)) + [rows[12]], scale: scale) > 698, "one more row would not fit")
            }
        }
    }

    @Test("The room is the work area's: a panel's _NET_WORKAREA at the bottom pushes the popup up and cuts it sooner")
    func workArea() {
        let panel = PixelRect(x: 0, y: 0, width: 1280, height: 760)
        let anchor = PixelRect(x: 0, y: 660, width: 88, height: 88)
        let fit = PeekPlacement.fit(rowHeights: Self.heights(Self.rows()), noteHeight: Self.noteHeight, padding: Self.padding, scale: 2,
                                    anchor: anchor, workArea: panel)
        #expect(fit.side == .above && fit.shownRows == 6, "\(fit)")
        let shown = PeekRow.cut(Self.rows(), keeping: fit.shownRows)
        let frame = PeekPlacement.frame(size: (840, Self.pixelHeight(shown, scale: 2)), anchor: anchor, workArea: panel,
                                        direction: .leftToRight, side: fit.side)
        #expect(frame.y >= 0 && frame.maxY <= 658, "\(frame)")
        // Too tall for its side even so (a side given by the caller): limited to the room, never past the area.
        let limited = PeekPlacement.frame(size: (840, 2000), anchor: anchor, workArea: panel, direction: .leftToRight, side: .below)
        #expect(limited.y >= 0 && limited.maxY <= 760, "\(limited)")
    }

    @Test("Never wider than the monitor: a popup wider than the work area is its width, at its left edge, LTR and RTL")
    func width() {
        let monitor = PixelRect(x: 1280, y: 0, width: 800, height: 600)
        for direction in [LayoutDirection.leftToRight, .rightToLeft] {
            for anchorX in [1280, 2000] {
                let frame = PeekPlacement.frame(size: (1000, 100), anchor: PixelRect(x: anchorX, y: 10, width: 80, height: 80),
                                                workArea: monitor, direction: direction)
                #expect(frame.x == 1280 && frame.width == 800, "\(direction) at \(anchorX): \(frame)")
            }
        }
    }

    @Test("A peek cut short: the first rows, then one note for what the rest stood for; the highlight never reaches past them")
    func cut() {
        let rows = Self.rows()
        #expect(PeekRow.cut(rows, keeping: 13) == rows)
        let seven = PeekRow.cut(rows, keeping: 7)
        #expect(seven.prefix(7) == rows.prefix(7) && seven.map(\.title).last == "and 207 more" && seven.last?.itemCount == 207)
        #expect(PeekRow.cut(rows, keeping: 0).map(\.title) == ["214 earlier"])
        let actions = [PeekRow(title: "heading", isActionable: false), PeekRow(title: "+1"), PeekRow(title: "−1"), PeekRow(title: "Clear")]
        #expect(PeekRow.cut(actions, keeping: 2).last?.title == "and 2 more", "an action stands for one row")
        var highlight = PeekHighlight(rows: seven, first: true)
        var seen: Set<Int> = []
        for _ in 0..<30 {
            seen.insert(highlight.index ?? -1)
            highlight.move(forward: true)
        }
        #expect(seen == Set(0..<7), "\(seen.sorted())")
    }
}
