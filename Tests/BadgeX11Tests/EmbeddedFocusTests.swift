import BadgeCore
import BadgeDrawing
import CAtspi
import CXCB
import Glibc
import TestSupport
import Testing
import XvfbHarness
@testable import BadgeX11

/// The keyboard in a toolbar embedded in the caller's window: the caller's loop forwards the key
/// presses X sends to its own window, gives the host the focus and gets it back when Tab leaves
/// the toolbar (XEmbed's focus chain); the ring (pixels) and the screen reader's focused state follow.
@Suite("Shell: keyboard and focus of an embedded toolbar", .drawsWithCairo) struct EmbeddedFocusTests {
    /// The caller's loop: the host takes its events, the caller's KeyPress events are forwarded to
    /// it (those it leaves are counted), everything else of the caller's window is answered.
    final class Caller {
        let window: ApplicationWindow
        let host: ToolbarHost
        var keysLeftToCaller = 0
        var focusLeft: [ToolbarHost.FocusDirection] = []
        var focusEntered = 0
        var ready = false

        init(window: ApplicationWindow, host: ToolbarHost) {
            self.window = window
            self.host = host
            host.onEvent = { [unowned self] event in
                switch event {
                case .ready: self.ready = true
                case .focusLeft(let direction): self.focusLeft.append(direction)
                case .focusEntered: self.focusEntered += 1
                default: break
                }
            }
        }

        func mine(_ event: XEvent) {
            if Int32(event.code) == XCB_KEY_PRESS, event.window == window.id {
                if !host.handleKeyPress(event) { keysLeftToCaller += 1 }
                return
            }
            _ = window.handle(event)
        }

        @discardableResult
        func pump(seconds: Double = 10, until done: () -> Bool) throws -> Bool {
            try HostPlacementTests.pump(host, seconds: seconds, mine: mine, until: done)
        }

        /// Until every request so far is processed, its events handled and the frame drawn.
        func settle() throws {
            var synced = false
            host.synchronize { synced = true }
            #expect(try pump { synced }, "synchronize was never answered")
        }

        /// Until every badge animation has ended and the last frame is on the server.
        func still() throws {
            #expect(try pump { host.toolbar.animationEndTime == nil }, "the badges never came to rest")
            try settle()
        }
    }

    static let shiftL: UInt32 = 0xffe1

    /// Which buttons screen readers hear as focused now.
    static func focusedInTree(_ host: ToolbarHost) -> [Int] {
        let tree = host.accessibleTree()
        return host.toolbar.buttons.indices.filter { tree[AccessibleTree.buttonPath($0)]?.has(ATSPI_STATE_FOCUSED) == true }
    }

    /// The caller's window with a child host at its top-left, shown and ready, the caller's
    /// window holding X's focus and the pointer away from both.
    static func embed(_ server: XvfbServer) throws -> (Caller, XTestClient) {
        let x = try XConnection(display: server.display)
        let window = try ApplicationWindow(connection: x, identity: ToolbarHostTests.identity, width: 400, height: 200)
        let (toolbar, renderer) = try ToolbarHostTests.makeToolbar()
        let host = try ToolbarHost(toolbar: toolbar, renderer: renderer, connection: x,
                                   placement: .child(of: window.id, x: 0, y: 0), scale: 1)
        let caller = Caller(window: window, host: host)
        window.map()
        #expect(try caller.pump { caller.ready }, "no ready event")
        let client = try XTestClient(display: server.display)
        try client.movePointerToCorner()
        try client.setInputFocus(window: window.id)
        try caller.settle()
        return (caller, client)
    }

