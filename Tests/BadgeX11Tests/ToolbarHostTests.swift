import BadgeCore
import BadgeDrawing
import Glibc
import TestSupport
import Testing
import XvfbHarness
@testable import BadgeX11

/// The shell in-process, under a private Xvfb: a host in a window of its own and as a child of
/// someone else's window, driven by the caller's own poll() loop, with XTEST input and pixels
/// read back with GetImage.
@Suite("Shell: ToolbarHost under Xvfb", .drawsWithCairo) struct ToolbarHostTests {
    static let identity = ApplicationIdentity(instanceName: "mail-client", className: "MailClient", title: "Inbox",
                                              desktopFileID: "org.example.MailClient", iconName: "mail")
    static let badgeRed = RGB(r: 0xFF, g: 0x3B, b: 0x30)

    /// A two-button toolbar (mail 12, bell 3) and its renderer.
    static func makeToolbar(clock: any BadgeClock = SystemClock()) throws -> (Toolbar, ToolbarRenderer) {
        let text = try TextLayouts()
        let renderer = ToolbarRenderer(theme: .light, text: text, icons: try IconLibrary())
        let toolbar = Toolbar(buttons: [
            ToolbarButton(id: "mail", iconName: "mail",
                          badge: BadgeController(accessibilityLabel: "Mail", content: .count(12), clock: clock, measurer: text)),
            ToolbarButton(id: "bell", iconName: "bell",
                          badge: BadgeController(accessibilityLabel: "Alerts", content: .count(3), clock: clock, measurer: text)),
        ])
        return (toolbar, renderer)
    }

    /// The caller's loop: poll the connection for at most the host's timeout, hand every event to
    /// the host, refresh; until `done` or `seconds` pass. Returns whether `done` became true.
    @discardableResult
    static func pump(_ host: ToolbarHost, seconds: Double = 10, until done: () -> Bool) throws -> Bool {
        let deadline = Deadline(seconds: seconds)
        while !done() {
            if deadline.hasPassed { return false }
            while let event = host.connection.nextEvent() { host.handle(event) }
            try host.refresh()
            if done() { break }
            if let event = host.connection.nextQueuedEvent() {
                host.handle(event)
                continue
            }
            var fds = [pollfd(fd: host.connection.fileDescriptor, events: Int16(POLLIN), revents: 0)]
            let timeout = host.pollTimeout < 0 ? deadline.remainingMilliseconds : min(host.pollTimeout, deadline.remainingMilliseconds)
            _ = poll(&fds, 1, timeout)
        }
        return true
    }

    @Test("A top-level host carries the caller's identity, title, icon and badges")
    func topLevelIdentity() throws {
        let server = try XvfbServer.start()
        let x = try XConnection(display: server.display)
        let (toolbar, renderer) = try Self.makeToolbar()
        let host = try ToolbarHost(toolbar: toolbar, renderer: renderer, connection: x, placement: .topLevel(Self.identity), scale: 1)
        var ready = false
        host.onEvent = { if case .ready = $0 { ready = true } }
        #expect(try Self.pump(host) { ready }, "no ready event")
        let client = try XTestClient(display: server.display)
        #expect(try client.property(window: host.window, name: "WM_CLASS")?.bytes == Array("mail-client\0MailClient\0".utf8))
        #expect(try client.property(window: host.window, name: "_NET_WM_NAME")?.string == "(15) Inbox")
        #expect(host.windowState?.title == "(15) Inbox" && host.windowState?.iconBadge == "15")
        let icon = try client.cardinals(window: host.window, name: "_NET_WM_ICON")
        #expect(icon.count == 16 * 16 + 32 * 32 + 48 * 48 + 6, "three icon sizes")
        let hints = try client.cardinals(window: host.window, name: "WM_HINTS")
        #expect(hints.count == 9 && hints[0] & 1 == 1 && hints[1] == 1, "input hint set")
        let image = try client.capture(window: host.window)
        #expect(image.count(near: Self.badgeRed, tolerance: 40) > 50, "no badge red in the window")
        #expect(!host.windowHasFocus && !host.isUrgent)
    }

