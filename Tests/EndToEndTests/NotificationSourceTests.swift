import BadgeCore
import BadgeSources
import Glibc
import Testing
import XvfbHarness

/// The notification source against real daemons nobody here wrote: dunst (driven by notify-send
/// and dunstctl) and GNOME's notification-daemon (the generic driver, through a bus monitor).
@Suite("E2E: notification source", .endToEnd(minutes: 2))
struct NotificationSourceTests {
    /// Turns `source` until `condition` holds (true) or `timeout` passes (false), as an event loop
    /// would: poll on its descriptors, its deadline as the timeout.
    static func drive(_ source: any BadgeSource, timeout: Double = 10, until condition: () -> Bool) -> Bool {
        let deadline = Deadline(seconds: timeout)
        while !condition() {
            if deadline.hasPassed { return false }
            var set = source.descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            let wait = min(Double(deadline.remainingMilliseconds) / 1000, source.timeUntilDue ?? 1)
            _ = poll(&set, nfds_t(set.count), Int32((max(0, wait) * 1000).rounded(.up)))
            for entry in set where entry.revents != 0 { source.handle(readable: entry.fd) }
            if let due = source.timeUntilDue, due <= 0 { source.handleDeadline() }
        }
        return true
    }

    /// Runs a client (notify-send, dunstctl, gdbus) on the test bus; its first output line.
    @discardableResult
    static func run(_ tool: String, _ arguments: [String], bus: SessionBus) throws -> String? {
        let child = try ChildProcess(executable: tool, arguments: arguments,
                                     environment: .inherited(adding: ["DBUS_SESSION_BUS_ADDRESS": bus.address]))
        let line = try child.readLine(timeout: 10)
        #expect(child.waitForExit(timeout: 10) == .exited(0), "\(tool) \(arguments): \(child.stderrText)")
        return line
    }

    static func count(_ source: NotificationSource) -> Int? {
        if case .count(let n)? = source.reading.content { return n }
        return nil
    }