    @Test("Forwarded keys act on the focused button; Tab out either way hands the focus back, and the ring and the tree follow")
    func forwardedKeysAndTheFocusChain() throws {
        let server = try XvfbServer.start()
        let (caller, client) = try Self.embed(server)
        let host = caller.host, toolbar = host.toolbar
        let mail = toolbar.buttons[0], bell = toolbar.buttons[1]
        let bellRect = bell.frame.pixels(scale: 1, rounding: .outward)
        #expect(!host.focusWraps, "a child host hands the focus on by default")
        #expect(!host.hasFocus && !toolbar.focusIsVisible && Self.focusedInTree(host).isEmpty)

        // Without the focus, the toolbar leaves the caller's keys alone.
        try client.key(keysym: KeySymbol.space)
        #expect(try caller.pump { caller.keysLeftToCaller == 1 }, "the key never reached the caller")
        #expect(mail.badge.count == 12)

        // Tab from the caller's previous widget: the first button, with the ring.
        host.focus(from: .forward)
        #expect(host.hasFocus && toolbar.focusedButton === mail && toolbar.focusIsVisible)
        #expect(Self.focusedInTree(host) == [0])
        try client.key(keysym: KeySymbol.space)
        #expect(try caller.pump { mail.badge.count == 13 }, "Space forwarded by the caller did not count: \(mail.badge.count)")
        // The last button as drawn without the ring (once the first one's badge is still: it reaches over).
        try caller.still()
        let unfocused = try client.capture(window: host.window, rect: bellRect)
        try client.key(keysym: KeySymbol.tab)
        #expect(try caller.pump { toolbar.focusedButton === bell }, "Tab did not move the focus")
        #expect(Self.focusedInTree(host) == [1])
        try caller.still()
        let ringed = try client.capture(window: host.window, rect: bellRect)
        let ringPixels = ringed.width * ringed.height - Self.sameCount(ringed, unfocused)
        #expect(ringPixels > 20, "the focus ring changed \(ringPixels) pixels of the focused button")

        // Tab past the last button: the focus goes back to the caller, nothing in the toolbar keeps it.
        try client.key(keysym: KeySymbol.tab)
        #expect(try caller.pump { caller.focusLeft == [.forward] }, "focus left: \(caller.focusLeft)")
        #expect(!host.hasFocus && toolbar.focusedButton == nil && !toolbar.focusIsVisible)
        #expect(Self.focusedInTree(host).isEmpty)
        try caller.still()
        #expect(try client.capture(window: host.window, rect: bellRect) == unfocused, "the ring is still drawn")
        #expect(caller.keysLeftToCaller == 1, "Tab out of the toolbar was the toolbar's key")
        try client.key(keysym: KeySymbol.space)
        #expect(try caller.pump { caller.keysLeftToCaller == 2 })
        #expect(mail.badge.count == 13 && bell.badge.count == 3)

        // Shift+Tab from the caller's next widget: the last button, with the ring as drawn before.
        host.focus(from: .backward)
        #expect(host.hasFocus && toolbar.focusedButton === bell && toolbar.focusIsVisible)
        #expect(Self.focusedInTree(host) == [1])
        try caller.still()
        #expect(try client.capture(window: host.window, rect: bellRect) == ringed, "entering backward shows no ring on the last button")
        try client.key(keysym: KeySymbol.minus)
        #expect(try caller.pump { bell.badge.count == 2 })
        try client.key(keysym: KeySymbol.tab, modifiers: [Self.shiftL])
        #expect(try caller.pump { toolbar.focusedButton === mail }, "Shift+Tab did not move the focus")
        try client.key(keysym: KeySymbol.tab, modifiers: [Self.shiftL])
        #expect(try caller.pump { caller.focusLeft == [.forward, .backward] }, "focus left: \(caller.focusLeft)")
        #expect(!host.hasFocus && toolbar.focusedButton == nil && Self.focusedInTree(host).isEmpty)

        // The caller takes the focus away itself (a click elsewhere): no ring, nothing focused, no event.
        host.focus(from: .forward)
        host.resignFocus()
        #expect(!host.hasFocus && toolbar.focusedButton == nil && !toolbar.focusIsVisible)
        #expect(Self.focusedInTree(host).isEmpty)
        #expect(caller.focusLeft.count == 2)
        #expect(caller.keysLeftToCaller == 4, "Space twice without the focus, and the two Shift presses")
    }

