import BadgeCore
import Glibc
import Testing
import XvfbHarness

/// A D-Bus endpoint that misbehaves one way (Fixtures/hostile-bus.py): listening on a socket of its
/// own in a private folder until the test ends.
final class HostileBus {
    let process: ChildProcess
    let folder: String
    let address: String

    init(_ mode: String) throws {
        var template = Array("/tmp/badgekit-test-bus-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ $0.baseAddress.flatMap { mkdtemp($0) } }) else {
            throw HarnessError("mkdtemp failed: errno \(errno)")
        }
        folder = String(cString: made)
        let socket = folder + "/bus"
        let script = #filePath.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
            + "/Fixtures/hostile-bus.py"
        process = try ChildProcess(executable: "/usr/bin/python3", arguments: [script, mode, socket], stdin: .null)
        guard try process.readLine(timeout: 10) == "ready" else {
            throw HarnessError("hostile-bus.py \(mode) did not start: \(process.stderrText)")
        }
        address = "unix:path=" + socket
    }

    deinit {
        process.kill(SIGKILL)
        process.waitForExit(timeout: 5)
        removeTree(folder)
    }
}

/// A real dbus-daemon with a configuration of the test's own: one that lets in only ANONYMOUS
/// clients (as the bus of another user, or a misconfigured one, refuses us), one that lets every
/// user in ("every-user", as no session bus should), or one whose policy denies every message.
final class RestrictedBus {
    let process: ChildProcess
    let folder: String
    let address: String

    init(_ kind: String) throws {
        guard let executable = findOnPath("dbus-daemon") else { throw HarnessError("dbus-daemon is not installed") }
        var template = Array("/tmp/badgekit-test-bus-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ $0.baseAddress.flatMap { mkdtemp($0) } }) else {
            throw HarnessError("mkdtemp failed: errno \(errno)")
        }
        folder = String(cString: made)
        let auth = kind == "anonymous-only" ? "<auth>ANONYMOUS</auth><allow_anonymous/>" : "<auth>EXTERNAL</auth>"
        let policy: String
        switch kind {
        case "anonymous-only": policy = "<allow send_destination=\"*\"/><allow own=\"*\"/>"
        case "every-user":
            policy = "<allow user=\"*\"/><allow send_destination=\"*\" eavesdrop=\"true\"/><allow eavesdrop=\"true\"/><allow own=\"*\"/>"
            chmod(folder, 0o755)
        default:
            policy = "<deny send_destination=\"*\"/><deny send_type=\"signal\"/><deny own=\"*\"/><deny receive_type=\"method_call\"/>"
        }
        let config = """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig><type>session</type><listen>unix:path=\(folder)/bus</listen>\(auth)
            <policy context="default">\(policy)</policy></busconfig>
            """
        let file = folder + "/bus.conf"
        let fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        _ = Array(config.utf8).withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        process = try ChildProcess(executable: executable, arguments: ["--config-file=" + file, "--nofork", "--nopidfile", "--print-address=1"],
                                   stdin: .null)
        guard let line = try process.readLine(timeout: 10), !line.isEmpty else {
            throw HarnessError("dbus-daemon (\(kind)) printed no address: \(process.stderrText)")
        }
        address = line
    }

    deinit {
        process.kill(SIGKILL)
        process.waitForExit(timeout: 5)
        removeTree(folder)
    }
}

/// Nothing on a bus can freeze, spin or crash the app: each hostile party as the session bus and
/// as the accessibility bus, and a real dbus-daemon stopped with SIGSTOP and then continued.
@Suite("E2E: buses that misbehave", .endToEnd(minutes: 3))
struct BusFaultTests {
    static let modes = ["never-accepts", "silent", "garbage", "auth-silent", "refuses", "closes-mid-call"]

