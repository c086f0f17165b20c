import BadgeCore
import BadgeX11
import Glibc
import XvfbHarness

/// What letting producers in costs badge-demo (issue 20), measured from outside in one interleaved
/// run: a `badge-demo msg set` (a new process, as a mail hook runs it) to the badge pixels
/// changing, beside a click to the pixels changing and a line on an open socket connection to the
/// pixels changing; resident memory with no socket and no session bus beside the same app with its
/// socket, its D-Bus name and a subscribed `msg --watch`; and idle CPU and wakeups in that state.
enum ProducerBenchmark {
    /// One run's figures.
    struct Sample {
        var clicks: [Double] = []
        var messages: [Double] = []
        var socketLines: [Double] = []
        var idleTicks = 0
        var idleWakeups = 0
        var residentWithout = 0.0
        var residentWith = 0.0
    }

    /// Resident megabytes of an app launched with `environment`, once its badges are drawn and it is quiet.
    static func settledResident(demo: String, display: String, environment: [String: String], removing: [String]) throws -> Double {
        let x = try XTestClient(display: display)
        try x.watchScreen()
        let start = ContinuousClock.now
        var variables = environment
        variables["DISPLAY"] = display
        let child = try ChildProcess(executable: demo, arguments: ["--no-state"],
                                     environment: .inherited(adding: variables, removing: removing), stdin: .null, stdout: .null)
        defer { child.kill(SIGKILL); _ = child.waitForExit(timeout: 5) }
        _ = try x.waitForScreen(since: start, what: "badge-demo's badges") {
            try x.capture(window: x.root, rect: OutsideBenchmark.region).count(where: OutsideBenchmark.isBadgeRedPixel) >= 300
        }
        try OutsideBenchmark.settle(x)
        _ = try child.waitUntilSleeping(timeout: 2)
        return Double(try child.residentKilobytes()) / 1024
    }

    static func runOnce(demo: String, rounds: Int) throws -> Sample {
        var sample = Sample()
        let server = try XvfbServer.start(width: 640, height: 480, depth: 24)
        defer { server.stop() }
        let bus = try SessionBus()
        let runtime = try Artifacts.path(for: "bench-runtime-\(getpid())")
        removeTree(runtime)
        guard mkdir(runtime, 0o700) == 0 else { throw HarnessError("mkdir \(runtime) failed") }
        defer { removeTree(runtime) }
        let producing = ["XDG_RUNTIME_DIR": runtime, "DBUS_SESSION_BUS_ADDRESS": bus.address]
        // The same app with nothing listening: no runtime folder, no session bus.
        sample.residentWithout = try settledResident(demo: demo, display: server.display, environment: ["XDG_RUNTIME_DIR": ""],
                                                     removing: ["DBUS_SESSION_BUS_ADDRESS"])

        let x = try XTestClient(display: server.display)
        try x.movePointerToCorner()
        try x.watchScreen()
        let start = ContinuousClock.now
        let app = try ChildProcess(executable: demo, arguments: ["--no-state"],
                                   environment: .inherited(adding: producing.merging(["DISPLAY": server.display]) { $1 }),
                                   stdin: .null, stdout: .null)
        defer { app.kill(SIGKILL); _ = app.waitForExit(timeout: 5) }
        _ = try x.waitForScreen(since: start, what: "badge-demo's badges") {
            try x.capture(window: x.root, rect: OutsideBenchmark.region).count(where: OutsideBenchmark.isBadgeRedPixel) >= 300
        }
        try OutsideBenchmark.settle(x)
        let watcher = try ChildProcess(executable: demo, arguments: ["msg", "--watch"],
                                       environment: .inherited(adding: producing, removing: ["DISPLAY"]), stdin: .null)
        defer { watcher.kill(SIGKILL); _ = watcher.waitForExit(timeout: 5) }
        let connection = try ControlSocketClient(path: runtime + "/badge-demo/control.sock")
        let targets = OutsideBenchmark.demoTargets()
        let mail = targets[1]
        func timeToChange(near target: (x: Int, y: Int), _ what: String, _ act: () throws -> Void) throws -> Double {
            try OutsideBenchmark.settle(x, quiet: 0.15)
            let before = OutsideBenchmark.badgeMask(try x.capture(window: x.root, rect: OutsideBenchmark.region), near: target)
            let acted = ContinuousClock.now
            try act()
            return try x.waitForScreen(since: acted, timeout: 5, what: "the badge to change (\(what))") {
                OutsideBenchmark.badgeMask(try x.capture(window: x.root, rect: OutsideBenchmark.region), near: target) != before
            }.met
        }
        try x.move(toRoot: mail)
        for index in 0..<rounds {
            sample.clicks.append(try timeToChange(near: mail, "click") {
                x.fakeInput(.buttonPress, detail: 1)
                x.fakeInput(.buttonRelease, detail: 1)
                try x.flush()
            })
            // The screen is watched while the client runs (as a user sees it); it is reaped afterwards.
            var client: ChildProcess?
            sample.messages.append(try timeToChange(near: mail, "msg") {
                client = try ChildProcess(executable: demo, arguments: ["msg", "set", "mail", "\(60 + index)"],
                                          environment: .inherited(adding: producing, removing: ["DISPLAY"]), stdin: .null)
            })
            if let client, client.waitForExit(timeout: 5) != .exited(0) { throw HarnessError("msg set failed: \(client.stderrText)") }
            sample.socketLines.append(try timeToChange(near: mail, "socket") {
                _ = try connection.request("set mail \(80 + index)")
            })
        }
        try OutsideBenchmark.settle(x, quiet: 0.5)
        _ = try app.waitUntilSleeping(timeout: 2)
        let (ticks, wakeups) = try idle(app, seconds: 10)
        sample.idleTicks = ticks
        sample.idleWakeups = wakeups
        sample.residentWith = Double(try app.residentKilobytes()) / 1024
        return sample
    }

    /// Runs `runs` times and prints the rows.
    static func run(demo: String, runs: Int) throws {
        var samples: [Sample] = []
        for _ in 0..<runs { samples.append(try runOnce(demo: demo, rounds: 10)) }
        func ms(_ v: Double) -> String { "\(Statistics.format(v * 1e3, digits: 2)) ms" }
        let click = Statistics.median(samples.flatMap(\.clicks))
        let message = Statistics.median(samples.flatMap(\.messages))
        let line = Statistics.median(samples.flatMap(\.socketLines))
        row("click → badge repainted (same runs)", ms(click), "reference")
        row("`badge-demo msg set` (a new process) → badge repainted", "\(ms(message)) (\(Statistics.format(message / click, digits: 2)) × click)",
            "about a click", "includes starting the msg process")
        row("a line on an open socket connection → badge repainted", "\(ms(line)) (\(Statistics.format(line / click, digits: 2)) × click)",
            "≤ a click")
        let without = Statistics.median(samples.map(\.residentWithout)), with = Statistics.median(samples.map(\.residentWith))
        row("resident memory: no socket, no session bus → socket, session bus (dock count, D-Bus name) and a subscriber",
            "\(Statistics.format(without, digits: 1)) MB → \(Statistics.format(with, digits: 1)) MB (+\(Statistics.format(with - without, digits: 2)) MB)",
            "small", "after 30 changes")
        let ticks = samples.map(\.idleTicks).max() ?? 0, wakeups = samples.map(\.idleWakeups).max() ?? 0
        row("idle for 10 s with the socket, the bus name and a subscriber: CPU ticks / wakeups (worst run)", "\(ticks) / \(wakeups)", "0 / 0")
    }
}