    @Test("X's focus on an embedded toolbar's own window gives it the focus, and leaving takes it away; wrapping is the caller's choice")
    func windowFocusAndWrapping() throws {
        let server = try XvfbServer.start()
        let (caller, client) = try Self.embed(server)
        let host = caller.host, toolbar = host.toolbar

        try client.setInputFocus(window: host.window)
        #expect(try caller.pump { host.hasFocus }, "X's focus on the toolbar's window did not give it the focus")
        #expect(toolbar.focusedButton === toolbar.buttons[0] && Self.focusedInTree(host) == [0])
        #expect(caller.focusEntered == 1, "the caller was not told that X's focus gave the toolbar the focus")
        try client.setInputFocus(window: caller.window.id)
        #expect(try caller.pump { !host.hasFocus }, "X's focus left, the toolbar kept it")
        #expect(toolbar.focusedButton == nil && Self.focusedInTree(host).isEmpty)

        // A caller that wants the focus to stay in the toolbar: Tab goes round, nothing is reported.
        host.focusWraps = true
        host.focus(from: .backward)
        #expect(caller.focusEntered == 1, "focus(from:) is the caller's own call: not reported")
        try client.key(keysym: KeySymbol.tab)
        #expect(try caller.pump { toolbar.focusedButton === toolbar.buttons[0] }, "Tab did not wrap to the first button")
        #expect(caller.focusLeft.isEmpty && host.hasFocus && toolbar.focusIsVisible)
        // Keys the toolbar has no use for stay the caller's.
        try client.key(keysym: KeySymbol.q)
        #expect(try caller.pump { caller.keysLeftToCaller == 1 })
        #expect(host.handleKeyPress(KeyPress(symbol: KeySymbol.space, text: " ", control: true, shift: false)) == false,
                "Control+Space is no toolbar key")
    }

    @Test("With X's focus on the toolbar's own window, Tab out hands the focus back for good: later keys do nothing, X's focus leaving leaves no ring; a new child host focuses no button")
    func tabOutWithXFocusOnTheToolbar() throws {
        let server = try XvfbServer.start()
        let (caller, client) = try Self.embed(server)
        let host = caller.host, toolbar = host.toolbar
        // Issue 28: a new child host's first button had the focus while the host had none.
        #expect(toolbar.buttons.allSatisfy { !$0.isFocused } && toolbar.focusedButton == nil)

        try client.setInputFocus(window: host.window)
        #expect(try caller.pump { host.hasFocus }, "X's focus on the toolbar's window did not give it the focus")
        // The first Tab shows the ring where the focus is, the others move it, the last leaves.
        for _ in 0...toolbar.buttons.count {
            try client.key(keysym: KeySymbol.tab)
            try caller.settle()
        }
        #expect(caller.focusLeft == [.forward], "focus left: \(caller.focusLeft)")
        #expect(!host.hasFocus && toolbar.focusedButton == nil && !toolbar.focusIsVisible)
        // X's focus is still on the toolbar's window: another Tab and a Space must not bring the
        // focus back behind the caller's back (the ring drawn, a badge counted, no event).
        let counts = toolbar.buttons.map(\.badge.count)
        try client.key(keysym: KeySymbol.tab)
        try client.key(keysym: KeySymbol.space)
        try caller.settle()
        #expect(!host.hasFocus && toolbar.focusedButton == nil && !toolbar.focusIsVisible,
                "a key on the toolbar's window took the focus back: focused \(toolbar.focusedButton.map { "\($0.id)" } ?? "none")")
        #expect(toolbar.buttons.map(\.badge.count) == counts, "a key without the focus changed a badge")
        #expect(caller.focusLeft == [.forward])

        // The caller's window takes X's focus back (its own call): nothing of the toolbar stays
        // focused or ringed.
        host.focus(from: .forward)
        caller.window.takeInputFocus()
        try host.connection.flush()
        #expect(try caller.pump { !host.hasFocus }, "X's focus left, the toolbar kept it")
        #expect(toolbar.focusedButton == nil && !toolbar.focusIsVisible && Self.focusedInTree(host).isEmpty)
    }

    /// How many pixels of `a` equal those of `b` (same size).
    static func sameCount(_ a: CapturedImage, _ b: CapturedImage) -> Int {
        var same = 0
        a.forEachPixel { x, y, colour in if colour == b.pixel(x: x, y: y) { same += 1 } }
        return same
    }
}
