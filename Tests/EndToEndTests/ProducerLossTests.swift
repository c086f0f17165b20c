import BadgeControl
import BadgeCore
import BadgeSources
import Glibc
import Testing
import XvfbHarness

/// Clients written with Python's `socket` module and python3-dbus (not ours), as careless and
/// hostile producers write them: each mode prints what it did, one line each.
private let careless = #"""
import os, resource, socket, sys, time
path, mode, args = sys.argv[1], sys.argv[2], sys.argv[3:]
if mode == "close-early":
    # Writes every line, then closes at once without reading a reply.
    n = int(args[0])
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
    s.connect(path)
    s.sendall(b"inc mail\n" * n)
    s.close()
    print("sent %d" % n, flush=True)
elif mode == "fill-backlog":
    # Non-blocking connects until the listener's backlog is full (EAGAIN); held until stdin closes.
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = 16384 if hard == resource.RLIM_INFINITY else min(16384, hard)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, wanted), hard))
    held = []
    while True:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.setblocking(False)
        try:
            s.connect(path)
        except BlockingIOError:
            s.close()
            break
        held.append(s)
        if len(held) > 10000:
            break
    print("full %d" % len(held), flush=True)
    sys.stdin.readline()
elif mode == "subscribers":
    # Subscribers that never read, held until stdin closes.
    held = []
    for _ in range(int(args[0])):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
        s.connect(path)
        s.sendall(b"subscribe\n")
        held.append(s)
    print("subscribed", flush=True)
    sys.stdin.readline()
elif mode == "waiting-clients":
    # Clients that connect and each send one inc; they read their replies as they come.
    socks = []
    for _ in range(int(args[0])):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(path)
        s.sendall(b"inc mail\n")
        socks.append(s)
    print("connected", flush=True)
    ok = 0
    for s in socks:
        s.settimeout(60)
        if s.recv(100).startswith(b'{"reply":"ok"'):
            ok += 1
    print("ok %d" % ok, flush=True)
"""#

/// python3-dbus producers: a burst of calls with NO_REPLY_EXPECTED, a stranger's LauncherEntry
/// `Update`, a stranger's `NotificationClosed`, and a `Notify` with a 40 MB `image-data` hint.
private let busClient = #"""
import sys, dbus
bus = dbus.bus.BusConnection(sys.argv[1])
mode, args = sys.argv[2], sys.argv[3:]
if mode == "no-reply-burst":
    proxy = bus.get_object("io.github.badgekit.BadgeDemo", "/io/github/badgekit/BadgeDemo", introspect=False)
    n = int(args[0])
    for _ in range(n):
        proxy.Increment("mail", dbus.Int64(1), dbus_interface="io.github.badgekit.Badges1", ignore_reply=True)
    if args[1:] == ["confirm"]:
        # One call with a reply: the bus routes a connection's messages in order, so once it is
        # answered, every call before it has reached the app.
        # Its answer waits behind 10,000 calls: under AddressSanitizer on a loaded machine that takes
        # longer than dbus-python's 25 s default, so the deadline is the test's own (120 s).
        proxy.Get("io.github.badgekit.Badges1", "Version", dbus_interface="org.freedesktop.DBus.Properties", timeout=120)
    bus.flush()
    print("sent %d" % n, flush=True)
elif mode == "empty-update":
    msg = dbus.lowlevel.SignalMessage("/com/canonical/unity/launcherentry/stranger", "com.canonical.Unity.LauncherEntry", "Update")
    msg.append("application://" + args[0] + ".desktop", dbus.Dictionary({}, signature="sv"), signature="sa{sv}")
    bus.send_message(msg)
    bus.flush()
    print("sent", flush=True)
elif mode == "closed":
    for i in args:
        msg = dbus.lowlevel.SignalMessage("/org/freedesktop/Notifications", "org.freedesktop.Notifications", "NotificationClosed")
        msg.append(dbus.UInt32(int(i)), dbus.UInt32(2), signature="uu")
        bus.send_message(msg)
    bus.flush()
    print("sent", flush=True)
