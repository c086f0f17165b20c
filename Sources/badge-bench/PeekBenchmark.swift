import BadgeCore
import Glibc
import XvfbHarness

/// What the peek costs (issue 29), measured from outside in one interleaved run: a right press to
/// the popup's first frame on the screen, with 12 items, beside a click to the badge repainted
/// (the reference, same runs); resident memory before the first peek and after it closed; and idle
/// CPU and wakeups once it is closed.
enum PeekBenchmark {
    struct Sample {
        var clicks: [Double] = []
        var peeks: [Double] = []
        var residentBefore = 0.0
        var residentAfter = 0.0
        var idleTicks = 0
        var idleWakeups = 0
    }

    /// Where the popup's first row appears, under the mail button: small, so that reading it back
    /// costs the measurement little.
    static let popupRegion = PixelRect(x: 60, y: 60, width: 160, height: 30)

    static func runOnce(demo: String, rounds: Int) throws -> Sample {
        var sample = Sample()
        let server = try XvfbServer.start(width: 640, height: 480, depth: 24)
        defer { server.stop() }
        let x = try XTestClient(display: server.display)
        try x.movePointerToCorner()
        try x.watchScreen()
        let start = ContinuousClock.now
        let app = try ChildProcess(executable: demo, arguments: ["--no-state", "--control"],
                                   environment: .inherited(adding: ["DISPLAY": server.display, "BADGE_REDUCE_MOTION": "1"],
                                                           removing: ["DBUS_SESSION_BUS_ADDRESS"]))
        defer { app.kill(SIGKILL); _ = app.waitForExit(timeout: 5) }
        _ = try app.readEvent(named: "ready", timeout: 10)
        _ = try x.waitForScreen(since: start, what: "badge-demo's badges") {
            try x.capture(window: x.root, rect: OutsideBenchmark.region).count(where: OutsideBenchmark.isBadgeRedPixel) >= 300
        }
        var lines = ""
        for index in 0..<12 { lines += "add mail k\(index) Sender number \(index)\tA subject line for message \(index)\n" }
        try app.writeDraining(Array(lines.utf8) + Array("sync items\n".utf8))
        _ = try app.readEvent(named: "sync", timeout: 10) { $0["token"]?.string == "items" }
        try OutsideBenchmark.settle(x)
        _ = try app.waitUntilSleeping(timeout: 2)
        sample.residentBefore = Double(try app.residentKilobytes()) / 1024
        let targets = OutsideBenchmark.demoTargets()
        let (bell, chat) = (targets[0], targets[1])
        for _ in 0..<rounds {
            // The reference: a click on the bell to its badge repainted.
            try OutsideBenchmark.settle(x, quiet: 0.15)
            try x.move(toRoot: bell)
            try OutsideBenchmark.settle(x, quiet: 0.15)
            _ = try app.waitUntilSleeping(timeout: 2)  // the window icon of the last change drawn
            let before = OutsideBenchmark.badgeMask(try x.capture(window: x.root, rect: OutsideBenchmark.region), near: bell)
            let clicked = ContinuousClock.now
            x.fakeInput(.buttonPress, detail: 1)
            x.fakeInput(.buttonRelease, detail: 1)
            try x.flush()
            sample.clicks.append(try x.waitForScreen(since: clicked, timeout: 5, what: "the bell's badge to change") {
                OutsideBenchmark.badgeMask(try x.capture(window: x.root, rect: OutsideBenchmark.region), near: bell) != before
            }.met)
            // A right press on mail (12 items) to the popup's pixels on the screen.
            try x.move(toRoot: chat)
            try OutsideBenchmark.settle(x, quiet: 0.15)
            _ = try app.waitUntilSleeping(timeout: 2)
            let empty = try x.capture(window: x.root, rect: popupRegion)
            let pressed = ContinuousClock.now
            x.fakeInput(.buttonPress, detail: 3)
            x.fakeInput(.buttonRelease, detail: 3)
            try x.flush()
            sample.peeks.append(try x.waitForScreen(since: pressed, timeout: 5, what: "the peek to appear") {
                try x.capture(window: x.root, rect: popupRegion).differingPixels(from: empty, tolerance: 8) > 400
            }.met)
            _ = try app.readEvent(named: "peek", timeout: 5) { $0["action"]?.string == "opened" }
            try x.key(keysym: 0xff1b)
            _ = try app.readEvent(named: "peek", timeout: 5) { $0["action"]?.string == "closed" }
        }
        try x.movePointerToCorner()
        try OutsideBenchmark.settle(x, quiet: 0.5)
        _ = try app.waitUntilSleeping(timeout: 2)
        let (ticks, wakeups) = try idle(app, seconds: 10)
        sample.idleTicks = ticks
        sample.idleWakeups = wakeups
        sample.residentAfter = Double(try app.residentKilobytes()) / 1024
        return sample
    }

    /// Runs `runs` times and prints the rows.
    static func run(demo: String, runs: Int) throws {
        var samples: [Sample] = []
        for _ in 0..<runs { samples.append(try runOnce(demo: demo, rounds: 10)) }
        func ms(_ v: Double) -> String { "\(Statistics.format(v * 1e3, digits: 2)) ms" }
        let click = Statistics.median(samples.flatMap(\.clicks))
        let peek = Statistics.median(samples.flatMap(\.peeks))
        row("click → badge repainted (same runs)", ms(click), "reference")
        row("right press → the peek's first frame on the screen, 12 items", "\(ms(peek)) (\(Statistics.format(peek / click, digits: 2)) × click)",
            "< 2 clicks", "window made on the first open, reused after")
        let before = Statistics.median(samples.map(\.residentBefore)), after = Statistics.median(samples.map(\.residentAfter))
        row("resident memory: 12 items, before the first peek → after 10 peeks, closed",
            "\(Statistics.format(before, digits: 1)) MB → \(Statistics.format(after, digits: 1)) MB (+\(Statistics.format(after - before, digits: 2)) MB)",
            "small")
        let ticks = samples.map(\.idleTicks).max() ?? 0, wakeups = samples.map(\.idleWakeups).max() ?? 0
        row("idle for 10 s after the peek closed: CPU ticks / wakeups (worst run)", "\(ticks) / \(wakeups)", "0 / 0")
    }
}
