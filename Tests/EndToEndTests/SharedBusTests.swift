import BadgeCore
import BadgeIO
import BadgeSources
import Glibc
import Testing
import XvfbHarness

/// Sources that share one session-bus connection, as the application's do: each hears only what it
/// subscribed to (issue 35's first fault: the notification source took every peer that left the
/// bus, which the launcher source's interest delivered, for its daemon leaving).
@Suite("E2E: sources sharing one bus connection", .endToEnd(minutes: 2))
struct SharedBusTests {
    /// Turns the shared connection and the sources' own descriptors (the notification monitor's)
    /// until `condition` holds (true) or `timeout` passes (false).
    static func drive(_ bus: BusConnection, _ sources: [any BadgeSource], timeout: Double = 10, until condition: () -> Bool) -> Bool {
        let deadline = Deadline(seconds: timeout)
        while !condition() {
            if deadline.hasPassed { return false }
            var set: [pollfd] = []
            if let fd = bus.fileDescriptor {
                set.append(pollfd(fd: fd, events: Int16(POLLIN) | (bus.interest.contains(.writable) ? Int16(POLLOUT) : 0), revents: 0))
            }
            let owned = sources.flatMap { source in source.descriptors.map { (fd: $0, source: source) } }
            set += owned.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
            let due = ([bus.timeUntilDeadline] + sources.map(\.timeUntilDue)).compactMap { $0 }.min() ?? 1
            let wait = min(Double(deadline.remainingMilliseconds) / 1000, max(0, due))
            _ = poll(&set, nfds_t(set.count), Int32((wait * 1000).rounded(.up)))
            var rest = set[...]
            if bus.fileDescriptor != nil, let first = rest.popFirst(), first.revents != 0 {
                bus.service(EventLoop.Readiness(readable: first.revents & Int16(POLLIN) != 0, writable: first.revents & Int16(POLLOUT) != 0,
                                                failed: first.revents & Int16(POLLERR | POLLHUP) != 0))
            }
            for (index, entry) in rest.enumerated() where entry.revents != 0 { owned[index].source.handle(readable: entry.fd) }
            bus.handleDeadlines()
            for source in sources { if let due = source.timeUntilDue, due <= 0 { source.handleDeadline() } }
        }
        return true
    }

    static func count(_ reading: SourceReading) -> Int? {
        if case .count(let n)? = reading.content { return n }
        return nil
    }

    @Test("dunst's count beside a launcher count on one connection: peers that come and go (notify-send, busctl) never look like the daemon leaving",
          .enabled(if: findOnPath("dunst") != nil && findOnPath("notify-send") != nil && findOnPath("busctl") != nil,
                   "dunst, notify-send or busctl is not installed"))
    func notificationsBesideLauncher() throws {
        let sessionBus = try SessionBus()
        let server = try XvfbServer.start(width: 640, height: 480)
        defer { server.stop() }
        let daemon = try ChildProcess(executable: "dunst", arguments: [],
                                      environment: .inherited(adding: ["DISPLAY": server.display, "DBUS_SESSION_BUS_ADDRESS": sessionBus.address]))
        defer { daemon.kill(SIGKILL); daemon.waitForExit(timeout: 5) }
        try sessionBus.waitForOwner(of: "org.freedesktop.Notifications")
        let bus = BusConnection(address: try DBusAddress(sessionBus.address), label: "the shared session bus")
        defer { bus.close() }
        let bell = NotificationSource(sharing: bus, busAddress: sessionBus.address)
        let chat = try LauncherEntrySource(desktopID: "org.example.Chat", sharing: bus)
        var bellReadings: [SourceReading] = []
        bell.onChange = { bellReadings.append($0) }
        bell.start()
        chat.start()
        let sources: [any BadgeSource] = [bell, chat]
        #expect(Self.drive(bus, sources) { Self.count(bell.reading) == 0 }, "\(bell.reading)")

        let app = try LauncherSender.start(bus: sessionBus, desktopID: "org.example.Chat")
        defer { app.kill(SIGKILL); app.waitForExit(timeout: 5) }
        #expect(try LauncherSender.broadcast(4, from: app) { Self.drive(bus, sources, timeout: 0.5) { Self.count(chat.reading) == 4 } },
                "\(chat.reading)")

        let environment = ChildEnvironment.inherited(adding: ["DBUS_SESSION_BUS_ADDRESS": sessionBus.address])
        for n in 1...3 {
            let notify = try ChildProcess(executable: "notify-send", arguments: ["-u", "critical", "message \(n)"], environment: environment)
            #expect(notify.waitForExit(timeout: 10) == .exited(0), "\(notify.stderrText)")
            #expect(Self.drive(bus, sources) { Self.count(bell.reading) == n && bell.reading.error == nil },
                    "after notify-send \(n): \(bell.reading)")
        }
        // More peers come and go: the bell stays 3 and current.
        bellReadings.removeAll()
        for _ in 1...3 {
            let busctl = try ChildProcess(executable: "busctl", arguments: ["--address=" + sessionBus.address, "call", "org.freedesktop.DBus",
                                                                             "/org/freedesktop/DBus", "org.freedesktop.DBus", "ListNames"],
                                          environment: environment, stdout: .null)
            #expect(busctl.waitForExit(timeout: 10) == .exited(0))
        }
        #expect(!Self.drive(bus, sources, timeout: 1) { bell.reading.isStale || Self.count(bell.reading) != 3 }, "\(bell.reading)")
        #expect(bellReadings.allSatisfy { !$0.isStale && $0.error == nil }, "\(bellReadings)")
        #expect(Self.count(chat.reading) == 4, "the launcher count stays: \(chat.reading)")

        // The launcher's sender leaves: only its count goes.
        app.closeStdin()
        #expect(app.waitForExit(timeout: 10) == .exited(0))
        #expect(Self.drive(bus, sources) { chat.reading.content == BadgeContent.none }, "\(chat.reading)")
        #expect(Self.count(bell.reading) == 3 && !bell.reading.isStale, "\(bell.reading)")

        // The daemon leaves: now the bell says so.
        daemon.kill(SIGTERM)
        #expect(daemon.waitForExit(timeout: 10) != nil)
        #expect(Self.drive(bus, sources) { bell.reading.isStale }, "\(bell.reading)")
        #expect(bell.reading.error?.contains("no notification daemon") == true, "\(bell.reading)")
        bell.stop()
        chat.stop()
    }
}