elif mode == "big-image":
    size = int(args[0])
    width = 2048
    height = size // (width * 4)
    image = dbus.Struct((dbus.Int32(width), dbus.Int32(height), dbus.Int32(width * 4), dbus.Boolean(True), dbus.Int32(8),
                         dbus.Int32(4), dbus.ByteArray(b"\x80" * (width * 4 * height))), signature="iiibiiay")
    proxy = bus.get_object("org.freedesktop.Notifications", "/org/freedesktop/Notifications")
    nid = proxy.Notify("big", dbus.UInt32(0), "", "a big picture", "body", dbus.Array([], signature="s"),
                       dbus.Dictionary({"image-data": image, "urgency": dbus.Byte(2)}, signature="sv"), dbus.Int32(0),
                       dbus_interface="org.freedesktop.Notifications", timeout=60)
    print("id %d" % nid, flush=True)
"""#

/// Issue 26: no producer's command is lost, and no source counts itself or believes a stranger.
/// Every case here failed before the fix, against the real binary.
@Suite("E2E: no producer's command is ever lost", .endToEnd(minutes: 4))
struct ProducerLossTests {
    private func python(_ script: String, _ arguments: [String]) throws -> ChildProcess {
        try ChildProcess(executable: "/usr/bin/python3", arguments: ["-c", script] + arguments)
    }

    private func socketPath(_ s: DemoSession) throws -> String {
        try s.app.writeLine("state")
        let state = try s.app.readEvent(named: "state", timeout: 10)
        guard let path = state["controlSocket"]?["path"]?.string else { throw HarnessError("no control socket: \(state)") }
        return path
    }

    /// Waits until `mail` shows `count` (polling `state`), at most `timeout` seconds.
    private func waitForMail(_ s: DemoSession, _ count: Int, timeout: Double = 20) throws -> Int? {
        let deadline = Deadline(seconds: timeout * (runsUnderSanitizer ? 3 : 1))
        func mail() throws -> Int? {
            // Thousands of change events may come first (slow under AddressSanitizer).
            try s.app.writeLine("state")
            let state = try s.app.readEvent(named: "state", timeout: runsUnderSanitizer ? 180 : 30)
            _ = s.app.takePendingEvents()
            return try AppState(state).button("mail").count
        }
        var seen = try mail()
        while seen != count, !deadline.hasPassed {
            _ = try? s.app.readLine(timeout: 0.05)
            _ = s.app.takePendingEvents()
            seen = try mail()
        }
        return seen
    }

    @Test("Fire and forget: socat -u and a Python client that closes at once lose none of their inc lines",
          .enabled(if: findOnPath("socat") != nil, "socat is not installed"))
    func fireAndForget() throws {
        let s = try DemoSession("loss-fire-and-forget", arguments: ["--no-state", "--count", "mail=0"])
        s.app.recordsAllEvents = false
        let path = try socketPath(s)
        var expected = 0
        for round in 0..<3 {
            let socat = try ChildProcess(executable: "socat", arguments: ["-u", "-", "UNIX-CONNECT:" + path])
            for _ in 0..<200 { try socat.writeLine("inc mail") }
            socat.closeStdin()
            #expect(socat.waitForExit(timeout: 20) == .exited(0), "socat: \(socat.stderrText)")
            expected += 200
            #expect(try waitForMail(s, expected) == expected, "socat -u round \(round)")
            let early = try python(careless, [path, "close-early", "800"])
            #expect(try early.readLine(timeout: 20) == "sent 800")
            expected += 800
            #expect(try waitForMail(s, expected) == expected, "closing early, round \(round)")
        }
        #expect(!s.app.stderrText.contains("dropped client"), "\(s.app.stderrText)")
    }

    @Test("10,000 D-Bus Increment calls with NO_REPLY_EXPECTED from a new connection all count; every call the bus delivers counts",
          .enabled(if: BusClients.available && findOnPath("dbus-monitor") != nil, "dbus-daemon or its clients are missing"))
    func noReplyBurst() throws {
        let bus = try SessionBus()
        let s = try DemoSession("loss-no-reply", arguments: ["--no-state", "--count", "mail=0"],
                                environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        s.app.recordsAllEvents = false
        try bus.waitForOwner(of: BusClients.name)
        // Settled: the first frame's work (fonts, the tray, the sources) is done.
        try s.sync()
        _ = try s.app.waitUntilSleeping(timeout: 10)
        var expected = 0
        for _ in 0..<3 {
            let burst = try python(busClient, [bus.address, "no-reply-burst", "10000", "confirm"])
            #expect(try burst.readLine(timeout: 60) == "sent 10000", "\(burst.stderrText)")
            #expect(burst.waitForExit(timeout: 20) == .exited(0))
            expected += 10_000
            let seen = try waitForMail(s, expected, timeout: 60)
            let dbus = seen == expected ? "" : (try? s.app.dbusState()) ?? "?"
            #expect(seen == expected, "D-Bus: \(dbus); stderr: \(s.app.stderrText.suffix(800))")
        }
        // A producer that exits the moment it has written: libdbus and the bus daemon can lose its
        // last calls before the bus routes them (dbus-monitor never sees them either), so the
        // oracle is the bus's own monitor: every call it delivered counts, none is invented.
        let monitor = try ChildProcess(executable: "stdbuf", arguments: ["-oL", "dbus-monitor", "--address", bus.address, "--monitor",
                                                                       "type='method_call',member='Increment'"])
        defer { monitor.kill(SIGKILL); monitor.waitForExit(timeout: 5) }
        _ = try monitor.readLine(timeout: 10)  // the monitor is in place once it says anything (NameAcquired)
        let burst = try python(busClient, [bus.address, "no-reply-burst", "10000"])
        #expect(try burst.readLine(timeout: 60) == "sent 10000", "\(burst.stderrText)")
        #expect(burst.waitForExit(timeout: 20) == .exited(0))
        var delivered = 0
        var seen: Int?
        let deadline = Deadline(seconds: runsUnderSanitizer ? 180 : 60)
        repeat {
            while let line = try? monitor.readLine(timeout: 0.2) {
                if line.contains("member=Increment") { delivered += 1 }
            }
            seen = try waitForMail(s, expected + delivered, timeout: 1)
        } while seen != expected + delivered && !deadline.hasPassed
        #expect(delivered > 9_000, "the bus delivered \(delivered) of 10,000")
        #expect(seen == expected + delivered, "the bus delivered \(delivered); the badge counted \((seen ?? 0) - expected)")
        #expect(!s.app.stderrText.contains("refused"), "\(s.app.stderrText)")
    }

    @Test("A stopped instance with a full backlog: msg exits 3 and a second launch exits 4, each within seconds, never a hang")
    func stoppedInstance() throws {
        let d = try SingleInstanceTests.Desktop("loss-stopped")
        let app = try d.launch(["--no-state"])
        _ = try d.waitForInstance()
        let path = d.runtime + "/badge-demo/control.sock"
        app.kill(SIGSTOP)
        defer { app.kill(SIGCONT) }
        // Connected but never answered: the reply's deadline.
        var start = ContinuousClock.now
        let unanswered = try d.msg(["state"])
        #expect(unanswered.status == .exited(3) && unanswered.stderr.contains("did not answer within 10 s"), "\(unanswered)")
        #expect(secondsSince(start) < 25)
        // The backlog full: connect's deadline.
        let filler = try python(careless, [path, "fill-backlog"])
        let full = try filler.readLine(timeout: 60) ?? ""
        #expect(full.hasPrefix("full "), "\(full) \(filler.stderrText)")
        start = ContinuousClock.now
        let refused = try d.msg(["inc", "mail"])
        // 5 s to connect to a full backlog (10 s for the reply where the machine's limits let no one fill it).
        #expect(refused.status == .exited(3) && refused.stderr.contains("did not answer within"), "\(refused)")
        #expect(secondsSince(start) < 20, "msg took \(secondsSince(start)) s")
        start = ContinuousClock.now
        let second = try d.launch(["--count", "mail=3"])
        #expect(second.waitForExit(timeout: 40) == .exited(4), "\(second.stderrText)")
        #expect(second.stderrText.contains("it may be stopped"), "\(second.stderrText)")
        #expect(secondsSince(start) < 30, "the launch took \(secondsSince(start)) s")
        filler.closeStdin()
        #expect(filler.waitForExit(timeout: 20) != nil)
        app.kill(SIGCONT)
        // Once it runs again, it answers.
        #expect(try d.waitForInstance(timeout: 30)["buttons"] != nil)
    }

    @Test("Launches handing over to an instance killed mid-way: one takes the profile, every --count is applied, one window")
    func handOverToDyingInstance() throws {
        let d = try SingleInstanceTests.Desktop("loss-handover")
        let first = try d.launch(["--no-state", "--count", "updates=1"])
        _ = try d.waitForInstance()
        first.kill(SIGSTOP)
        let launches = try [("bell", 7), ("mail", 42), ("chat", 5)].map { id, count in
            (id, count, try d.launch(["--no-state", "--count", "\(id)=\(count)"]))
        }
        // Each launch is waiting on the stopped instance (connected, or retrying to connect).
        for (_, _, launch) in launches { _ = try launch.waitUntilSleeping(timeout: 10) }
        first.kill(SIGKILL)
        #expect(first.waitForExit(timeout: 10) != nil)
        // Every waiting launch either takes the profile over (one of them) or hands over to it.
        var running: [ChildProcess] = []
        for (_, _, launch) in launches {
            if launch.waitForExit(timeout: 30) == nil {
                running.append(launch)
            } else {
                #expect(launch.waitForExit(timeout: 0) == .exited(0), "\(launch.stderrText)")
            }
        }
        #expect(running.count == 1, "\(launches.map { $0.2.stderrText })")
        let state = try d.waitForInstance(timeout: 20)
        var counts: [String: Int] = [:]
        let deadline = Deadline(seconds: 20)
        repeat {
            let now = try d.state() ?? state
            counts = Dictionary(uniqueKeysWithValues: ["bell", "mail", "chat"].map { ($0, SingleInstanceTests.count(now, $0) ?? -1) })
        } while counts != ["bell": 7, "mail": 42, "chat": 5] && !deadline.hasPassed
        #expect(counts == ["bell": 7, "mail": 42, "chat": 5])
        let windows = Deadline(seconds: 10)
        var visible = try d.visibleWindows()
        while visible.count != 1, !windows.hasPassed {
            try d.x.sync()
            visible = try d.visibleWindows()
        }
        #expect(visible.count == 1, "\(visible)")
    }

    @Test("--count takes the ids of the user's config file, at first launch and on hand-over")
    func countForConfiguredButtons() throws {
        let d = try SingleInstanceTests.Desktop("loss-config-ids")
        #expect(mkdir(d.base + "/config/badge-demo", 0o700) == 0)
        let file = fopen(d.base + "/config/badge-demo/config.json", "w")
        fputs(#"{"buttons": [{"id": "inbox", "icon": "mail", "label": "Inbox"}, {"id": "bell"}]}"#, file)
        fclose(file)
        let app = try d.launch(["--no-state", "--count", "inbox=3"])
        let state = try d.waitForInstance()
        #expect(SingleInstanceTests.count(state, "inbox") == 3, "\(app.stderrText)")
        let second = try d.launch(["--count", "inbox=5"])
        #expect(second.waitForExit(timeout: 20) == .exited(0), "\(second.stderrText)")
        #expect(SingleInstanceTests.count(try d.state(), "inbox") == 5)
        let bad = try d.launch(["--count", "mail=1"])
        #expect(bad.waitForExit(timeout: 20) == .exited(2) && bad.stderrText.contains("unknown button \"mail\""), "\(bad.stderrText)")
    }

    @Test("A launcher button on badge-demo's own id never counts the app's own dock total",
          .enabled(if: findOnPath("dbus-daemon") != nil, "dbus-daemon is not installed"))
    func launcherOnOwnID() throws {
        let f = try SourceBindingTests.Folder("own-id")
        f.write("config.json", #"{"buttons": [{"id": "mail", "icon": "mail"}, {"id": "me", "icon": "bell", "source": {"launcher": "badge-demo"}}]}"#)
        let bus = try SessionBus()
        let s = try DemoSession("loss-own-id", arguments: ["--config", f.path + "/config.json", "--no-state", "--count", "mail=192"],
                                environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        // The dock count goes out; then more of it, each a broadcast the source hears.
        _ = try bus.nextUpdate(timeout: 20) { $0.uri == "application://badge-demo.desktop" && $0.count == 192 }
        for n in 1...5 {
            try s.command("inc mail")
            _ = try bus.nextUpdate(timeout: 20) { $0.count == Int64(192 + n) }
        }
        try s.sync()
        let state = try s.state()
        let me = try state.button("me")
        #expect(me.contentKind == "none", "\(me.json)")
        #expect(try state.button("mail").count == 197)
        try s.command("explain me")
        let explained = try s.app.readEvent(named: "explain", timeout: 10)
        #expect((explained["text"]?.string ?? "").contains("own id"), "\(explained)")
    }

    @Test("A stranger's empty LauncherEntry Update and its exit leave the real sender's count",
          .enabled(if: findOnPath("dbus-daemon") != nil, "dbus-daemon is not installed"))
    func strangerLauncherUpdate() throws {
        let bus = try SessionBus()
        let source = try LauncherEntrySource(desktopID: "org.example.Chat", busAddress: bus.address)
        source.start()
        let sender = try python(LauncherEntrySourceTests.sender, [bus.address, "org.example.Chat"])
        defer { sender.kill(SIGKILL); sender.waitForExit(timeout: 5) }
        #expect(try sender.readLine(timeout: 10) == "ready")
        let deadline = Deadline(seconds: 10)
        while source.reading.content != .count(23), !deadline.hasPassed {
            try sender.writeLine("count 23")
            _ = try sender.readLine(timeout: 10)
            _ = NotificationSourceTests.drive(source, timeout: 0.3) { source.reading.content == .count(23) }
        }
        try #require(source.reading.content == .count(23))
        let stranger = try python(busClient, [bus.address, "empty-update", "org.example.Chat"])
        #expect(try stranger.readLine(timeout: 10) == "sent")
        #expect(stranger.waitForExit(timeout: 10) == .exited(0))
        // The stranger is gone from the bus: its NameOwnerChanged has passed once a new call returns.
        let probe = try python(busClient, [bus.address, "closed"])
        #expect(probe.waitForExit(timeout: 10) == .exited(0))
        #expect(!NotificationSourceTests.drive(source, timeout: 1.5) { source.reading.content != .count(23) },
                "the real count stays: \(source.reading)")
        source.stop()
    }

    @Test("NotificationClosed from a stranger removes nothing; a 40 MB image-data notification is counted, the monitor kept",
          .enabled(if: access("/usr/lib/notification-daemon/notification-daemon", X_OK) == 0 && findOnPath("notify-send") != nil,
                   "notification-daemon or notify-send is missing"))
    func notificationStrangers() throws {
        let bus = try SessionBus()
        let server = try XvfbServer.start(width: 640, height: 480)
        defer { server.stop() }
        let daemon = try ChildProcess(executable: "/usr/lib/notification-daemon/notification-daemon", arguments: ["--replace"],
                                      environment: .inherited(adding: ["DISPLAY": server.display, "DBUS_SESSION_BUS_ADDRESS": bus.address]))
        defer { daemon.kill(SIGKILL); daemon.waitForExit(timeout: 5) }
        try bus.waitForOwner(of: "org.freedesktop.Notifications")
        let source = try NotificationSource(busAddress: bus.address)
        source.start()
        #expect(NotificationSourceTests.drive(source) { NotificationSourceTests.count(source) == 0 && source.serverName != nil })
        // The monitor is in place as soon as the source knows the daemon: the first one counts.
        var ids: [String] = []
        for n in 0..<3 {
            ids.append(try NotificationSourceTests.run("notify-send", ["-u", "critical", "-p", "message \(n)"], bus: bus) ?? "")
            #expect(NotificationSourceTests.drive(source) { NotificationSourceTests.count(source) == n + 1 }, "\(source.reading)")
        }
        let stranger = try python(busClient, [bus.address, "closed"] + ids)
        #expect(try stranger.readLine(timeout: 10) == "sent")
        #expect(!NotificationSourceTests.drive(source, timeout: 1.5) { NotificationSourceTests.count(source) != 3 },
                "a stranger's NotificationClosed changed the count: \(source.reading)")
        // 40 MB of image: the message is read past, its start kept; counted, nothing stale.
        let big = try python(busClient, [bus.address, "big-image", String(40 << 20)])
        var sent: String?
        #expect(NotificationSourceTests.drive(source, timeout: 90) {
            if sent == nil, let line = try? big.readLine(timeout: 0) { sent = line }
            return NotificationSourceTests.count(source) == 4
        }, "\(source.reading); \(big.stderrText)")
        #expect(source.reading.error == nil && !source.reading.isStale, "\(source.reading)")
        big.kill(SIGKILL)
        big.waitForExit(timeout: 10)
        // The same monitor still counts the next one.
        try NotificationSourceTests.run("notify-send", ["-u", "critical", "after"], bus: bus)
        #expect(NotificationSourceTests.drive(source) { NotificationSourceTests.count(source) == 5 }, "\(source.reading)")
        source.stop()
    }

    @Test("Out of descriptors (prlimit): accept pauses instead of spinning, one log line, and the waiting clients are served after",
          .enabled(if: findOnPath("prlimit") != nil, "prlimit is not installed"))
    func descriptorExhaustion() throws {
        let s = try DemoSession("loss-emfile", arguments: ["--no-state", "--count", "mail=0"])
        s.app.recordsAllEvents = false
        let path = try socketPath(s)
        let open = try listFolder("/proc/\(s.app.pid)/fd").count
        let lowered = try ChildProcess(executable: "prlimit", arguments: ["--pid", String(s.app.pid), "--nofile=\(open + 2):"])
        #expect(lowered.waitForExit(timeout: 10) == .exited(0), "\(lowered.stderrText)")
        let clients = try python(careless, [path, "waiting-clients", "20"])
        #expect(try clients.readLine(timeout: 20) == "connected")
        try s.sync()
        let before = try s.app.cpuTicks()
        measureInterval(seconds: 1.0)
        let used = try s.app.cpuTicks() - before
        #expect(used < 30, "\(used) ticks in a second while out of descriptors")
        let failures = occurrences(of: "accept failed", in: s.app.stderrText)
        #expect(failures == 1, "\(failures) accept failures logged: \(s.app.stderrText.suffix(600))")
        let raised = try ChildProcess(executable: "prlimit", arguments: ["--pid", String(s.app.pid), "--nofile=4096:"])
        #expect(raised.waitForExit(timeout: 10) == .exited(0))
        #expect(try clients.readLine(timeout: 30) == "ok 20", "\(clients.stderrText)")
        #expect(try waitForMail(s, 20) == 20)
        #expect(s.app.stderrText.contains("accepting again after"), "\(s.app.stderrText.suffix(600))")
    }

    @Test("A state path linked to a file that is not a state file is never written over")
    func symlinkedForeignState() throws {
        let f = try SourceBindingTests.Folder("foreign-state")
        f.write("notes.txt", "my notes\n")
        #expect(symlink(f.path + "/notes.txt", f.path + "/state.json") == 0)
        let s = try DemoSession("loss-foreign-state", arguments: ["--state", f.path + "/state.json"])
        try s.command("set mail 9")
        _ = try s.nextChange()
        try s.command("quit")
        #expect(s.app.waitForExit(timeout: 10) == .exited(0))
        let file = fopen(f.path + "/notes.txt", "r")
        var buffer = [CChar](repeating: 0, count: 256)
        let text = fgets(&buffer, 256, file).map { _ in String(cString: buffer) }
        fclose(file)
        #expect(text == "my notes\n")
        #expect(s.app.stderrText.contains("is not a badge-demo state file"), "\(s.app.stderrText)")
        #expect(s.app.stderrText.contains("the file is left as it is"), "\(s.app.stderrText)")
    }

    @Test("100 subscribers that never read cost little memory, each dropped past 64 KiB with a reason")
    func stalledSubscribers() throws {
        let s = try DemoSession("loss-subscribers", arguments: ["--no-state"])
        s.app.recordsAllEvents = false
        let path = try socketPath(s)
        try s.sync()
        let before = try s.app.residentKilobytes()
        let stalled = try python(careless, [path, "subscribers", "100"])
        #expect(try stalled.readLine(timeout: 20) == "subscribed")
        // Change events for every subscriber (each over 100 bytes) until all are dropped.
        var peak = before
        for _ in 0..<40 {
            let producer = try ChildProcess(executable: "/usr/bin/python3", arguments: ["-c", """
                import socket, sys
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); s.connect(sys.argv[1])
                s.sendall(b"inc bell\\n" * 200)
                got = b""
                while got.count(b"\\n") < 200: got += s.recv(65536)
                """, path])
            #expect(producer.waitForExit(timeout: 30) == .exited(0), "\(producer.stderrText)")
            _ = s.app.takePendingEvents()
            peak = max(peak, try s.app.residentKilobytes())
            if occurrences(of: "dropped subscriber", in: s.app.stderrText) >= 100 { break }
        }
        try s.sync()
        #expect(occurrences(of: "dropped subscriber", in: s.app.stderrText) == 100,
                "\(s.app.stderrText.suffix(400))")
        #expect(s.app.stderrText.contains("it left over 65536 bytes unread"))
        let grown = peak - before
        print("stalled subscribers: 100 × never reading, resident \(before) → peak \(peak) kB (+\(grown) kB)")
        #expect(grown < (runsUnderSanitizer ? 60_000 : 20_000), "resident memory grew by \(grown) kB with 100 stalled subscribers")
        stalled.closeStdin()
    }

    @Test("Messages name the right thing: a planted lock link and a non-socket; 128 clients give 'too many connections' (exit 2); a 10 KB LC_ALL is not echoed")
    func rightMessages() throws {
        let d = try SingleInstanceTests.Desktop("loss-messages")
        #expect(mkdir(d.runtime + "/badge-demo", 0o700) == 0)
        #expect(symlink(d.base + "/elsewhere", d.runtime + "/badge-demo/control.sock.lock") == 0)
        let linked = try d.launch(["--no-state"])
        let deadline = Deadline(seconds: 20)
        while !linked.stderrText.contains("instance lock"), !deadline.hasPassed { try d.x.sync() }
        #expect(linked.stderrText.contains("refusing \(d.runtime)/badge-demo/control.sock.lock: the instance lock is a symbolic link; remove it"),
                "\(linked.stderrText)")
        #expect(!linked.stderrText.contains("folder"), "\(linked.stderrText)")
        linked.kill(SIGTERM)
        _ = linked.waitForExit(timeout: 10)
        #expect(unlink(d.runtime + "/badge-demo/control.sock.lock") == 0)
        // A planted regular file where the socket goes.
        let planted = fopen(d.runtime + "/badge-demo/control.sock", "w")
        fclose(planted)
        let blocked = try d.launch(["--no-state"])
        let seen = Deadline(seconds: 20)
        while !blocked.stderrText.contains("control.sock"), !seen.hasPassed { try d.x.sync() }
        #expect(blocked.stderrText.contains("refusing \(d.runtime)/badge-demo/control.sock: it is not a socket; remove it"), "\(blocked.stderrText)")
        blocked.kill(SIGTERM)
        _ = blocked.waitForExit(timeout: 10)
        #expect(unlink(d.runtime + "/badge-demo/control.sock") == 0)
        // 128 clients held: every msg gets "too many connections", status 2.
        let app = try d.launch(["--no-state"])
        _ = try d.waitForInstance()
        let holder = try ChildProcess(executable: "/usr/bin/python3", arguments: ["-c", """
            import socket, sys
            held = []
            for _ in range(128):
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); s.connect(sys.argv[1]); s.sendall(b"hello\\n"); s.recv(200); held.append(s)
            print("held", flush=True)
            sys.stdin.readline()
            """, d.runtime + "/badge-demo/control.sock"])
        #expect(try holder.readLine(timeout: 30) == "held")
        for _ in 0..<20 {
            let inc = try d.msg(["inc", "mail"])
            #expect(inc.status == .exited(2) && inc.stderr.contains("too many connections"), "\(inc)")
        }
        holder.closeStdin()
        _ = holder.waitForExit(timeout: 10)
        _ = app
        // A 10 KB LC_ALL: no line of the app's output echoes it whole.
        let junk = String(repeating: "x", count: 10_000)
        let render = try ChildProcess(executable: BuiltProducts.executable(named: "badge-demo"),
                                      arguments: ["--screenshot", d.base + "/shot.png"],
                                      environment: .inherited(adding: ["LC_ALL": junk]))
        #expect(render.waitForExit(timeout: 30) == .exited(0), "\(render.stderrText.prefix(400))")
        let longest = render.stderrText.split(separator: "\n").map(\.count).max() ?? 0
        #expect(longest < 300, "a \(longest)-character line: \(render.stderrText.prefix(400))")
    }
}

private extension ChildProcess {
    /// The `dbus` field of a `--control` app's `state`, as text.
    func dbusState() throws -> String {
        try writeLine("state")
        return "\(try readEvent(named: "state", timeout: 10)["dbus"].map { "\($0)" } ?? "none")"
    }
}

/// The names in `path` (without "." and ".."), as `ls -A` lists them.
private func listFolder(_ path: String) throws -> [String] {
    guard let folder = opendir(path) else { throw HarnessError("cannot list \(path): \(String(cString: strerror(errno)))") }
    defer { closedir(folder) }
    var names: [String] = []
    while let entry = readdir(folder) {
        let name = withUnsafePointer(to: entry.pointee.d_name) { $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) } }
        if name != "." && name != ".." { names.append(name) }
    }
    return names
}

/// How many times `needle` occurs in `text`.
private func occurrences(of needle: String, in text: String) -> Int {
    var count = 0
    var rest = Substring(text)
    while let range = rest.firstRange(of: needle) {
        count += 1
        rest = rest[range.upperBound...]
    }
    return count
}
