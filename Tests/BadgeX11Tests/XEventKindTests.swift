import BadgeCore
import CXCB
import Glibc
import TestSupport
import Testing
import XvfbHarness
@testable import BadgeX11

/// Typed events (issue 28), each built from a real server event: XTEST input, a second client's
/// requests, the app's own requests; and events an app polled itself on an adopted connection,
/// handed to two hosts.
@Suite("Shell: typed events for the application", .drawsWithCairo) struct XEventKindTests {
    /// The app's side: its connection and window, with SubstructureNotify added so that children
    /// created and reparented into it are reported.
    final class App {
        let connection: XConnection
        let window: ApplicationWindow
        var seen: [XEvent.Kind] = []

        init(display: String) throws {
            connection = try XConnection(display: display)
            window = try ApplicationWindow(connection: connection, identity: ToolbarHostTests.identity, width: 200, height: 100)
            var mask = [WindowSurface.eventMask | XCB_EVENT_MASK_SUBSTRUCTURE_NOTIFY.rawValue]
            xcb_change_window_attributes(connection.handle, window.id, XCB_CW_EVENT_MASK.rawValue, &mask)
            window.map()
            try connection.flush()
        }

        /// Reads events until one matches `wanted` (10 s); returns it.
        func next(_ what: String, _ wanted: (XEvent.Kind) -> Bool) throws -> XEvent.Kind {
            let deadline = Deadline(seconds: 10)
            while !deadline.hasPassed {
                while let event = connection.nextEvent() {
                    let kind = event.kind
                    seen.append(kind)
                    if wanted(kind) { return kind }
                }
                var entry = pollfd(fd: connection.fileDescriptor, events: Int16(POLLIN), revents: 0)
                _ = poll(&entry, 1, 50)
            }
            throw HarnessError("no \(what) event; seen: \(seen)")
        }
    }

