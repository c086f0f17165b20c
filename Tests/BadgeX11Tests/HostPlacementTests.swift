import BadgeCore
import BadgeDrawing
import Glibc
import TestSupport
import Testing
import XvfbHarness
@testable import BadgeX11

/// Hosts placed from code (move, resize, show, hide, close; `frame`), on a connection the caller
/// brought (`XConnection.withAdopted`), tooltips with the application's identity, and an
/// `ApplicationWindow` resized and moved from code: each checked with what the server says.
@Suite("Shell: placing hosts, adopted connections", .drawsWithCairo) struct HostPlacementTests {
    static let identity = ToolbarHostTests.identity
    static let badgeRed = ToolbarHostTests.badgeRed
    static let parentColour = RGB(hex: 0x336699)

    /// The caller's loop (as ToolbarHostTests.pump), with the events the host leaves to the caller.
    @discardableResult
    static func pump(_ host: ToolbarHost, seconds: Double = 10, mine: (XEvent) -> Void = { _ in },
                     until done: () -> Bool) throws -> Bool {
        let deadline = Deadline(seconds: seconds)
        while !done() {
            if deadline.hasPassed { return false }
            while let event = host.connection.nextEvent() { if !host.handle(event) { mine(event) } }
            try host.refresh()
            if done() { break }
            if let event = host.connection.nextQueuedEvent() {
                if !host.handle(event) { mine(event) }
                continue
            }
            var fds = [pollfd(fd: host.connection.fileDescriptor, events: Int16(POLLIN), revents: 0)]
            let timeout = host.pollTimeout < 0 ? deadline.remainingMilliseconds : min(host.pollTimeout, deadline.remainingMilliseconds)
            _ = poll(&fds, 1, timeout)
        }
        return true
    }

    /// Until every request so far is processed, its events handled and the frame drawn.
    static func settle(_ host: ToolbarHost, mine: (XEvent) -> Void = { _ in }) throws {
        var synced = false
        host.synchronize { synced = true }
        #expect(try pump(host, mine: mine) { synced }, "synchronize was never answered")
    }

    @Test("A child host moves, resizes, hides, shows and closes, as the server sees it")
    func childPlacement() throws {
        let server = try XvfbServer.start()
        let parent = try TestWindow(display: server.display, x: 20, y: 30, width: 400, height: 200, background: Self.parentColour)
        let x = try XConnection(display: server.display)
        let (toolbar, renderer) = try ToolbarHostTests.makeToolbar()
        let host = try ToolbarHost(toolbar: toolbar, renderer: renderer, connection: x,
                                   placement: .child(of: parent.window, x: 0, y: 40), scale: 1)
        var ready = false, detached = 0
        host.onEvent = { event in
            if case .ready = event { ready = true }
            if case .detached = event { detached += 1 }
        }
        #expect(try Self.pump(host) { ready })
        let client = try XTestClient(display: server.display)
        let size = host.size
        #expect(host.frame == PixelRect(x: 0, y: 40, width: size.width, height: size.height))
        #expect(try client.frame(ofWindow: host.window) == host.frame)
        #expect(host.isMapped)

        // Move: the frame says so at once, the server agrees, and the toolbar's pixels follow.
        host.move(x: 30, y: 110)
        #expect(host.frame.x == 30 && host.frame.y == 110, "frame: \(host.frame)")
        try Self.settle(host)
        #expect(try client.frame(ofWindow: host.window) == PixelRect(x: 30, y: 110, width: size.width, height: size.height))
        #expect(host.frame == PixelRect(x: 30, y: 110, width: size.width, height: size.height))
        var whole = try client.capture(window: parent.window)
        #expect(whole.pixel(x: 5, y: 45).isClose(to: Self.parentColour, tolerance: 8), "the old place shows the parent again")
        #expect(whole.count(near: Self.badgeRed, tolerance: 40, in: PixelRect(x: 30, y: 110, width: size.width, height: size.height)) > 50)

        // Resize: the server and the layout follow.
        host.resize(width: 300, height: size.height)
        #expect(host.frame.width == 300)
        #expect(try Self.pump(host) { host.size.width == 300 })
        #expect(try client.frame(ofWindow: host.window).width == 300 && toolbar.bounds.width == 300)

        // Another client moves it: the frame follows the ConfigureNotify.
        try client.move(window: host.window, x: 12, y: 7)
        #expect(try Self.pump(host) { host.frame.x == 12 && host.frame.y == 7 }, "frame: \(host.frame)")
        #expect(host.frame.width == 300)

        // Hide and show: the map state on the server, and the pixels.
        host.hide()
        #expect(try Self.pump(host) { !host.isMapped })
        #expect(try !client.isViewable(window: host.window))
        whole = try client.capture(window: parent.window)
        #expect(whole.count(near: Self.badgeRed, tolerance: 40) == 0, "a hidden toolbar leaves no badge")
        host.show()
        #expect(try Self.pump(host) { host.isMapped })
        try Self.settle(host)
        #expect(try client.isViewable(window: host.window))
        whole = try client.capture(window: parent.window)
        #expect(whole.count(near: Self.badgeRed, tolerance: 40, in: PixelRect(x: 12, y: 7, width: 300, height: size.height)) > 50)

        // Close: gone on the server, detached once, nothing of the closed window reaches the caller.
        let window = host.window
        host.close()
        #expect(detached == 1 && !host.isAttached && !host.isMapped)
        #expect(try !client.exists(window: window))
        var strays = 0
        try Self.settle(host) { event in if event.window == window { strays += 1 } }
        #expect(strays == 0, "events of the closed window went to the caller")
        host.close()
        host.move(x: 0, y: 0)
        #expect(detached == 1, "closing again reports nothing")
        whole = try client.capture(window: parent.window)
        #expect(whole.count(near: Self.badgeRed, tolerance: 40) == 0)
        #expect(toolbar.buttons[0].badge.count == 12, "the toolbar keeps its counts")
    }