    @Test("Embedded as a child of another client's window, in the caller's loop: clicks count and pixels show")
    func childInCallersLoop() throws {
        let server = try XvfbServer.start()
        let parent = try TestWindow(display: server.display, x: 20, y: 30, width: 400, height: 200, background: RGB(hex: 0x336699))
        let x = try XConnection(display: server.display)
        let (toolbar, renderer) = try Self.makeToolbar()
        let host = try ToolbarHost(toolbar: toolbar, renderer: renderer, connection: x,
                                   placement: .child(of: parent.window, x: 0, y: 40), scale: 1)
        var ready = false
        var changes: [(String, ChangeCause, Int)] = []
        host.onEvent = { event in
            switch event {
            case .ready: ready = true
            case .badgeChanged(let button, let cause): changes.append((button.id, cause, button.badge.count))
            default: break
            }
        }
        #expect(try Self.pump(host) { ready })
        let client = try XTestClient(display: server.display)
        #expect(try client.parent(ofWindow: host.window) == parent.window)
        #expect(try client.property(window: host.window, name: "WM_CLASS") == nil, "a child window carries no identity")
        #expect(host.windowState == nil)
        // The parent's own pixels stay around the toolbar; the toolbar shows its badges.
        let whole = try client.capture(window: parent.window)
        #expect(whole.pixel(x: 5, y: 5).isClose(to: RGB(hex: 0x336699), tolerance: 8))
        let strip = PixelRect(x: 0, y: 40, width: host.size.width, height: host.size.height)
        #expect(whole.count(near: Self.badgeRed, tolerance: 40, in: strip) > 50)
        // A click on the mail button adds one, exactly once; the badge is repainted.
        let before = try client.capture(window: host.window)
        let mail = toolbar.buttons[0].frame.pixels(scale: 1, rounding: .nearest)
        try client.click(button: 1, atRoot: try client.rootPoint(inWindow: host.window, x: mail.center.x, y: mail.center.y))
        #expect(try Self.pump(host) { !changes.isEmpty && toolbar.animationEndTime.map { $0 <= SystemClock().now } != false })
        var synced = false
        host.synchronize { synced = true }
        try Self.pump(host) { synced }
        #expect(changes.count == 1 && changes.first?.0 == "mail" && changes.first?.1 == .click && changes.first?.2 == 13)
        let after = try client.capture(window: host.window)
        #expect(after.differingPixels(from: before, tolerance: 24) > 0, "the badge was not repainted")
        #expect(!host.isUrgent, "a child window never asks for attention itself")
    }

    @Test("A host grows with its child window and stays idle between events")
    func resizeAndIdle() throws {
        let server = try XvfbServer.start()
        let parent = try TestWindow(display: server.display, width: 500, height: 120)
        let x = try XConnection(display: server.display)
        let (toolbar, renderer) = try Self.makeToolbar()
        let host = try ToolbarHost(toolbar: toolbar, renderer: renderer, connection: x, placement: .child(of: parent.window, x: 0, y: 0))
        var ready = false
        host.onEvent = { if case .ready = $0 { ready = true } }
        #expect(try Self.pump(host) { ready })
        #expect(host.pollTimeout == -1, "idle: nothing to wake up for")
        host.requestSize(width: 480, height: host.size.height)
        #expect(try Self.pump(host) { host.size.width == 480 })
        #expect(toolbar.bounds.width == 480)
        // An animation asks for frames at 60 Hz: the timeout is at most one frame away.
        host.change(toolbar.buttons[1], cause: .control) { $0.increment() }
        #expect((0...17).contains(host.pollTimeout))
    }