    @Test("dunst: the count follows notify-send, replacements, dunstctl close, close-all and pause (Do Not Disturb)",
          .enabled(if: findOnPath("dunst") != nil && findOnPath("notify-send") != nil, "dunst or notify-send is not installed"))
    func dunst() throws {
        let bus = try SessionBus()
        let server = try XvfbServer.start(width: 640, height: 480)
        defer { server.stop() }
        let daemon = try ChildProcess(executable: "dunst", arguments: [],
                                      environment: .inherited(adding: ["DISPLAY": server.display, "DBUS_SESSION_BUS_ADDRESS": bus.address]))
        defer { daemon.kill(SIGKILL); daemon.waitForExit(timeout: 5) }
        try bus.waitForOwner(of: "org.freedesktop.Notifications")
        let source = try NotificationSource(busAddress: bus.address)
        var readings: [SourceReading] = []
        source.onChange = { readings.append($0) }
        source.start()
        #expect(readings.first?.content == nil, "a first reading at once, before any answer")
        #expect(Self.drive(source) { Self.count(source) == 0 }, "\(source.reading)")
        #expect(source.serverName == "dunst" && source.reading.description.contains("dunst"))
        var ids: [String] = []
        for n in 1...3 {
            ids.append(try Self.run("notify-send", ["-u", "critical", "-p", "message \(n)"], bus: bus) ?? "")
            #expect(Self.drive(source) { Self.count(source) == n }, "after \(n) notifications: \(source.reading)")
        }
        // A replaced notification is the same notification.
        try Self.run("notify-send", ["-u", "critical", "-r", ids[0], "message 1, again"], bus: bus)
        #expect(!Self.drive(source, timeout: 0.5) { Self.count(source) != 3 }, "a replacement never counts twice")
        // The items behind the count: one per notification, the replacement in place of the first.
        #expect(Self.drive(source) { source.reading.items?.item(forKey: ids[0])?.title == "message 1, again" },
                "\(source.reading.items?.items.map(\.title) ?? [])")
        #expect(source.reading.items?.items.count == 3 && source.reading.items?.unlisted == 0)
        #expect(source.reading.items?.item(forKey: ids[1])?.action == .notification(id: UInt32(ids[1]) ?? 0, hasDefaultAction: false))
        // The peek's action: CloseNotification through the source; dunst's count follows.
        source.close(notification: UInt32(ids[1]) ?? 0)
        #expect(Self.drive(source) { Self.count(source) == 2 && source.reading.items?.item(forKey: ids[1]) == nil }, "\(source.reading)")
        try Self.run("dunstctl", ["close"], bus: bus)
        #expect(Self.drive(source) { Self.count(source) == 1 }, "\(source.reading)")
        // Do Not Disturb: dunst holds new notifications back; they still wait for the user.
        try Self.run("dunstctl", ["set-paused", "true"], bus: bus)
        #expect(Self.drive(source) { source.doNotDisturb }, "paused is Do Not Disturb")
        #expect(source.reading.description.contains("do not disturb"))
        try Self.run("notify-send", ["-u", "critical", "while paused"], bus: bus)
        #expect(Self.drive(source) { Self.count(source) == 2 }, "waiting counts: \(source.reading)")
        try Self.run("dunstctl", ["set-paused", "false"], bus: bus)
        #expect(Self.drive(source) { !source.doNotDisturb })
        try Self.run("dunstctl", ["close-all"], bus: bus)
        #expect(Self.drive(source) { Self.count(source) == 0 }, "\(source.reading)")
        // Idle: nothing due, nothing to read.
        #expect(Self.drive(source, timeout: 0.3) { false } == false)
        #expect(source.timeUntilDue == nil, "no deadline while idle")
        var set = source.descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        #expect(poll(&set, nfds_t(set.count), 1000) == 0, "no traffic, no wakeup")
        // The daemon goes: the count is not trusted any more.
        daemon.kill(SIGTERM)
        #expect(daemon.waitForExit(timeout: 10) != nil)
        #expect(Self.drive(source) { source.reading.isStale }, "\(source.reading)")
        #expect(source.reading.error?.contains("no notification daemon") == true)
        source.stop()
    }

    @Test("Another daemon (notification-daemon): notifications paired with their ids, replacements and closes exact",
          .enabled(if: access("/usr/lib/notification-daemon/notification-daemon", X_OK) == 0 && findOnPath("notify-send") != nil && findOnPath("gdbus") != nil, "notification-daemon, notify-send or gdbus is not installed"))
    func genericDaemon() throws {
        let path = "/usr/lib/notification-daemon/notification-daemon"
        let bus = try SessionBus()
        let server = try XvfbServer.start(width: 640, height: 480)
        defer { server.stop() }
        let daemon = try ChildProcess(executable: path, arguments: ["--replace"],
                                      environment: .inherited(adding: ["DISPLAY": server.display, "DBUS_SESSION_BUS_ADDRESS": bus.address]))
        defer { daemon.kill(SIGKILL); daemon.waitForExit(timeout: 5) }
        try bus.waitForOwner(of: "org.freedesktop.Notifications")
        let source = try NotificationSource(busAddress: bus.address)
        source.start()
        #expect(Self.drive(source) { Self.count(source) == 0 && source.serverName != nil }, "\(source.reading)")
        #expect(source.serverName != "dunst" && source.reading.description.contains("since the badge started"))
        // The monitor needs a moment to be in place: the first notification is sent until counted.
        var ids: [String] = []
        let deadline = Deadline(seconds: 10)
        while Self.count(source) == 0, !deadline.hasPassed {
            ids = [try Self.run("notify-send", ["-u", "critical", "-p", "first"], bus: bus) ?? ""]
            _ = Self.drive(source, timeout: 0.5) { Self.count(source) == 1 }
        }
        try #require(Self.count(source) == 1, "\(source.reading)")
        let closeFirstExtra = ids.count  // earlier attempts that were not seen stay shown, uncounted
        ids.append(try Self.run("notify-send", ["-u", "critical", "-a", "Chat", "-p", "second", "<b>Alice</b> &amp; Bob\nsee you"], bus: bus) ?? "")
        #expect(Self.drive(source) { Self.count(source) == 2 }, "\(source.reading)")
        // Its item: the summary, the body without markup on one line, the application.
        let second = source.reading.items?.item(forKey: ids[closeFirstExtra])
        #expect(second?.title == "second" && second?.detail == "Alice & Bob see you" && second?.origin == "Chat", "\(String(describing: second))")
        try Self.run("notify-send", ["-u", "critical", "-r", ids[closeFirstExtra], "second, replaced"], bus: bus)
        #expect(!Self.drive(source, timeout: 0.5) { Self.count(source) != 2 }, "a replacement is no new notification")
        try Self.run("gdbus", ["call", "--address", bus.address, "--dest", "org.freedesktop.Notifications",
                               "--object-path", "/org/freedesktop/Notifications", "--method",
                               "org.freedesktop.Notifications.CloseNotification", ids[closeFirstExtra]], bus: bus)
        #expect(Self.drive(source) { Self.count(source) == 1 }, "\(source.reading)")
        #expect(!source.doNotDisturb)
        source.stop()
    }
}

