import BadgeCore
import Glibc
import Testing
import XvfbHarness

/// X keysyms used by the keyboard tests.
enum Keysym {
    static let tab: UInt32 = 0xff09, returnKey: UInt32 = 0xff0d, space: UInt32 = 0x20, plus: UInt32 = 0x2b
    static let minus: UInt32 = 0x2d, backSpace: UInt32 = 0xff08, delete: UInt32 = 0xffff, zero: UInt32 = 0x30
    static let escape: UInt32 = 0xff1b, q: UInt32 = 0x71, t: UInt32 = 0x74, b: UInt32 = 0x62, o: UInt32 = 0x6f, r: UInt32 = 0x72
    static let shiftL: UInt32 = 0xffe1, controlL: UInt32 = 0xffe3
}

extension DemoSession {
    /// Gives the app's window the keyboard focus (no window manager: SetInputFocus).
    func focusWindow() throws {
        try x.setInputFocus(window: window)
        try sync()
    }

    /// Presses a key (through the server's keymap) and waits until the app has handled it.
    func key(_ keysym: UInt32, modifiers: [UInt32] = []) throws {
        try x.key(keysym: keysym, modifiers: modifiers)
        try sync()
    }

    /// Whether `state` says the focus ring is shown.
    func focusVisible() throws -> Bool? {
        try app.writeLine("state")
        return try app.readEvent(named: "state", timeout: 10)["focusVisible"]?.bool
    }

    /// The id of the focused button from `state`, or nil.
    func focusedButton() throws -> String? {
        try command("state")
        return try app.readEvent(named: "state", timeout: 10)["focused"]?.string
    }
}

/// Keyboard input through xkbcommon-x11: focus, badge keys, demo keys, quitting, layout changes.
@Suite("E2E: keyboard", .endToEnd(minutes: 1))
struct KeyboardTests {
    @Test("A fresh window answers Space at once on the first button, without a ring; a click hides a shown ring")
    func firstButtonHasTheFocusFromTheStart() throws {
        let s = try DemoSession("keys-first")
        try s.focusWindow()
        try s.moveAwayAndSync()
        let before = try s.capture()
        try s.key(Keysym.space)
        let change = try s.nextChange()
        #expect(change["id"]?.string == "bell" && change["content"]?["count"]?.int == 4 && change["cause"]?.string == "key")
        let bell = try s.state().button("bell")
        let edge = PixelRect(x: bell.button.x, y: bell.button.y + bell.button.height / 2, width: 4, height: 4)
        try s.sync()
        #expect(try s.focusVisible() == true, "using a badge key shows the ring, as keyboard use does")
        let ringed = try s.capture()
        expectPixels(ringed.differingPixels(from: before, in: edge, tolerance: 16) > 0, "no ring after keyboard use",
                     images: ["before": before, "ringed": ringed], test: "keys-first-ring")
        try s.click(MouseButton.left, on: "mail")
        _ = try s.nextChange()
        try s.moveAwayAndSync()
        #expect(try s.focusVisible() == false, "a pointer press hides the ring")
        #expect(try s.focusedButton() == "bell", "the focus stays where it was")
        let clicked = try s.capture()
        expectPixels(clicked.differingPixels(from: before, in: edge, tolerance: 16) == 0, "the ring stayed after a click",
                     images: ["before": before, "clicked": clicked], test: "keys-first-click")
    }

