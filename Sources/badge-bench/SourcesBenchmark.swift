import BadgeCore
import Glibc
import XvfbHarness

/// What binding buttons to real sources costs badge-demo (issue 21), from outside, interleaved:
/// launch to the first badge pixels and resident memory with a config of plain buttons, beside the
/// same buttons bound to a Maildir of 10,000 messages, a command and the notification daemon (a
/// session bus without one); and idle CPU and wakeups with those sources.
enum SourcesBenchmark {
    struct Sample {
        var launch: Double
        var counts: Double
        var resident: Double
        var ticks = 0
        var wakeups = 0
    }

    /// A Maildir with `count` new messages, written directly (what a delivery leaves).
    static func makeMaildir(_ path: String, count: Int) throws {
        for folder in ["", "/cur", "/new", "/tmp"] {
            guard mkdir(path + folder, 0o700) == 0 || errno == EEXIST else { throw HarnessError("mkdir \(path + folder)") }
        }
        for index in 0..<count {
            let file = fopen("\(path)/new/\(1_700_000_000 + index).M\(index)P1.bench", "w")
            guard let file else { throw HarnessError("cannot write a message in \(path)") }
            fputs("Subject: \(index)\n\nbody\n", file)
            fclose(file)
        }
    }

    static func write(_ text: String, to path: String) {
        let file = fopen(path, "w")
        fputs(text, file)
        fclose(file)
    }

    static func runOnce(demo: String, config: String, bus: SessionBus, measureIdle: Bool) throws -> Sample {
        let server = try XvfbServer.start(width: 640, height: 480, depth: 24)
        defer { server.stop() }
        let x = try XTestClient(display: server.display)
        try x.movePointerToCorner()
        try x.watchScreen()
        try OutsideBenchmark.settle(x, quiet: 0.05)
        let start = ContinuousClock.now
        let child = try ChildProcess(executable: demo, arguments: ["--no-state", "--config", config],
                                     environment: .inherited(adding: ["DISPLAY": server.display, "DBUS_SESSION_BUS_ADDRESS": bus.address]),
                                     stdin: .null, stdout: .null)
        defer { child.kill(SIGKILL); _ = child.waitForExit(timeout: 5) }
        // The first frame: the bell's badge (its count is in the config). Then the mail count, which
        // the bound config learns from its Maildir.
        func redPixels() throws -> Int {
            if child.waitForExit(timeout: 0) != nil { throw HarnessError("badge-demo exited: \(child.stderrText)") }
            return try x.capture(window: x.root, rect: OutsideBenchmark.region).count(where: OutsideBenchmark.isBadgeRedPixel)
        }
        let first = try x.waitForScreen(since: start, what: "badge-demo's first badge") { try redPixels() >= 150 }
        let counts = try x.waitForScreen(since: start, what: "badge-demo's counts") { try redPixels() >= 330 }
        try OutsideBenchmark.settle(x, quiet: 0.5)
        _ = try child.waitUntilSleeping(timeout: 2)
        var sample = Sample(launch: first.met, counts: counts.met, resident: Double(try child.residentKilobytes()) / 1024)
        if measureIdle {
            let (ticks, wakeups) = try idle(child, seconds: 5)
            sample.ticks = ticks
            sample.wakeups = wakeups
        }
        return sample
    }

    static func run(demo: String, rounds: Int) throws {
        let folder = try Artifacts.path(for: "bench-sources-\(getpid())")
        removeTree(folder)
        guard mkdir(folder, 0o700) == 0 else { throw HarnessError("mkdir \(folder)") }
        defer { removeTree(folder) }
        try makeMaildir(folder + "/Maildir", count: 10_000)
        let plain = folder + "/plain.json", bound = folder + "/bound.json"
        write(#"{"buttons": [{"id": "bell", "content": {"kind": "count", "count": 3}}, {"id": "mail", "content": {"kind": "count", "count": 12}}, {"id": "ci", "icon": "updates", "content": {"kind": "count", "count": 4}}]}"#, to: plain)
        write(#"{"buttons": [{"id": "bell", "content": {"kind": "count", "count": 3}, "source": {"notifications": true}}, {"id": "mail", "source": {"maildir": "\#(folder)/Maildir"}}, {"id": "ci", "icon": "updates", "source": {"command": "echo 4", "interval": 3600}}]}"#, to: bound)
        let bus = try SessionBus()
        var plainSamples: [Sample] = [], boundSamples: [Sample] = []
        for round in 0..<rounds {
            for which in (round % 2 == 0 ? [0, 1] : [1, 0]) {
                if which == 0 {
                    plainSamples.append(try runOnce(demo: demo, config: plain, bus: bus, measureIdle: false))
                } else {
                    boundSamples.append(try runOnce(demo: demo, config: bound, bus: bus, measureIdle: true))
                }
            }
        }
        func ms(_ v: Double) -> String { "\(Statistics.format(v * 1e3, digits: 1)) ms" }
        let launchPlain = Statistics.median(plainSamples.map(\.launch)), launchBound = Statistics.median(boundSamples.map(\.launch))
        row("launch → first frame: plain buttons → bound to Maildir (10,000), a command, notifications",
            "\(ms(launchPlain)) → \(ms(launchBound)) (\(Statistics.format(launchBound / launchPlain, digits: 2)) ×)", "≈ 1 ×",
            "sources start after the first frame")
        row("launch → the Maildir's count on screen (bound)", ms(Statistics.median(boundSamples.map(\.counts))), "", "10,000 messages read")
        let residentPlain = Statistics.median(plainSamples.map(\.resident)), residentBound = Statistics.median(boundSamples.map(\.resident))
        row("resident memory: plain → bound", "\(Statistics.format(residentPlain, digits: 1)) MB → \(Statistics.format(residentBound, digits: 1)) MB (+\(Statistics.format(residentBound - residentPlain, digits: 2)) MB)",
            "small", "10,000 file names kept")
        row("idle for 5 s with the three sources: CPU ticks / wakeups (worst run)",
            "\(boundSamples.map(\.ticks).max() ?? 0) / \(boundSamples.map(\.wakeups).max() ?? 0)", "0 / 0")
    }
}
