import BadgeCore
import BadgeControl
import Testing
import XvfbHarness

/// The peek at the screen's edges at 2× end to end: a 1280×800 Xvfb, a button of 214 items (12
/// listed and "and 202 more", two lines each: taller than either side of the screen), the window at
/// each corner. The popup must lie inside the screen, draw only whole rows (the rest summed up by
/// the note) and keep the keyboard highlight on rows it shows; in light, dark and right-to-left.
@Suite("E2E: the peek at the screen's edges at 2×", .endToEnd(minutes: 3))
struct PeekEdgeTests {
    static let screen = PixelRect(x: 0, y: 0, width: 1280, height: 800)
    static let items = 214

    @Test("At each corner of a 1280×800 screen at 2×: inside the screen, every shown row inside the popup, 'and N more' for the rest, Down never on an unseen row",
          arguments: ["light", "dark", "rtl"])
    func corners(theme: String) throws {
        let look = theme == "rtl" ? ["--rtl"] : ["--theme", theme]
        let s = try DemoSession("peek-edges-2x-\(theme)", arguments: ["--scale", "2"] + look, screenWidth: 1280, screenHeight: 800)
        var lines = ""
        for index in 0..<Self.items { lines += "add mail k\(index) Message \(index) from someone\tSubject line \(index)\n" }
        try s.app.writeDraining(Array(lines.utf8))
        try s.sync(timeout: 30)
        #expect(try s.state().button("mail").count == Self.items)
        let corners = [("top-left", 0, 0), ("top-right", 1280 - s.size.width, 0), ("bottom-left", 0, 800 - s.size.height),
                       ("bottom-right", 1280 - s.size.width, 800 - s.size.height)]
        for (corner, x, y) in corners {
            try s.x.move(window: s.window, x: x, y: y)
            try s.sync()
            try s.click(MouseButton.right, on: "mail")
            _ = try s.peekEvent("opened")
            let open = try s.peek()
            let peek = try #require(open, "\(corner): no peek")
            let frame = try #require(PixelRect(json: peek["frame"]))
            let label = "\(corner) (\(theme)): peek \(frame)"
            #expect(frame.x >= 0 && frame.y >= 0 && frame.maxX <= 1280 && frame.maxY <= 800 && frame.width <= 1280, "\(label)")
            #expect(peek["above"]?.bool == corner.hasPrefix("bottom"), "\(label): the side with more room")
            // Its start edge on the button's (the right one in RTL), or slid in at the screen's edge.
            let button = try s.state().button("mail").button
            let buttonLeft = try s.x.rootPoint(inWindow: s.window, x: button.x, y: 0).x
            let buttonRight = try s.x.rootPoint(inWindow: s.window, x: button.maxX, y: 0).x
            let start = theme == "rtl" ? frame.maxX == buttonRight || frame.x == 0 : frame.x == buttonLeft || frame.maxX == 1280
            #expect(start, "\(label): button \(buttonLeft)..\(buttonRight)")
            let rows = peek["rows"]?.array ?? []
            let frames = rows.compactMap { PixelRect(json: $0["frame"]) }
            #expect(frames.count == rows.count && rows.count >= 2, "\(label): \(rows.count) rows")
            for (index, row) in frames.enumerated() {
                #expect(row.x >= frame.x && row.y >= frame.y && row.maxX <= frame.maxX && row.maxY <= frame.maxY,
                        "\(label): row \(index) \(row) is not inside the popup")
            }
            // What is not shown is summed up by the last row.
            let listed = rows.filter { $0["actionable"]?.bool == true }.count
            #expect(listed == rows.count - 1, "\(label)")
            #expect(rows.last?["title"]?.string == "and \(Self.items - listed) more", "\(label): \(rows.last?["title"]?.string ?? "none")")
            // Its pixels: the note, the last row, has its text drawn inside the popup (not cut off).
            let window = try #require(peek["window"]?.int)
            let image = try s.x.capture(window: UInt32(window))
            #expect(image.width == frame.width && image.height == frame.height)
            if let note = frames.last {
                let background = image.pixel(x: 2, y: 2)
                let local = PixelRect(x: note.x - frame.x, y: note.y - frame.y, width: note.width, height: note.height)
                let ink = image.count(in: local) { $0.distance(to: background) > 60 }
                expectPixels(ink > 40, "\(label): the note has \(ink) text pixels", images: ["peek": image], test: "peek-edges-\(theme)-\(corner)")
            }
            if corner == "bottom-left" { image.saveArtifact(named: "peek-edges-2x-\(theme)-\(corner)") }
            // Down from nothing highlighted, round the list and more: only shown, actionable rows.
            var highlighted: Set<Int> = []
            for _ in 0..<(rows.count + 2) {
                try s.key(PeekKeysym.down)
                let now = try s.peek()
                let index = try #require(now?["highlighted"]?.int, "\(label): Down highlights nothing")
                #expect(now?["rows"]?.array?.count == rows.count)
                #expect(frames.indices.contains(index) && rows[index]["actionable"]?.bool == true, "\(label): row \(index) highlighted")
                highlighted.insert(index)
            }
            #expect(highlighted == Set(0..<listed), "\(label): \(highlighted.sorted())")
            try s.key(Keysym.escape)
            #expect(try s.peekEvent("closed")["reason"]?.string == "escape")
        }
    }
}