    @Test("Tab and Shift+Tab move a visible focus ring; Space, Return, plus +1; minus, BackSpace -1; Delete, 0 clear")
    func focusAndBadgeKeys() throws {
        let s = try DemoSession("keys")
        try s.focusWindow()
        try s.moveAwayAndSync()
        let before = try s.capture()
        // The first button holds the focus from the start, its ring hidden until the keyboard is used.
        #expect(try s.focusedButton() == "bell")
        #expect(try s.focusVisible() == false)
        try s.key(Keysym.tab)
        #expect(try s.focusedButton() == "bell", "the first Tab shows the ring where the focus is")
        #expect(try s.focusVisible() == true)
        let ringed = try s.capture()
        let bell = try s.state().button("bell")
        // The ring is drawn on the button's edge, away from the badge.
        let edge = PixelRect(x: bell.button.x, y: bell.button.y + bell.button.height / 2, width: 4, height: 4)
        expectPixels(ringed.differingPixels(from: before, in: edge, tolerance: 16) > 0, "no focus ring on the bell's left edge",
                     images: ["before": before, "ringed": ringed], test: "keys-ring")
        try s.key(Keysym.tab)
        #expect(try s.focusedButton() == "mail")
        try s.key(Keysym.tab, modifiers: [Keysym.shiftL])
        #expect(try s.focusedButton() == "bell")
        try s.key(Keysym.tab, modifiers: [Keysym.shiftL])
        #expect(try s.focusedButton() == "updates", "Shift+Tab wraps to the last button")
        try s.key(Keysym.tab)
        #expect(try s.focusedButton() == "bell", "Tab wraps to the first button")

        for (keysym, expected) in [(Keysym.space, "4"), (Keysym.returnKey, "5"), (Keysym.plus, "6"),
                                   (Keysym.minus, "5"), (Keysym.backSpace, "4")] {
            try s.key(keysym)
            let change = try s.nextChange(timeout: 2)
            #expect(change["id"]?.string == "bell" && change["cause"]?.string == "key" && change["text"]?.string == expected,
                    "key 0x\(String(keysym, radix: 16)): \(change)")
        }
        try s.key(Keysym.delete)
        let cleared = try s.nextChange()
        #expect(cleared["content"]?["count"]?.int == 0 && cleared["text"]?.string == "", "\(cleared)")
        try s.key(Keysym.plus)
        #expect(try s.nextChange()["text"]?.string == "1")
        try s.key(Keysym.zero)
        #expect(try s.nextChange()["content"]?["count"]?.int == 0)
        #expect(try s.state().button("bell").text == "")
    }

    @Test("Demo keys: t cycles the chat text, b toggles blinking, o overflows mail, r toggles reduced motion")
    func demoKeys() throws {
        let s = try DemoSession("demo-keys", reduceMotion: false)
        try s.focusWindow()
        var texts: [String] = []
        for _ in 0..<3 {
            try s.key(Keysym.t)
            let change = try s.nextChange()
            #expect(change["id"]?.string == "chat" && change["cause"]?.string == "key")
            texts.append(change["content"]?["text"]?.string ?? "")
            if change["content"]?["text"]?.string == "Super long text badge" {
                #expect(change["text"]?.string?.hasSuffix("…") == true, "long text shows truncated: \(change)")
            }
        }
        #expect(texts == ["一个信息", "Super long text badge", "New"])
        try s.key(Keysym.b)
        #expect(try s.nextChange()["content"]?["blink"]?.bool == true)
        try s.key(Keysym.b)
        #expect(try s.nextChange()["content"]?["blink"]?.bool == false)
        try s.key(Keysym.o)
        let overflow = try s.nextChange()
        #expect(overflow["id"]?.string == "mail" && overflow["text"]?.string == "99+" && overflow["content"]?["count"]?.int == 120)
        try s.key(Keysym.o)
        #expect(try s.nextChange()["text"]?.string == "12")
        // Reduced motion: changes land at once, nothing animates; r again brings motion back.
        try s.key(Keysym.r)
        #expect(try s.app.readEvent(named: "motion", timeout: 10)["reduced"]?.bool == true)
        try s.command("inc bell")
        _ = try s.nextChange()
        try s.sync()
        #expect(try !s.state().animating, "a change animated with reduced motion on")
        try s.key(Keysym.r)
        #expect(try s.app.readEvent(named: "motion", timeout: 10)["reduced"]?.bool == false)
        try s.command("inc bell")
        _ = try s.nextChange()
        try s.sync()
        #expect(try s.state().animating, "motion is back on after r")
    }

    @Test("Escape quits with status 0", arguments: ["escape", "ctrl-q"])
    func quitKeys(which: String) throws {
        let s = try DemoSession("quit-\(which)")
        try s.focusWindow()
        if which == "escape" {
            try s.x.key(keysym: Keysym.escape)
        } else {
            try s.x.key(keysym: Keysym.q, modifiers: [Keysym.controlL])
        }
        let status = s.app.waitForExit(timeout: 5)
        #expect(status == .exited(0), "status \(status?.description ?? "still running")")
    }

    @Test("A plain q does not quit; a keyboard layout change (setxkbmap) is honoured",
          .enabled(if: findOnPath("setxkbmap") != nil, "needs setxkbmap (x11-xkb-utils)"))
    func layoutChange() throws {
        let s = try DemoSession("layout")
        try s.focusWindow()
        try s.key(Keysym.q)
        #expect(s.app.waitForExit(timeout: 0) == nil, "q without Control quit the app")
        let setxkbmap = try #require(findOnPath("setxkbmap"))
        try s.key(Keysym.tab)
        #expect(try s.focusedButton() == "bell")
        let usMinus = try #require(try s.x.keycode(forKeysym: Keysym.minus))
        let tool = try ChildProcess(executable: setxkbmap, arguments: ["-display", s.server.display, "fr"])
        #expect(tool.waitForExit(timeout: 10) == .exited(0), "setxkbmap: \(tool.stderrText)")
        let frMinus = try #require(try s.x.keycode(forKeysym: Keysym.minus))
        #expect(frMinus != usMinus, "the French layout moves minus")
        try s.sync()
        // The US minus key is ")" in French: nothing happens. The French minus key lowers the count.
        s.x.fakeKey(press: true, keycode: usMinus)
        s.x.fakeKey(press: false, keycode: usMinus)
        try s.x.sync()
        try s.sync()
        #expect(s.unconsumedChanges().isEmpty, "the US minus key still acted as minus after switching to fr")
        s.x.fakeKey(press: true, keycode: frMinus)
        s.x.fakeKey(press: false, keycode: frMinus)
        try s.x.sync()
        let change = try s.nextChange()
        #expect(change["id"]?.string == "bell" && change["text"]?.string == "2")
    }
}
