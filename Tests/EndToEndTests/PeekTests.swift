import BadgeCore
import BadgeControl
import Glibc
import Testing
import XvfbHarness

/// Keysyms the peek answers.
enum PeekKeysym {
    static let menu: UInt32 = 0xff67, f10: UInt32 = 0xffc7, down: UInt32 = 0xff54, up: UInt32 = 0xff52
    static let home: UInt32 = 0xff50, end: UInt32 = 0xff57
}

extension DemoSession {
    /// The open peek from `state`, or nil.
    func peek() throws -> JSONValue? {
        try command("state")
        let peek = try app.readEvent(named: "state", timeout: 10)["peek"]
        return peek == .null ? nil : peek
    }

    /// Waits for a `peek` event with `action` (opened, closed, activated, dismissed).
    func peekEvent(_ action: String, timeout: Double = 10) throws -> JSONValue {
        try app.readEvent(named: "peek", timeout: timeout) { $0["action"]?.string == action }
    }

    /// The titles of the open peek's rows.
    func peekTitles() throws -> [String] {
        (try peek()?["rows"]?.array ?? []).compactMap { $0["title"]?.string }
    }

    /// Adds three items to `mail`: Carol (oldest), Alice, Bob (newest).
    func addThreeItems() throws {
        try command(#"add mail {"key": "c", "title": "Carol", "detail": "Re: invoice", "time": 1000}"#)
        try command("add mail a Alice Smith\tLunch at noon?")
        try command("add mail b Bob\tThe build is broken")
        try sync()
    }
}

/// The peek end to end under Xvfb: a real right press and real keys through XTEST, the popup's
/// window read back (its pixels, its place), the grab, and what activating and dismissing do.
@Suite("E2E: the peek", .endToEnd(minutes: 2))
struct PeekTests {
    @Test("A right press opens the items newest first, drawn in the popup; the count is not decremented; a click on a row activates it")
    func rightPressOpensAndClickActivates() throws {
        let s = try DemoSession("peek-pointer")
        try s.addThreeItems()
        #expect(try s.state().button("mail").count == 3)
        let mail = try s.state().button("mail")
        _ = s.unconsumedChanges()
        try s.x.move(toRoot: s.rootCenter(of: mail.button))
        try s.x.press(button: MouseButton.right)
        try s.x.release(button: MouseButton.right)
        _ = try s.peekEvent("opened")
        let opened = try s.peek()
        let peek = try #require(opened)
        #expect(peek["id"]?.string == "mail" && peek["grabbed"]?.bool == true && peek["above"]?.bool == false)
        #expect(try s.peekTitles() == ["Bob", "Alice Smith", "Carol"])
        #expect(try s.state().button("mail").count == 3, "the right press must not decrement")
        #expect(s.unconsumedChanges().isEmpty)
        // It sits under the button, inside the screen.
        let frame = try #require(PixelRect(json: peek["frame"]))
        let buttonRoot = try s.rootCenter(of: mail.button)
        #expect(frame.y >= buttonRoot.y && frame.x <= buttonRoot.x && frame.maxX <= 640 && frame.maxY <= 480, "\(frame)")
        // Its pixels: the toolbar's light background with dark text in every row.
        let window = try #require(peek["window"]?.int)
        let image = try s.x.capture(window: UInt32(window))
        #expect(image.width == frame.width && image.height == frame.height)
        let rows = (peek["rows"]?.array ?? []).compactMap { PixelRect(json: $0["frame"]) }
        #expect(rows.count == 3)
        for row in rows {
            let local = PixelRect(x: row.x - frame.x, y: row.y - frame.y, width: row.width, height: row.height)
            let ink = image.count(in: local) { Int($0.r) + Int($0.g) + Int($0.b) < 3 * 110 }
            expectPixels(ink > 40, "row \(local) has \(ink) text pixels", images: ["peek": image], test: "peek-pointer")
        }
        // Hover highlights the second row; a click on it activates Alice's item, then the peek closes.
        let alice = rows[1]
        try s.x.move(toRoot: (alice.x + alice.width / 2, alice.y + alice.height / 2))
        try s.sync()
        #expect(try s.peek()?["highlighted"]?.int == 1)
        let highlighted = try s.x.capture(window: UInt32(window))
        let local = PixelRect(x: alice.x - frame.x + 2, y: alice.y - frame.y + 2, width: 6, height: alice.height - 4)
        expectPixels(highlighted.differingPixels(from: image, in: local, tolerance: 4) > 0, "the hovered row is not highlighted",
                     images: ["before": image, "hovered": highlighted], test: "peek-hover")
        try s.x.click(button: MouseButton.left, atRoot: (alice.x + alice.width / 2, alice.y + alice.height / 2))
        let item = try s.app.readEvent(named: "item", timeout: 10)
        #expect(item["action"]?.string == "activated" && item["id"]?.string == "mail" && item["key"]?.string == "a")
        #expect(try s.peekEvent("closed")["reason"]?.string == "activated")
        #expect(try s.peek() == nil)
        #expect(try s.state().button("mail").count == 3, "activating a producer's item tells the producer, and changes nothing")
    }