    @Test("Expose, Configure, Map, Unmap, Create, Reparent, Destroy, crossing, buttons, motion, keys, focus, property, client message and errors carry their fields")
    func everyKind() throws {
        let server = try XvfbServer.start()
        let app = try App(display: server.display)
        let id = app.window.id
        let client = try XTestClient(display: server.display)

        // Mapping: MapNotify naming the window twice (StructureNotify), then Expose inside it.
        #expect(try app.next("map") { if case .map(let s) = $0 { s.window == id } else { false } } == .map(.init(event: id, window: id)))
        guard case .expose(let exposed, let area, let remaining) = try app.next("expose", { if case .expose = $0 { true } else { false } }) else {
            Issue.record("no expose"); return
        }
        #expect(exposed == id && area.x >= 0 && area.y >= 0 && area.x + area.width <= 200 && area.y + area.height <= 100 && remaining >= 0)

        // Another client moves and resizes it: ConfigureNotify with the new geometry.
        try client.move(window: id, x: 30, y: 40)
        try client.resize(window: id, width: 150, height: 60)
        guard case .configure(let configure) = try app.next("configure", {
            if case .configure(let c) = $0 { c.window == id && c.frame.width == 150 } else { false }
        }) else { return }
        #expect(configure.event == id && configure.frame == PixelRect(x: 30, y: 40, width: 150, height: 60) && !configure.overrideRedirect)

        // XTEST: the pointer moves into the window, a button goes down and up.
        let point = try client.rootPoint(inWindow: id, x: 10, y: 20)
        try client.move(toRoot: point)
        guard case .enter(let enter) = try app.next("enter", { if case .enter(let e) = $0 { e.window == id } else { false } }) else { return }
        #expect(enter.x == 10 && enter.y == 20 && enter.button == 0)
        guard case .motion(let motion) = try app.next("motion", { if case .motion = $0 { true } else { false } }) else { return }
        #expect(motion.window == id && motion.x == 10 && motion.y == 20 && motion.rootX == point.x && motion.rootY == point.y && motion.button == 0)
        try client.press(button: 3)
        guard case .buttonPress(let press) = try app.next("button press", { if case .buttonPress = $0 { true } else { false } }) else { return }
        #expect(press.window == id && press.button == 3 && press.x == 10 && press.y == 20 && press.time != 0)
        try client.release(button: 3)
        guard case .buttonRelease(let release) = try app.next("button release", { if case .buttonRelease = $0 { true } else { false } }) else { return }
        #expect(release.button == 3 && release.state & UInt16(XCB_BUTTON_MASK_3.rawValue) != 0, "the release's state holds the button")

        // Focus, then a key.
        try client.setInputFocus(window: id)
        guard case .focusIn(let focus) = try app.next("focus in", { if case .focusIn(let f) = $0 { f.window == id } else { false } }) else { return }
        #expect(focus.mode == UInt8(XCB_NOTIFY_MODE_NORMAL.rawValue))
        let space = try #require(try client.keycode(forKeysym: KeySymbol.space))
        try client.key(keysym: KeySymbol.space)
        guard case .keyPress(let key) = try app.next("key press", { if case .keyPress = $0 { true } else { false } }) else { return }
        #expect(key.window == id && key.keycode == space && key.state == 0)
        #expect(try app.next("key release") { if case .keyRelease(let k) = $0 { k.keycode == space } else { false } } != .other(code: 0))
        try client.movePointerToCorner()
        #expect(try app.next("leave") { if case .leave(let l) = $0 { l.window == id } else { false } } != .other(code: 0))
        try client.setInputFocus(window: client.root)
        #expect(try app.next("focus out") { if case .focusOut(let f) = $0 { f.window == id } else { false } } != .other(code: 0))

        // A property set by another client; WM_DELETE_WINDOW as the window manager sends it.
        try client.setStringProperty(window: id, name: "BADGEKIT_TEST", value: "x")
        let atom = try client.atom("BADGEKIT_TEST")
        guard case .property(let property) = try app.next("property", { if case .property(let p) = $0 { p.atom == atom } else { false } }) else { return }
        #expect(property.window == id && !property.deleted && property.time != 0)
        try client.sendDeleteWindow(window: id)
        guard case .clientMessage(let message) = try app.next("client message", { if case .clientMessage = $0 { true } else { false } }) else { return }
        let protocols = try client.atom("WM_PROTOCOLS"), delete = try client.atom("WM_DELETE_WINDOW")
        #expect(message.window == id && message.format == 32 && message.type == protocols)
        #expect(message.data32.count == 5 && message.data32.first == delete)

        // A child made in the window (CreateNotify to the parent), one moved into it from the root
        // (ReparentNotify), and destroyed (DestroyNotify naming the child, reported to the parent).
        let child = app.connection.generateID()
        xcb_create_window(app.connection.handle, UInt8(XCB_COPY_FROM_PARENT), child, id, 5, 6, 7, 8, 0,
                          UInt16(XCB_WINDOW_CLASS_INPUT_OUTPUT.rawValue), UInt32(XCB_COPY_FROM_PARENT), 0, nil)
        try app.connection.flush()
        #expect(try app.next("create") { if case .create = $0 { true } else { false } }
                == .create(.init(parent: id, window: child, frame: PixelRect(x: 5, y: 6, width: 7, height: 8), borderWidth: 0, overrideRedirect: false)))
        let other = try CallerConnection(display: server.display)
        let stray = try other.createWindow(x: 0, y: 0, width: 20, height: 20, background: RGB(hex: 0x00ff00))
        xcb_reparent_window(app.connection.handle, stray, id, 3, 4)
        try app.connection.flush()
        #expect(try app.next("reparent") { if case .reparent = $0 { true } else { false } }
                == .reparent(.init(event: id, window: stray, parent: id, x: 3, y: 4)))
        try client.destroy(window: child)
        #expect(try app.next("destroy") { if case .destroy(let d) = $0 { d.window == child } else { false } }
                == .destroy(.init(event: id, window: child)))
        try client.unmap(window: id)
        #expect(try app.next("unmap") { if case .unmap(let u) = $0 { u.window == id } else { false } } == .unmap(.init(event: id, window: id)))

        // A request on a window that does not exist: the error, typed.
        let missing: UInt32 = 0x1f_ffff
        xcb_map_window(app.connection.handle, missing)
        try app.connection.flush()
        #expect(try app.next("error") { if case .error = $0 { true } else { false } }
                == .error(.init(code: 3, resource: missing, majorOpcode: UInt8(XCB_MAP_WINDOW), minorOpcode: 0)))
    }

    @Test("Events an app polls itself on an adopted connection, wrapped with XEvent(adopting:), drive two hosts")
    func adoptedConnectionPolledByTheApp() throws {
        let server = try XvfbServer.start()
        let caller = try CallerConnection(display: server.display)
        let parent = try caller.createWindow(x: 0, y: 0, width: 400, height: 120, background: RGB(hex: 0x336699))
        let client = try XTestClient(display: server.display)
        try XConnection.withAdopted(unsafeConnection: caller.unsafeConnection, screen: caller.screen,
                                    displayName: server.display) { x in
            let hosts = try [0, 60].map { y -> ToolbarHost in
                let (toolbar, renderer) = try ToolbarHostTests.makeToolbar()
                return try ToolbarHost(toolbar: toolbar, renderer: renderer, connection: x, placement: .child(of: parent, x: 0, y: y), scale: 1)
            }
            var ready = 0, mine: [XEvent.Kind] = []
            for host in hosts { host.onEvent = { if case .ready = $0 { ready += 1 } } }
            func give(_ event: XEvent) {
                if !hosts.contains(where: { $0.handle(event) }) { mine.append(event.kind) }
            }
            let deadline = Deadline(seconds: 10)
            while ready < 2, !deadline.hasPassed {
                // What BadgeKit read on the app's behalf while it waited for the server comes first.
                while x.hasEventsSetAside, let event = x.nextQueuedEvent() { give(event) }
                // Then the app's own poll on its own connection.
                while let raw = xcb_poll_for_event(caller.unsafeConnection) { give(XEvent(adopting: UnsafeMutableRawPointer(raw))) }
                for host in hosts { try host.refresh() }
                var entry = pollfd(fd: x.fileDescriptor, events: Int16(POLLIN), revents: 0)
                let timeouts = hosts.map(\.pollTimeout).filter { $0 >= 0 }
                _ = poll(&entry, 1, min(timeouts.min() ?? 50, 50))
            }
            #expect(ready == 2, "both hosts drew their first frame from events the app polled itself")
            // A click on the second host, polled by the app and handed on, counts there.
            let second = hosts[1], first = hosts[0]
            let before = second.toolbar.buttons[0].badge.count
            let button = second.toolbar.buttons[0].frame.pixels(scale: 1, rounding: .nearest)
            try client.click(button: 1, atRoot: try client.rootPoint(inWindow: second.window, x: button.x + 5, y: button.y + 5))
            let clicked = Deadline(seconds: 10)
            while second.toolbar.buttons[0].badge.count == before, !clicked.hasPassed {
                while let raw = xcb_poll_for_event(caller.unsafeConnection) { give(XEvent(adopting: UnsafeMutableRawPointer(raw))) }
                var entry = pollfd(fd: x.fileDescriptor, events: Int16(POLLIN), revents: 0)
                _ = poll(&entry, 1, 50)
            }
            #expect(second.toolbar.buttons[0].badge.count == before + 1 && first.toolbar.buttons[0].badge.count == before,
                    "the click counted on the host it was on, and only there")
        }
    }
}
