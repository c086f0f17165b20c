import BadgeCore
import Glibc
import Testing
import XvfbHarness

/// The soak with everything live (issue 38; `make soak`, BADGE_SOAK=1, BADGE_SOAK_SECONDS long,
/// 1800 by default): every kind of source (dunst, Maildir, notmuch, a launcher, a command, IMAP on
/// Dovecot), `msg` producers on the control socket and `busctl` on D-Bus at a steady rate, a
/// `msg --watch` subscriber read all along, config reloads and peeks. Each round every button must
/// be exact and current; afterwards resident memory is flat after warm-up, descriptors and threads
/// are what they were, and the app is idle once it stops.
@Suite("E2E: live soak", .timeLimit(.minutes(90)),
       .enabled(if: SoakTests.soak && access("/usr/sbin/dovecot", X_OK) == 0 && access("/usr/bin/notmuch", X_OK) == 0
                && findOnPath("dunst") != nil && findOnPath("notify-send") != nil && findOnPath("dunstctl") != nil
                && findOnPath("busctl") != nil, "make soak only (BADGE_SOAK=1); needs dovecot-imapd, notmuch, dunst, busctl"))
struct LiveSoakTests {
    static var seconds: Double { getenv("BADGE_SOAK_SECONDS").flatMap { Double(String(cString: $0)) } ?? 1800 }