    @Test("From the keyboard: Menu opens with the first row highlighted, Down and End move, Delete dismisses, Return activates, Escape closes")
    func keyboard() throws {
        let s = try DemoSession("peek-keys")
        try s.addThreeItems()
        try s.focusWindow()
        try s.key(Keysym.tab)  // the ring shows where the focus is (the bell)
        try s.key(Keysym.tab)  // the focus to mail, the second button
        #expect(try s.focusedButton() == "mail")
        try s.key(PeekKeysym.menu)
        _ = try s.peekEvent("opened")
        #expect(try s.peek()?["highlighted"]?.int == 0)
        try s.key(PeekKeysym.down)
        #expect(try s.peek()?["highlighted"]?.int == 1)
        try s.key(Keysym.delete)
        #expect(try s.peekEvent("dismissed")["key"]?.string == "a")
        let item = try s.app.readEvent(named: "item", timeout: 10)
        #expect(item["action"]?.string == "dismissed" && item["key"]?.string == "a")
        try s.sync()
        #expect(try s.peekTitles() == ["Bob", "Carol"], "the peek follows its badge while open")
        #expect(try s.state().button("mail").count == 2)
        try s.key(PeekKeysym.end)
        #expect(try s.peek()?["highlighted"]?.int == 1)
        try s.key(Keysym.returnKey)
        #expect(try s.app.readEvent(named: "item", timeout: 10)["key"]?.string == "c")
        #expect(try s.peekEvent("closed")["reason"]?.string == "activated")
        // Shift+F10 opens it too; Escape closes it and hands the keys back to the toolbar.
        try s.key(PeekKeysym.f10, modifiers: [Keysym.shiftL])
        _ = try s.peekEvent("opened")
        try s.key(Keysym.escape)
        #expect(try s.peekEvent("closed")["reason"]?.string == "escape")
        // Space on a count made of items shows them, and never counts over them.
        _ = s.unconsumedChanges()
        try s.key(Keysym.space)
        _ = try s.peekEvent("opened")
        try s.key(Keysym.escape)
        _ = try s.peekEvent("closed")
        try s.key(Keysym.plus)
        try s.key(Keysym.minus)
        #expect(s.unconsumedChanges().isEmpty, "badge keys over items must change nothing")
        #expect(try s.state().button("mail").count == 2)
    }

    @Test("A click outside closes the peek and counts nothing; a button without items lists its provenance and +1, −1, Clear")
    func outsideAndHandSetButton() throws {
        let s = try DemoSession("peek-outside")
        try s.click(MouseButton.right, on: "bell")
        _ = try s.peekEvent("opened")
        let titles = try s.peekTitles()
        #expect(titles == ["Notifications, 3 unread", "+1", "−1", "Clear"], "\(titles)")
        let rows = try s.peek()?["rows"]?.array ?? []
        #expect(rows.first?["detail"]?.string == "the demo's sample value (no source)")
        #expect(rows.first?["actionable"]?.bool == false)
        try s.x.click(button: MouseButton.left, atRoot: (600, 400))
        #expect(try s.peekEvent("closed")["reason"]?.string == "outside")
        try s.sync()
        #expect(s.unconsumedChanges().isEmpty, "the outside click is swallowed")
        // −1 from the peek: the way a right click used to decrement.
        try s.click(MouseButton.right, on: "bell")
        _ = try s.peekEvent("opened")
        let minusRow = try s.peek()?["rows"]?[2]
        let minus = try #require(PixelRect(json: minusRow?["frame"]))
        try s.x.click(button: MouseButton.left, atRoot: (minus.x + minus.width / 2, minus.y + minus.height / 2))
        let change = try s.nextChange()
        #expect(change["id"]?.string == "bell" && change["content"]?["count"]?.int == 2 && change["cause"]?.string == "click")
    }