    @Test("A top-level host moves and resizes without a window manager, and hide withdraws it")
    func topLevelPlacement() throws {
        let server = try XvfbServer.start()
        let x = try XConnection(display: server.display)
        let (toolbar, renderer) = try ToolbarHostTests.makeToolbar()
        let host = try ToolbarHost(toolbar: toolbar, renderer: renderer, connection: x, placement: .topLevel(Self.identity), scale: 1)
        var ready = false
        host.onEvent = { if case .ready = $0 { ready = true } }
        #expect(try Self.pump(host) { ready })
        let client = try XTestClient(display: server.display)
        host.move(x: 50, y: 60)
        host.resize(width: 320, height: host.size.height + 10)
        try Self.settle(host)
        #expect(try client.rootPosition(ofWindow: host.window) == (50, 60))
        #expect(host.frame == PixelRect(x: 50, y: 60, width: 320, height: host.size.height) && host.size.width == 320)
        #expect(try client.frame(ofWindow: host.window) == host.frame)
        host.hide()
        #expect(try Self.pump(host) { !host.isMapped })
        #expect(try !client.isViewable(window: host.window))
        host.show()
        #expect(try Self.pump(host) { host.isMapped })
        #expect(try client.isViewable(window: host.window))
    }

    @Test("A host on a connection the caller brought: it draws, keeps the caller's root events, and leaves the connection open")
    func adoptedConnection() throws {
        let server = try XvfbServer.start()
        let caller = try CallerConnection(display: server.display)
        try caller.selectRootEvents(CallerConnection.substructureNotify)
        let window = try caller.createWindow(x: 10, y: 10, width: 360, height: 120, background: Self.parentColour)
        let client = try XTestClient(display: server.display)
        var hostWindow: UInt32 = 0
        let drawn = try XConnection.withAdopted(unsafeConnection: caller.unsafeConnection, screen: caller.screen,
                                                displayName: server.display) { x -> Int in
            #expect(x.root == client.root && x.displayName == server.display)
            let (toolbar, renderer) = try ToolbarHostTests.makeToolbar()
            let host = try ToolbarHost(toolbar: toolbar, renderer: renderer, connection: x,
                                       placement: .child(of: window, x: 0, y: 30), scale: 1)
            var ready = false
            host.onEvent = { if case .ready = $0 { ready = true } }
            #expect(try Self.pump(host) { ready })
            hostWindow = host.window
            let whole = try client.capture(window: window)
            #expect(whole.pixel(x: 3, y: 3).isClose(to: Self.parentColour, tolerance: 8))
            return whole.count(near: Self.badgeRed, tolerance: 40,
                               in: PixelRect(x: 0, y: 30, width: host.size.width, height: host.size.height))
        }
        #expect(drawn > 50, "the toolbar drew no badge in the caller's window")
        // The host's window went with the host; the caller's connection, window and root events did not.
        // The destroy was flushed on the caller's connection: a round trip there first, so the
        // server has processed it before another client asks.
        #expect(caller.roundTripSucceeds(), "the caller's connection was closed or broken")
        #expect(try !client.exists(window: hostWindow))
        #expect(try client.exists(window: window), "the caller's window is gone: its connection was closed")
        #expect(try caller.rootEventMask() & CallerConnection.substructureNotify != 0, "the caller's root events were replaced")
        // A screen the server does not have is a typed error, and the connection stays the caller's.
        #expect(throws: X11Error.self) {
            try XConnection.withAdopted(unsafeConnection: caller.unsafeConnection, screen: 5) { _ in }
        }
        #expect(caller.roundTripSucceeds())
    }

    @Test("A child host given the application's identity gives its tooltip that WM_CLASS")
    func childTooltipIdentity() throws {
        let server = try XvfbServer.start()
        let parent = try TestWindow(display: server.display, width: 400, height: 100)
        let x = try XConnection(display: server.display)
        let (toolbar, renderer) = try ToolbarHostTests.makeToolbar()
        let host = try ToolbarHost(toolbar: toolbar, renderer: renderer, connection: x,
                                   placement: .child(of: parent.window, x: 0, y: 0, identity: Self.identity), scale: 1)
        var ready = false
        host.onEvent = { if case .ready = $0 { ready = true } }
        #expect(try Self.pump(host) { ready })
        let client = try XTestClient(display: server.display)
        let mail = toolbar.buttons[0].frame.pixels(scale: 1, rounding: .nearest)
        try client.move(toRoot: try client.rootPoint(inWindow: host.window, x: mail.center.x, y: mail.center.y))
        #expect(try Self.pump(host) { host.tooltip != nil }, "no tooltip")
        let tooltip = try #require(host.tooltip)
        #expect(try client.property(window: tooltip.window, name: "WM_CLASS")?.bytes == Array("mail-client\0MailClient\0".utf8))
        #expect(try client.property(window: host.window, name: "WM_CLASS") == nil, "the child window itself carries none")
    }

    @Test("An ApplicationWindow resized and moved from code")
    func applicationWindowPlacement() throws {
        let server = try XvfbServer.start()
        let x = try XConnection(display: server.display)
        let window = try ApplicationWindow(connection: x, identity: Self.identity, width: 200, height: 100)
        window.map()
        window.resize(width: 320, height: 150)
        window.move(x: 40, y: 50)
        try x.flush()
        var resized: ApplicationWindow.Event?
        let deadline = Deadline(seconds: 10)
        while resized == nil, !deadline.hasPassed {
            while let event = x.nextEvent() {
                if let what = window.handle(event), case .resized = what { resized = what }
            }
            if resized != nil { break }
            var fds = [pollfd(fd: x.fileDescriptor, events: Int16(POLLIN), revents: 0)]
            _ = poll(&fds, 1, deadline.remainingMilliseconds)
        }
        #expect(resized == .resized(width: 320, height: 150), "resized: \(String(describing: resized))")
        #expect(window.width == 320 && window.height == 150)
        let client = try XTestClient(display: server.display)
        #expect(try client.frame(ofWindow: window.id) == PixelRect(x: 40, y: 50, width: 320, height: 150))
    }
}
