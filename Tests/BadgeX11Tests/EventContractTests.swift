import BadgeCore
import BadgeDrawing
import CXCB
import Glibc
import TestSupport
import Testing
import XvfbHarness
@testable import BadgeX11

/// Which events are whose on a connection shared by the caller's window and two hosts: the caller
/// gets every Expose and ConfigureNotify of its own (also those read while a host waited for the
/// server), and every host hears a settings change.
@Suite("Shell: events on a shared connection", .drawsWithCairo) struct EventContractTests {
    /// The caller's own loop over its window and two hosts.
    final class Caller {
        let connection: XConnection
        let window: ApplicationWindow
        let hosts: [ToolbarHost]
        var exposes = 0, configures = 0

        init(connection: XConnection, window: ApplicationWindow, hosts: [ToolbarHost]) {
            self.connection = connection
            self.window = window
            self.hosts = hosts
        }

        func mine(_ event: XEvent) {
            guard event.window == window.id else { return }
            switch Int32(event.code) {
            case XCB_EXPOSE: exposes += 1
            case XCB_CONFIGURE_NOTIFY: configures += 1
            default: break
            }
        }

        /// Every event to the hosts first, then to the caller; refresh; sleep in poll() for at most
        /// the hosts' timeout; until `done` or 10 s.
        @discardableResult
        func pump(seconds: Double = 10, until done: () -> Bool) throws -> Bool {
            let deadline = Deadline(seconds: seconds)
            while !done() {
                if deadline.hasPassed { return false }
                while let event = connection.nextEvent() {
                    if !hosts.contains(where: { $0.handle(event) }) { mine(event) }
                }
                for host in hosts { try host.refresh() }
                if done() { break }
                if let event = connection.nextQueuedEvent() {
                    if !hosts.contains(where: { $0.handle(event) }) { mine(event) }
                    continue
                }
                var fds = [pollfd(fd: connection.fileDescriptor, events: Int16(POLLIN), revents: 0)]
                let timeouts = hosts.map(\.pollTimeout).filter { $0 >= 0 }
                let timeout = min(timeouts.min() ?? deadline.remainingMilliseconds, deadline.remainingMilliseconds)
                _ = poll(&fds, 1, timeout)
            }
            return true
        }
    }

    /// A private server, the caller's window of `width` × `height`, and two child hosts on one
    /// connection: A at the top, B at `secondAt`.
    static func twoHosts(width: Int, height: Int, secondAt y: Int) throws
        -> (XvfbServer, XConnection, ApplicationWindow, ToolbarHost, ToolbarHost) {
        let server = try XvfbServer.start()
        let connection = try XConnection(display: server.display)
        let window = try ApplicationWindow(connection: connection, identity: ToolbarHostTests.identity, width: width, height: height)
        let (toolbarA, rendererA) = try ToolbarHostTests.makeToolbar()
        let (toolbarB, rendererB) = try ToolbarHostTests.makeToolbar()
        let hostA = try ToolbarHost(toolbar: toolbarA, renderer: rendererA, connection: connection,
                                    placement: .child(of: window.id, x: 0, y: 0), scale: 1)
        let hostB = try ToolbarHost(toolbar: toolbarB, renderer: rendererB, connection: connection,
                                    placement: .child(of: window.id, x: 0, y: y), scale: 1)
        return (server, connection, window, hostA, hostB)
    }

    @Test("The caller gets its own Expose and ConfigureNotify across synchronize; both hosts hear a settings change")
    func sharedConnection() throws {
        let (server, connection, window, hostA, hostB) = try Self.twoHosts(width: 400, height: 240, secondAt: 120)
        defer { withExtendedLifetime(server) {} }  // the server lives as long as the test
        var ready = 0, settingsHeard = [0, 0]
        for (index, host) in [hostA, hostB].enumerated() {
            host.onEvent = { event in
                switch event {
                case .ready: ready += 1
                case .desktopSettingsChanged: settingsHeard[index] += 1
                default: break
                }
            }
        }
        window.map()
        let caller = Caller(connection: connection, window: window, hosts: [hostA, hostB])
        #expect(try caller.pump { ready == 2 && caller.exposes > 0 }, "ready \(ready), exposes \(caller.exposes)")

        // A host shrinks and synchronizes in one turn: the area it gave back is the caller's to paint,
        // and the Expose for it, read during the synchronize, still reaches the caller.
        let exposesBefore = caller.exposes
        var synced = false
        hostA.requestSize(width: 40, height: 30)
        hostA.synchronize { synced = true }
        #expect(try caller.pump { synced && caller.exposes > exposesBefore },
                "the caller's Expose was lost: \(caller.exposes) after \(exposesBefore)")