    @Test("At the bottom edge the peek opens above its button; at the right edge it slides left; in RTL it is mirrored")
    func placement() throws {
        let s = try DemoSession("peek-edges")
        try s.x.move(window: s.window, x: 0, y: 480 - s.size.height)
        try s.sync()
        try s.click(MouseButton.right, on: "bell")
        _ = try s.peekEvent("opened")
        let openAbove = try s.peek()
        let above = try #require(openAbove)
        let frame = try #require(PixelRect(json: above["frame"]))
        #expect(above["above"]?.bool == true && frame.maxY <= 480 - s.size.height + 8 && frame.y >= 0, "\(frame)")
        try s.key(Keysym.escape)
        _ = try s.peekEvent("closed")

        try s.x.move(window: s.window, x: 640 - s.size.width, y: 100)
        try s.sync()
        try s.click(MouseButton.right, on: "updates")
        _ = try s.peekEvent("opened")
        let slidPeek = try s.peek()
        let slid = try #require(PixelRect(json: slidPeek?["frame"]))
        #expect(slid.maxX <= 640 && slid.y > 100, "\(slid)")
        try s.key(Keysym.escape)
        _ = try s.peekEvent("closed")

        let rtl = try DemoSession("peek-rtl", arguments: ["--rtl"])
        try rtl.x.move(window: rtl.window, x: 300, y: 50)
        try rtl.sync()
        let bell = try rtl.state().button("bell")
        try rtl.click(MouseButton.right, on: "bell")
        _ = try rtl.peekEvent("opened")
        let rtlPeek = try rtl.peek()
        let mirrored = try #require(PixelRect(json: rtlPeek?["frame"]))
        // The peek's right edge is on the button's right edge, and its text is at the right.
        let buttonRight = try rtl.x.rootPoint(inWindow: rtl.window, x: bell.button.maxX, y: 0).x
        #expect(abs(mirrored.maxX - buttonRight) <= 1, "peek \(mirrored), button's right edge \(buttonRight)")
        let rtlWindow = try #require(rtlPeek?["window"]?.int)
        let image = try rtl.x.capture(window: UInt32(rtlWindow))
        let leftInk = image.count(in: PixelRect(x: 0, y: 0, width: image.width / 3, height: image.height)) { Int($0.r) + Int($0.g) + Int($0.b) < 300 }
        let rightInk = image.count(in: PixelRect(x: image.width * 2 / 3, y: 0, width: image.width / 3, height: image.height)) {
            Int($0.r) + Int($0.g) + Int($0.b) < 300
        }
        expectPixels(rightInk > leftInk, "RTL text is not at the right (\(leftInk) left, \(rightInk) right)", images: ["rtl": image], test: "peek-rtl")
    }

    @Test("On a screen of two monitors the peek stays on its button's: at the right edge of the first and of the second",
          .enabled(if: findOnPath("xrandr") != nil, "needs xrandr"))
    func twoMonitors() throws {
        let s = try DemoSession("peek-monitors", screenWidth: 1280) { server, _ in
            try MonitorScaleTests.xrandr(MonitorScaleTests.left, display: server.display)
            try MonitorScaleTests.xrandr(MonitorScaleTests.right, display: server.display)
        }
        for (edge, monitor) in [(640, PixelRect(x: 0, y: 0, width: 640, height: 480)), (1280, PixelRect(x: 640, y: 0, width: 640, height: 480))] {
            try s.x.move(window: s.window, x: edge - s.size.width, y: 100)
            try s.sync()
            try s.click(MouseButton.right, on: "updates")
            _ = try s.peekEvent("opened")
            let open = try s.peek()
            let frame = try #require(PixelRect(json: open?["frame"]))
            #expect(frame.x >= monitor.x && frame.maxX <= monitor.maxX && frame.maxX == edge, "monitor \(monitor): peek \(frame)")
            try s.key(Keysym.escape)
            _ = try s.peekEvent("closed")
        }
    }