    @Test("Typed errors: no display, a display that is not there, a window that does not exist")
    func typedErrors() throws {
        #expect(throws: X11Error.noDisplay) { _ = try XConnection(display: "") }
        do {
            _ = try XConnection(display: ":9876")
            Issue.record("connected to a display that does not exist")
        } catch {
            guard case .cannotOpenDisplay(":9876", let reason) = error else { Issue.record("\(error)"); return }
            #expect(!reason.isEmpty)
        }
        let server = try XvfbServer.start()
        let x = try XConnection(display: server.display)
        let (toolbar, renderer) = try Self.makeToolbar()
        #expect(throws: X11Error.noSuchWindow(0x7ff_fff0)) {
            _ = try ToolbarHost(toolbar: toolbar, renderer: renderer, connection: x, placement: .child(of: 0x7ff_fff0, x: 0, y: 0))
        }
        // The connection still works after the refusal.
        #expect(x.failure == nil)
        let host = try ToolbarHost(toolbar: toolbar, renderer: renderer, connection: x, placement: .topLevel(Self.identity))
        #expect(host.isAttached)
    }

    @Test("The parent destroyed while hosted: a clean detach that keeps the counts")
    func parentDestroyed() throws {
        let server = try XvfbServer.start()
        var parent: TestWindow? = try TestWindow(display: server.display, width: 400, height: 100)
        let x = try XConnection(display: server.display)
        let (toolbar, renderer) = try Self.makeToolbar()
        let host = try ToolbarHost(toolbar: toolbar, renderer: renderer, connection: x,
                                   placement: .child(of: parent?.window ?? 0, x: 0, y: 0))
        var ready = false, detached = 0
        host.onEvent = { event in
            if case .ready = event { ready = true }
            if case .detached = event { detached += 1 }
        }
        #expect(try Self.pump(host) { ready })
        parent = nil  // its connection closes: the server destroys the window and ours inside it
        #expect(try Self.pump(host) { detached > 0 })
        #expect(!host.isAttached && detached == 1)
        host.change(toolbar.buttons[0], cause: .control) { $0.increment() }
        try host.refresh()  // nothing to draw into, and no error
        #expect(toolbar.buttons[0].badge.count == 13 && toolbar.buttons[1].badge.count == 3)
        var synced = false
        host.synchronize { synced = true }
        try host.refresh()
        #expect(synced, "a sync is still answered once detached")
    }

    @Test("A broken connection is a typed error, in init and in refresh, never a trap")
    func brokenConnection() throws {
        let server = try XvfbServer.start()
        let x = try XConnection(display: server.display)
        let (toolbar, renderer) = try Self.makeToolbar()
        let host = try ToolbarHost(toolbar: toolbar, renderer: renderer, connection: x, placement: .topLevel(Self.identity))
        server.kill()
        var lost: X11Error?
        let deadline = Deadline(seconds: 10)
        while lost == nil, !deadline.hasPassed {
            do {
                try Self.pump(host, seconds: 0.2) { false }
            } catch {
                lost = error as? X11Error
            }
        }
        guard case .connectionLost(let display, _) = lost else { Issue.record("expected connectionLost, got \(String(describing: lost))"); return }
        #expect(display == server.display)
        #expect(throws: X11Error.self) {
            _ = try ToolbarHost(toolbar: toolbar, renderer: renderer, connection: x, placement: .topLevel(Self.identity))
        }
    }

    @Test("In BadgeKit's loop: the window manager's close button ends run()")
    func ownLoopEndsOnClose() throws {
        let server = try XvfbServer.start()
        let x = try XConnection(display: server.display)
        let (toolbar, renderer) = try Self.makeToolbar()
        let host = try ToolbarHost(toolbar: toolbar, renderer: renderer, connection: x, placement: .topLevel(Self.identity))
        let loop = EventLoop()
        host.attach(to: loop)
        #expect(loop.names.sources == ["x11"] && loop.names.preparations == ["toolbar"] && loop.names.deadlines == ["toolbar"])
        var closed = false
        let display = server.display
        // Unowned: the host keeps its handler, and a strong reference back would keep the host,
        // its connection and (through it) the server alive after the test.
        host.onEvent = { [unowned host] event in
            if case .ready = event, let client = try? XTestClient(display: display) {
                try? client.sendDeleteWindow(window: host.window)
            }
            if case .closeRequested = event {
                closed = true
                loop.stop()
            }
        }
        try loop.run()
        #expect(closed)
    }
}