    /// The threads of `pid` (/proc/PID/task).
    static func threads(_ pid: pid_t) -> Int {
        guard let dir = opendir("/proc/\(pid)/task") else { return -1 }
        defer { closedir(dir) }
        var count = 0
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if !name.hasPrefix(".") { count += 1 }
        }
        return count
    }

    @Test("Everything live for BADGE_SOAK_SECONDS: every round exact; RSS flat after warm-up, no descriptor or thread leak, idle after")
    func everythingLive() throws {
        let live = try SixKinds("live-soak", extraButtons: #", {"id": "sock", "icon": "bell"}, {"id": "bus", "icon": "bell"}"#)
        let (f, s, imap) = (live.f, live.s, live.imap)
        let demo = try BuiltProducts.executable(named: "badge-demo")
        func run(_ arguments: [String]) throws {
            let tool = try ChildProcess(executable: arguments[0], arguments: Array(arguments.dropFirst()), environment: live.tools, stdout: .null)
            #expect(tool.waitForExit(timeout: 20) == .exited(0), "\(arguments): \(tool.stderrText)")
        }
        // The subscriber: every event, read all along (one that stopped reading would be dropped).
        let watcher = try ChildProcess(executable: demo, arguments: ["msg", "--watch"], environment: live.tools)
        defer { watcher.kill(SIGTERM); watcher.waitForExit(timeout: 5) }
        var watched = 0
        func drainWatcher() { while (try? watcher.readLine(timeout: 0.001)) != nil { watched += 1 } }

        var wanted: [String: Int?] = ["bell": nil, "mail": 2, "nm": 1, "chat": 5, "ci": 1, "imap": 1, "sock": nil, "bus": nil]
        try EveryKindAtOnceTests.expect(s, wanted, after: "the start")
        let start = ContinuousClock.now
        let warmUp = min(120, Self.seconds / 5)
        var baseline: (rss: Int, fds: [String], threads: Int)?
        var round = 0
        var counts = (sock: 0, bus: 0, imap: 1, reloads: 0, peeks: 0)
        while secondsSince(start) < Self.seconds {
            round += 1
            // Producers: msg on the socket, busctl on D-Bus.
            try run([demo, "msg", "inc", "sock"])
            counts.sock += 1
            try run(["busctl", "--address=" + live.bus.address, "call", "io.github.badgekit.BadgeDemo", "/io/github/badgekit/BadgeDemo",
                     "io.github.badgekit.Badges1", "Increment", "sx", "bus", "1"])
            counts.bus += 1
            wanted["sock"] = counts.sock
            wanted["bus"] = counts.bus
            // Sources: a notification shown and closed, a delivery and a read, a launcher count,
            // the command's count, every fifth round an IMAP delivery.
            try run(["notify-send", "-u", "critical", "round \(round)"])
            wanted["bell"] = 1
            try EveryKindAtOnceTests.expect(s, wanted, after: "round \(round): a notification")
            try run(["dunstctl", "close"])
            wanted["bell"] = .some(nil)
            try f.mailbox("Maildir/INBOX", "m.add('Subject: r\(round)\\n\\nbody')")
            try f.mailbox("Maildir/INBOX", "k = [k for k in m.keys() if m[k]['Subject'] == 'r\(round)'][0]\nmsg = m[k]\nmsg.set_subdir('cur')\nmsg.add_flag('S')\nm[k] = msg")
            try live.chat.writeLine("count \(5 + round % 3)")
            _ = try live.chat.readLine(timeout: 10)
            wanted["chat"] = 5 + round % 3
            f.write("ci-count", "\(round % 4 + 1)\n")
            try s.command("refresh ci")
            wanted["ci"] = round % 4 + 1
            if round % 5 == 0 {
                try imap.deliver("Bob <bob@example.org>", "round \(round)")
                counts.imap += 1
                wanted["imap"] = counts.imap
            }
            // Every third round a peek opened and closed; every tenth the config read again.
            if round % 3 == 0 {
                try s.command("peek mail --at 300,300")
                _ = try s.app.readEvent(named: "peek", timeout: 10) { $0["action"]?.string == "opened" }
                try s.key(Keysym.escape)
                _ = try s.app.readEvent(named: "peek", timeout: 10) { $0["action"]?.string == "closed" }
                counts.peeks += 1
            }
            if round % 10 == 0 {
                f.write("config.json", live.config + String(repeating: " ", count: round / 10 % 2))
                _ = try s.app.readEvent(named: "config", timeout: 10)
                counts.reloads += 1
            }
            try EveryKindAtOnceTests.expect(s, wanted, after: "round \(round)")
            drainWatcher()
            _ = s.app.takePendingEvents()
            if baseline == nil && secondsSince(start) >= warmUp {
                baseline = (try s.app.residentKilobytes(), try s.app.openDescriptors(), Self.threads(s.app.pid))
            }
        }
        let elapsed = secondsSince(start)
        try s.sync()
        drainWatcher()
        let rss = try s.app.residentKilobytes(), fds = try s.app.openDescriptors(), threads = Self.threads(s.app.pid)
        let base = try #require(baseline, "the soak ended before its warm-up")
        // Idle once it stops: CPU ticks and context switches over 5 s (the IMAP source's 2 s
        // keepalive and the timeouts it waits on are the only timers left).
        let ticks = try s.app.cpuTicks(), switches = try s.app.contextSwitches()
        measureInterval(seconds: 5)
        let idleTicks = try s.app.cpuTicks() - ticks, idleSwitches = try s.app.contextSwitches() - switches
        #expect(addressSanitizerIsActive || rss - base.rss < 2048, "resident memory grew from \(base.rss) kB to \(rss) kB after warm-up")
        #expect(fds == base.fds, "descriptors: \(base.fds) → \(fds)")
        #expect(threads == base.threads, "threads: \(base.threads) → \(threads)")
        #expect(idleTicks <= 1, "\(idleTicks) CPU ticks in 5 s once the soak stopped")
        // Not 0: the config's IMAP keepalive (2 s) and its timeouts wake the loop; a spin would show here.
        #expect(idleSwitches <= 20, "\(idleSwitches) context switches in 5 s once the soak stopped")
        #expect(watched >= round, "the subscriber read \(watched) events in \(round) rounds")
        print("live soak: \(round) rounds in \(Int(elapsed)) s (msg inc \(counts.sock), D-Bus Increment \(counts.bus), IMAP deliveries \(counts.imap - 1), "
            + "peeks \(counts.peeks), reloads \(counts.reloads), subscriber events \(watched)); RSS \(base.rss) kB after \(Int(warmUp)) s → \(rss) kB "
            + "(\(rss - base.rss) kB); fds \(base.fds.count) → \(fds.count); threads \(base.threads) → \(threads); "
            + "after it stopped: \(idleTicks) CPU ticks, \(idleSwitches) context switches in 5 s")
    }
}