    @Test("A long press (the left button held half a second) opens the peek, and its release counts nothing")
    func longPress() throws {
        let s = try DemoSession("peek-long-press")
        let bell = try s.state().button("bell")
        try s.x.move(toRoot: s.rootCenter(of: bell.button))
        try s.x.press(button: MouseButton.left)
        let start = ContinuousClock.now
        _ = try s.peekEvent("opened")
        #expect(secondsSince(start) >= 0.45, "opened after \(secondsSince(start)) s: a click is not a long press")
        try s.x.release(button: MouseButton.left)
        try s.sync()
        #expect(s.unconsumedChanges().isEmpty, "the long press's release is no click")
        #expect(try s.peek()?["id"]?.string == "bell")
        try s.key(Keysym.escape)
        _ = try s.peekEvent("closed")
        // A quick click still counts.
        try s.click(MouseButton.left, on: "bell")
        #expect(try s.nextChange()["content"]?["count"]?.int == 4)
    }

    @Test("Hiding the toolbar closes the peek and releases the grab: the pointer works on the next window")
    func unmapCloses() throws {
        let s = try DemoSession("peek-unmap")
        try s.click(MouseButton.right, on: "mail")
        _ = try s.peekEvent("opened")
        try s.x.unmap(window: s.window)
        #expect(try s.peekEvent("closed")["reason"]?.string == "hidden")
        try s.x.map(window: s.window)
        try s.sync()
        try s.click(MouseButton.left, on: "bell")
        #expect(try s.nextChange()["id"]?.string == "bell")
    }

    @Test("Producers: 1,000 adds over 100 keys give 100 items; remove of a missing key is a clear error; items answers all")
    func producers() throws {
        let s = try DemoSession("peek-producers")
        var lines = ""
        for index in 0..<1000 { lines += "add chat k\(index % 100) Message \(index)\n" }
        try s.app.writeDraining(Array(lines.utf8))
        try s.sync(timeout: 30)
        #expect(try s.state().button("chat").count == 100)
        try s.command("items chat")
        let items = try s.app.readEvent(named: "items", timeout: 10)
        #expect(items["items"]?.array?.count == 100 && items["moreItems"]?.int == 0)
        #expect(items["items"]?[0]?["title"]?.string == "Message 999")
        try s.command("remove chat nope")
        let error = try s.app.readEvent(named: "error", timeout: 10)
        #expect(error["reason"]?.string == "remove: chat has no item \"nope\"", "\(error)")
        try s.command("set chat 5")
        let refused = try s.app.readEvent(named: "error", timeout: 10)
        #expect((refused["reason"]?.string ?? "").contains("count is its 100 items"), "\(refused)")
        try s.command("clear chat")
        try s.sync()
        #expect(try s.state().button("chat").badge == nil)
        try s.command("set chat 5")
        try s.sync()
        #expect(try s.state().button("chat").count == 5, "set works again on a button without items")
    }

    @Test("A command's items: the peek lists them and Return runs the item's command (it writes a file)")
    func commandItemRuns() throws {
        let folder = try Artifacts.path(for: "peek-command-\(getpid())")
        removeTree(folder)
        #expect(mkdir(folder, 0o700) == 0)
        defer { removeTree(folder) }
        let marker = folder + "/ran"
        let output = #"{"items": [{"key": "12", "title": "Build 12 failed", "detail": "unit tests", "command": ["/bin/sh", "-c", "echo 12 > \#(marker)"]}]}"#
        let script = folder + "/ci.sh"
        let file = fopen(script, "w")
        fputs("#!/bin/sh\ncat <<'EOF'\n\(output)\nEOF\n", file)
        fclose(file)
        chmod(script, 0o755)
        let config = folder + "/config.json"
        let configFile = fopen(config, "w")
        fputs(#"{"buttons": [{"id": "ci", "icon": "updates", "label": "CI", "source": {"command": ["\#(script)"]}}]}"#, configFile)
        fclose(configFile)
        let s = try DemoSession("peek-command", arguments: ["--config", config, "--no-state"])
        let deadline = Deadline(seconds: 10)
        while try s.state().button("ci").count != 1, !deadline.hasPassed { try s.sync() }
        #expect(try s.state().button("ci").count == 1)
        try s.focusWindow()
        try s.key(PeekKeysym.menu)
        _ = try s.peekEvent("opened")
        #expect(try s.peekTitles() == ["Build 12 failed"])
        try s.key(Keysym.returnKey)
        _ = try s.peekEvent("activated")
        let ran = Deadline(seconds: 10)
        while access(marker, F_OK) != 0, !ran.hasPassed { try s.sync() }
        #expect(access(marker, F_OK) == 0, "the item's command did not run")
    }
}