    /// The app on `bus` in `role`: the window maps as usual (DemoSession waits for "ready"), a click
    /// and `state` answer, idle costs no CPU, and SIGTERM ends it with status 0 within 100 ms.
    static func checkSurvives(role: String, mode: String) throws {
        let bus = try HostileBus(mode)
        let environment = role == "session"
            ? ["DBUS_SESSION_BUS_ADDRESS": bus.address]
            : ["AT_SPI_BUS_ADDRESS": bus.address]
        // No saved counts: their write, a moment after the click, is not what is measured here.
        let s = try DemoSession("bus-\(role)-\(mode)", arguments: ["--no-state"], environment: environment)
        try s.click(MouseButton.left, on: "bell")
        #expect(try s.nextChange()["text"]?.string == "4", "a click answers while the bus misbehaves")
        try s.moveAwayAndSync()
        try s.app.writeLine("state")
        let state = try s.app.readEvent(named: "state", timeout: 5)
        if role == "session" {
            let status = state["sessionBus"]?.string ?? ""
            #expect(!status.hasPrefix("ready"), "the session bus cannot be ready: \(status)")
        } else {
            let status = state["accessibility"]?["status"]?.string
            #expect(status == "connecting" || status == "waiting", "\(state["accessibility"] ?? .null)")
        }
        // Idle: the only wake-ups are the next attempts, seconds apart.
        _ = try s.app.waitUntilSleeping(timeout: 2)
        let before = try s.app.cpuTicks()
        measureInterval(seconds: 2)
        let spent = try s.app.cpuTicks() - before
        #expect(spent <= 1, "\(spent) CPU ticks in 2 s idle with a \(mode) \(role) bus")
        let start = ContinuousClock.now
        s.app.kill(SIGTERM)
        let status = s.app.waitForExit(timeout: 5)
        #expect(status == .exited(0), "status \(status?.description ?? "running"); stderr: \(s.app.stderrText)")
        // A quit that waited on the bus would take its deadline (seconds); 0.5 s leaves room for a
        // loaded machine (0.10 s was seen beside four builds) without hiding a wait.
        #expect(secondsSince(start) < 0.5, "SIGTERM took \(secondsSince(start)) s")
    }

    @Test("A hostile session bus", arguments: modes)
    func hostileSessionBus(mode: String) throws {
        try Self.checkSurvives(role: "session", mode: mode)
    }

    @Test("A hostile accessibility bus", arguments: modes)
    func hostileAccessibilityBus(mode: String) throws {
        try Self.checkSurvives(role: "accessibility", mode: mode)
    }

    @Test("A real dbus-daemon that lets in only ANONYMOUS clients, or denies every message, as either bus: no crash, the window works",
          .enabled(if: findOnPath("dbus-daemon") != nil, "needs dbus-daemon (apt package dbus)"),
          arguments: ["anonymous-only", "deny-all"], ["session", "accessibility"])
    func restrictedRealBus(kind: String, role: String) throws {
        let bus = try RestrictedBus(kind)
        let environment = role == "session" ? ["DBUS_SESSION_BUS_ADDRESS": bus.address] : ["AT_SPI_BUS_ADDRESS": bus.address]
        let s = try DemoSession("bus-\(kind)-\(role)", arguments: ["--no-state"], environment: environment)
        try s.click(MouseButton.left, on: "bell")
        #expect(try s.nextChange()["text"]?.string == "4")
        try s.moveAwayAndSync()
        try s.app.writeLine("state")
        let state = try s.app.readEvent(named: "state", timeout: 5)
        if role == "session" {
            let status = state["sessionBus"]?.string ?? ""
            // ANONYMOUS only: refused, and tried again. Deny-all: the daemon drops what it denies, so the
            // greeting may wait for its deadline; either way the bus costs a status, not the window.
            #expect(kind == "deny-all" || !status.hasPrefix("ready"), "\(status)")
            #expect(!status.isEmpty, "\(state)")
        } else {
            let status = state["accessibility"]?["status"]?.string
            #expect(status != "registered", "\(state["accessibility"] ?? .null)")
        }
        #expect(s.app.waitForExit(timeout: 0) == nil, "still running: \(s.app.stderrText)")
        s.app.kill(SIGTERM)
        #expect(s.app.waitForExit(timeout: 5) == .exited(0), "stderr: \(s.app.stderrText)")
    }

    @Test("A bus that refuses says why in state")
    func refusalIsReported() throws {
        let bus = try HostileBus("refuses")
        let s = try DemoSession("bus-refuses-reason", environment: ["AT_SPI_BUS_ADDRESS": bus.address])
        let deadline = Deadline(seconds: 10)
        var reason = ""
        while !deadline.hasPassed {
            try s.app.writeLine("state")
            let state = try s.app.readEvent(named: "state", timeout: 5)
            reason = state["accessibility"]?["reason"]?.string ?? ""
            if reason.contains("refused") { break }
            _ = try s.app.readEvent(named: "accessibility", timeout: 2)
        }
        #expect(reason.contains("refused") && reason.contains("ANONYMOUS"), "reason: \(reason)")
        #expect(s.app.waitForExit(timeout: 0) == nil)
    }