        // Another client resizes the caller's window; a host's synchronize reads the ConfigureNotify
        // before the caller does: it is set aside for the caller, who gets it next.
        let client = try XTestClient(display: server.display)
        try client.resize(window: window.id, width: 420, height: 250)
        try client.sync()
        hostB.synchronize {}
        #expect(connection.hasEventsSetAside, "the ConfigureNotify read by the synchronize was not kept for the caller")
        #expect(hostB.pollTimeout == 0, "the caller must not sleep while its events wait")
        #expect(try caller.pump { caller.configures > 0 }, "the caller's ConfigureNotify was lost")

        // The desktop's settings (Xft.dpi in the X resources) reach both hosts, not the first only.
        try client.setStringProperty(window: client.root, name: "RESOURCE_MANAGER", value: "Xft.dpi:\t192\n")
        try client.sync()
        #expect(try caller.pump { settingsHeard.allSatisfy { $0 > 0 } }, "settings heard by the hosts: \(settingsHeard)")
        #expect(hostA.desktopSettings.scale == 2 && hostB.desktopSettings.scale == 2)
    }

    @Test("Two hosts on one connection share one session; its wait covers the caller's own descriptors")
    func oneSession() throws {
        let (server, connection, window, hostA, hostB) = try Self.twoHosts(width: 300, height: 200, secondAt: 100)
        defer { withExtendedLifetime(server) {} }  // the server lives as long as the test
        let session = hostA.session
        let found = try DesktopSession.session(of: connection)
        #expect(session === hostB.session && session === found)
        #expect(session.hosts.count == 2)
        window.map()
        var ready = 0
        for host in [hostA, hostB] { host.onEvent = { if case .ready = $0 { ready += 1 } } }
        // The caller's own loop with nothing but BadgeKit's types: a pipe of its own beside the hosts.
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]); close(ends[1]) }
        let mine = DesktopSession.PollDescriptor(fileDescriptor: ends[0], interest: .readable)
        let deadline = Deadline(seconds: 10)
        while ready < 2, !deadline.hasPassed {
            while let event = connection.nextEvent() { _ = session.hosts.contains { $0.handle(event) } }
            for host in session.hosts { try host.refresh() }
            #expect(session.wait(alsoWatching: [mine], timeout: 0.2).isEmpty, "nothing was written to the pipe")
        }
        #expect(ready == 2)
        #expect(session.pollDescriptors.first?.fileDescriptor == connection.fileDescriptor)
        var byte: UInt8 = 1
        #expect(write(ends[1], &byte, 1) == 1)
        #expect(session.wait(alsoWatching: [mine], timeout: 5) == [mine], "the caller's descriptor was not reported")
    }

    @Test("Two hosts share one tooltip window, shown for the host whose button the pointer rests on")
    func oneTooltipWindow() throws {
        let (server, connection, window, hostA, hostB) = try Self.twoHosts(width: 400, height: 240, secondAt: 120)
        defer { withExtendedLifetime(server) {} }  // the server lives as long as the test
        var ready = 0
        for host in [hostA, hostB] { host.onEvent = { if case .ready = $0 { ready += 1 } } }
        window.map()
        let caller = Caller(connection: connection, window: window, hosts: [hostA, hostB])
        let client = try XTestClient(display: server.display)
        try client.movePointerToCorner()
        #expect(try caller.pump { ready == 2 })
        func hover(_ host: ToolbarHost) throws {
            let button = host.toolbar.buttons[0].frame.pixels(scale: 1, rounding: .nearest)
            try client.move(toRoot: try client.rootPoint(inWindow: host.window, x: button.center.x, y: button.center.y))
            try client.sync()
        }
        try hover(hostA)
        #expect(try caller.pump { hostA.tooltip != nil }, "no tooltip for the first toolbar")
        let first = try #require(hostA.tooltip)
        #expect(hostB.tooltip == nil)
        try hover(hostB)
        #expect(try caller.pump { hostB.tooltip != nil && hostA.tooltip == nil }, "the tooltip did not move to the second toolbar")
        #expect(hostB.tooltip?.window == first.window, "each host made a tooltip window of its own")
    }
}