/// The badge hub's source: another application's LauncherEntry broadcasts, from a long-lived
/// sender written with python3-dbus (not ours).
@Suite("E2E: launcher count source", .endToEnd(minutes: 1))
struct LauncherEntrySourceTests {
    static let sender = #"""
    import sys, dbus, dbus.service
    from dbus.mainloop.glib import DBusGMainLoop
    from gi.repository import GLib
    DBusGMainLoop(set_as_default=True)
    bus = dbus.bus.BusConnection(sys.argv[1])
    uri = "application://" + sys.argv[2] + ".desktop"
    class Entry(dbus.service.Object):
        @dbus.service.signal("com.canonical.Unity.LauncherEntry", signature="sa{sv}")
        def Update(self, app, props): pass
    entry = Entry(bus, "/com/canonical/unity/launcherentry/test")
    def line(source, condition):
        text = sys.stdin.readline()
        if not text:
            loop.quit(); return False
        words = text.split()
        props = {}
        if words[0] == "count": props = {"count": dbus.Int64(int(words[1])), "count-visible": dbus.Boolean(True)}
        elif words[0] == "hide": props = {"count-visible": dbus.Boolean(False)}
        elif words[0] == "urgent": props = {"urgent": dbus.Boolean(words[1] == "1")}
        elif words[0] == "other": entry.Update("application://someone.else.desktop", {"count": dbus.Int64(99), "count-visible": dbus.Boolean(True)}); print("sent", flush=True); return True
        entry.Update(uri, props)
        print("sent", flush=True)
        return True
    GLib.io_add_watch(sys.stdin, GLib.IO_IN | GLib.IO_HUP, line)
    print("ready", flush=True)
    loop = GLib.MainLoop(); loop.run()
    """#

    @Test("Follows a count, its visibility and urgency for one desktop id; dropped when the sender leaves the bus")
    func followsAndDrops() throws {
        let bus = try SessionBus()
        let source = try LauncherEntrySource(desktopID: "org.example.Chat.desktop", busAddress: bus.address, displayName: "Chat")
        // "org.example.Chat.desktop" may be the id itself or the file name of org.example.Chat: both are heard.
        #expect(source.applicationURIs == ["application://org.example.Chat.desktop.desktop", "application://org.example.Chat.desktop"])
        source.start()
        #expect(source.reading.content == nil && source.reading.description.contains("waiting for org.example.Chat"))
        // Ready once the source's connection is greeted and its match rules are in.
        #expect(NotificationSourceTests.drive(source, timeout: 5) { source.timeUntilDue == nil })
        let app = try ChildProcess(executable: "/usr/bin/python3", arguments: ["-c", Self.sender, bus.address, "org.example.Chat"])
        defer { app.kill(SIGKILL); app.waitForExit(timeout: 5) }
        #expect(try app.readLine(timeout: 10) == "ready", "\(app.stderrText)")
        func send(_ line: String) throws {
            try app.writeLine(line)
            #expect(try app.readLine(timeout: 10) == "sent")
        }
        try send("count 7")
        #expect(NotificationSourceTests.drive(source) { source.reading.content == .count(7) }, "\(source.reading)")
        try send("other")
        try send("count 12")
        #expect(NotificationSourceTests.drive(source) { source.reading.content == .count(12) }, "another app's count is not ours")
        try send("hide")
        #expect(NotificationSourceTests.drive(source) { source.reading.content == BadgeContent.none })
        try send("urgent 1")
        #expect(NotificationSourceTests.drive(source) { source.reading.content == .dot }, "urgency without a visible count is a dot")
        try send("count 3")
        #expect(NotificationSourceTests.drive(source) { source.reading.content == .count(3) })
        // The application quits: no ghost count.
        app.closeStdin()
        #expect(app.waitForExit(timeout: 10) == .exited(0))
        #expect(NotificationSourceTests.drive(source) { source.reading.content == BadgeContent.none }, "\(source.reading)")
        #expect(source.reading.description.contains("left the bus"))
        source.stop()
    }

    @Test("Every application's count (\"*\"): the sum, one item per application with its desktop file's name, raised or launched; a leaving sender takes its count")
    func hub() throws {
        let bus = try SessionBus()
        let data = try Artifacts.path(for: "launcher-hub-\(getpid())")
        removeTree(data)
        #expect(mkdir(data, 0o700) == 0 && mkdir(data + "/applications", 0o700) == 0)
        defer { removeTree(data) }
        let file = fopen(data + "/applications/org.example.Chat.desktop", "w")
        fputs("[Desktop Entry]\nType=Application\nName=Example Chat\nIcon=chat\nExec=true\n", file)
        fclose(file)
        let source = try LauncherHubSource(busAddress: bus.address,
                                           finder: DesktopEntryFinder(directories: XDGDataDirectories(home: data, system: [])))
        source.start()
        #expect(source.reading.content == .count(0))
        #expect(NotificationSourceTests.drive(source, timeout: 5) { source.timeUntilDue == nil })
        var senders: [ChildProcess] = []
        defer { for sender in senders { sender.kill(SIGKILL); sender.waitForExit(timeout: 5) } }
        for id in ["org.example.Chat", "org.example.Mail"] {
            let app = try ChildProcess(executable: "/usr/bin/python3", arguments: ["-c", Self.sender, bus.address, id])
            senders.append(app)
            #expect(try app.readLine(timeout: 10) == "ready", "\(app.stderrText)")
        }
        func send(_ index: Int, _ line: String) throws {
            try senders[index].writeLine(line)
            #expect(try senders[index].readLine(timeout: 10) == "sent")
        }
        try send(0, "count 7")
        try send(1, "count 5")
        #expect(NotificationSourceTests.drive(source) { source.reading.content == .count(12) }, "\(source.reading)")
        let items = source.reading.items?.items ?? []
        let chat = items.first { $0.key == "org.example.Chat" }
        #expect(chat?.title == "Example Chat" && chat?.detail == "7 unread" && chat?.iconName == "chat", "\(String(describing: chat))")
        #expect(chat?.action == .launch(desktopID: "org.example.Chat"))
        #expect(items.first { $0.key == "org.example.Mail" }?.title == "org.example.Mail", "no desktop file: its id")
        senders[0].closeStdin()
        #expect(senders[0].waitForExit(timeout: 10) == .exited(0))
        #expect(NotificationSourceTests.drive(source) { source.reading.content == .count(5) }, "\(source.reading)")
        #expect(source.reading.items?.items.map(\.key) == ["org.example.Mail"])
        source.stop()
    }
}