    @Test("A session bus stopped before start: the window works, and after SIGCONT the dock count comes back",
          .enabled(if: findOnPath("dbus-daemon") != nil, "needs dbus-daemon (apt package dbus)"))
    func stoppedSessionBus() throws {
        let bus = try SessionBus()
        Glibc.kill(bus.daemonPID, SIGSTOP)
        var continued = false
        defer { if !continued { Glibc.kill(bus.daemonPID, SIGCONT) } }
        let s = try DemoSession("bus-stopped", arguments: ["--no-state"], environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        try s.command("inc bell")
        #expect(try s.nextChange()["text"]?.string == "4")
        try s.sync()
        _ = try s.app.waitUntilSleeping(timeout: 2)
        let before = try s.app.cpuTicks()
        measureInterval(seconds: 1)
        #expect(try s.app.cpuTicks() - before <= 1, "idle while the bus is stopped")
        Glibc.kill(bus.daemonPID, SIGCONT)
        continued = true
        // The next attempt (at most the handshake's 5 s plus a pause) greets the bus and publishes.
        let update = try bus.nextUpdate(timeout: 20) { $0.count == 16 }
        #expect(update.countVisible == true)
        try s.app.writeLine("state")
        let state = try s.app.readEvent(named: "state", timeout: 5)
        #expect(state["sessionBus"]?.string?.hasPrefix("ready") == true, "\(state["sessionBus"] ?? .null)")
    }

    @Test("A session bus stopped while the app runs: nothing freezes, and the count goes out after SIGCONT",
          .enabled(if: findOnPath("dbus-daemon") != nil, "dbus-daemon is not installed"))
    func sessionBusStoppedLater() throws {
        let bus = try SessionBus()
        let s = try DemoSession("bus-stopped-later", environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        _ = try bus.nextUpdate { $0.count == 15 }
        Glibc.kill(bus.daemonPID, SIGSTOP)
        var continued = false
        defer { if !continued { Glibc.kill(bus.daemonPID, SIGCONT) } }
        for _ in 0..<20 { try s.command("inc mail") }
        try s.sync()
        try s.click(MouseButton.left, on: "bell")
        #expect(try s.nextChange()["text"]?.string != nil)
        try s.sync()
        Glibc.kill(bus.daemonPID, SIGCONT)
        continued = true
        let update = try bus.nextUpdate(timeout: 20) { $0.count == 36 }
        #expect(update.count == 36)
    }

    @Test("An accessibility bus stopped before start: the toolbar works, and after SIGCONT screen readers find it",
          .enabled(if: AccessibilityStack.isAvailable, "needs at-spi2-core, python3-pyatspi and dbus-daemon"))
    func stoppedAccessibilityBus() throws {
        var stack: AccessibilityStack?
        var stopped: pid_t?
        defer { if let stopped { Glibc.kill(stopped, SIGCONT) } }
        let s = try DemoSession("a11y-stopped", prepare: { server, x in
            let made = try AccessibilityStack(display: server.display, x: x)
            stack = made
            guard let daemon = made.accessibilityBusDaemon() else { throw HarnessError("no accessibility bus daemon found") }
            Glibc.kill(daemon, SIGSTOP)
            stopped = daemon
            return made.environment
        })
        guard let stack, let daemon = stopped else { throw HarnessError("no stack") }
        try s.click(MouseButton.left, on: "bell")
        #expect(try s.nextChange()["text"]?.string == "4")
        try s.moveAwayAndSync()
        Glibc.kill(daemon, SIGCONT)
        stopped = nil
        let deadline = Deadline(seconds: 25)
        var status = ""
        while !deadline.hasPassed {
            try s.app.writeLine("state")
            status = try s.app.readEvent(named: "state", timeout: 5)["accessibility"]?["status"]?.string ?? ""
            if status == "registered" { break }
            _ = try? s.app.readEvent(named: "accessibility", timeout: 2)
        }
        #expect(status == "registered")
        let reader = try stack.screenReader()
        try reader.find()
        #expect(try reader.action("click", at: [0, 0, 0]))
        #expect(try s.nextChange()["text"]?.string == "5")
    }
}
