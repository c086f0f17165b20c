import BadgeCore
import Glibc
import XvfbHarness

/// The same two-button badge toolbar in four programs, measured from outside the way a user sees
/// it, identically for each, in one interleaved run: a bare C program (XCB and cairo, no toolkit:
/// the baseline), badge-demo, Tk and GTK 3.
///
/// Each run gets a fresh Xvfb with no window manager. The screen is watched through a DAMAGE
/// object on the root window and read back with GetImage: launch to the window mapped
/// (SubstructureNotify on the root), launch to the first badge pixels, each click (XTEST) to the
/// badge pixels changing, the CPU time of a 200-click burst (/proc/PID/schedstat), and resident
/// memory once settled.
enum OutsideBenchmark {
    /// One program drawing the toolbar.
    struct Program {
        let name: String
        let executable: String
        var arguments: [String] = []
        var environment: [String: String] = [:]
        /// Where to click the bell and the mail button, in window (= root) coordinates.
        let targets: [(x: Int, y: Int)]
        /// Runs with an accessibility stack (at-spi2-core's bus and registry) and a screen reader
        /// (pyatspi) that finds the program and listens for its events before the clicks, as Orca does.
        var withScreenReader = false
    }

    /// The events Orca listens for that the toolbar sends.
    static let screenReaderEvents = ["object:state-changed:", "object:property-change:accessible-name",
                                     "object:property-change:accessible-description", "object:announcement",
                                     "window:activate", "window:deactivate", "object:children-changed:"]

    /// One run's figures.
    struct Sample {
        var mapped: Double
        var firstBadge: Double
        var clicks: [Double]
        var burstCPU: Double
        var resident: Double
    }

    /// A program's medians over the runs.
    struct Result {
        let program: Program
        let mapped: Double
        let firstBadge: Double
        let click: Double
        let burstCPU: Double
        let resident: Double
    }

    /// The part of the screen the toolbars occupy (no window manager: at the top-left corner).
    static let region = PixelRect(x: 0, y: 0, width: 320, height: 120)

    /// The pixels of the badge near `target` that are badge red, as a set: it changes when the
    /// count (or the bounce) changes, not when a button's hover or pressed surface does.
    static func badgeMask(_ image: CapturedImage, near target: (x: Int, y: Int)) -> [Int] {
        var mask: [Int] = []
        let area = PixelRect(x: max(0, target.x - 24), y: 0, width: 64, height: target.y + 6).intersection(image.bounds)
        image.forEachPixel(in: area) { x, y, p in
            if isBadgeRedPixel(p) { mask.append(y * 1000 + x) }
        }
        return mask
    }

    static func isBadgeRedPixel(_ p: RGB) -> Bool {
        p.r >= 170 && p.g <= 120 && p.b <= 120 && Int(p.r) - Int(p.g) >= 90
    }

    /// Waits until the screen has been quiet (no update) for `quiet` seconds.
    static func settle(_ x: XTestClient, quiet: Double = 0.3, timeout: Double = 10) throws {
        let deadline = Deadline(seconds: timeout)
        while !deadline.hasPassed {
            guard try x.nextScreenEvent(timeout: quiet) != nil else { return }
        }
        throw HarnessError("the screen did not settle within \(timeout) s")
    }

    static func runOnce(_ program: Program, clicks: Int = 20, burst: Int = 200) throws -> Sample {
        let server = try XvfbServer.start(width: 640, height: 480, depth: 24)
        defer { server.stop() }
        let x = try XTestClient(display: server.display)
        try x.movePointerToCorner()
        try x.watchScreen()
        try settle(x, quiet: 0.05)
        var variables = program.environment
        variables["DISPLAY"] = server.display
        // The stack is up before the launch (the time it takes is not the program's).
        let stack = program.withScreenReader ? try AccessibilityStack(display: server.display) : nil
        if let stack { variables.merge(stack.environment) { $1 } }
        let start = ContinuousClock.now
        let child = try ChildProcess(executable: program.executable, arguments: program.arguments,
                                     environment: .inherited(adding: variables), stdin: .null, stdout: .null)
        defer { child.kill(SIGKILL); _ = child.waitForExit(timeout: 5) }
        // Both badges: most of two badges' worth of red on the screen.
        let first = try x.waitForScreen(since: start, what: "\(program.name)'s badges") {
            if child.waitForExit(timeout: 0) != nil { throw HarnessError("\(program.name) exited: \(child.stderrText)") }
            return try x.capture(window: x.root, rect: region).count(where: isBadgeRedPixel) >= 300
        }
        guard let mapped = first.mapped else { throw HarnessError("\(program.name): no MapNotify seen") }
        try settle(x)
        let reader = try stack?.screenReader()
        if let reader {
            try reader.find()
            try reader.listen(screenReaderEvents)
            try settle(x)
        }
        defer { withExtendedLifetime(reader) {} }

        var clickTimes: [Double] = []
        for index in 0..<clicks {
            let target = program.targets[index % program.targets.count]
            // The pointer arrives first (hover repaints are not part of the click), then the click.
            try x.move(toRoot: target)
            try settle(x, quiet: 0.15)
            let before = badgeMask(try x.capture(window: x.root, rect: region), near: target)
            let pressed = ContinuousClock.now
            x.fakeInput(.buttonPress, detail: 1)
            x.fakeInput(.buttonRelease, detail: 1)
            try x.flush()
            let changed = try x.waitForScreen(since: pressed, timeout: 5, what: "\(program.name)'s badge to change") {
                badgeMask(try x.capture(window: x.root, rect: region), near: target) != before
            }
            clickTimes.append(changed.met)
            try settle(x)
        }

        // The burst: `burst` clicks 5 ms apart, alternating the two buttons, animations on.
        try settle(x)
        _ = try child.waitUntilSleeping(timeout: 2)
        let cpuBefore = try child.cpuNanoseconds()
        for index in 0..<burst {
            let target = program.targets[index % program.targets.count]
            x.fakeInput(.motionNotify, x: target.x, y: target.y)
            x.fakeInput(.buttonPress, detail: 1)
            x.fakeInput(.buttonRelease, detail: 1)
            try x.flush()
            var pause = timespec(tv_sec: 0, tv_nsec: 5_000_000), left = timespec()
            while nanosleep(&pause, &left) != 0 && errno == EINTR { pause = left }
            _ = try x.nextScreenEvent(timeout: 0)   // keep our own queue short
        }
        try settle(x, quiet: 0.5, timeout: 30)
        _ = try child.waitUntilSleeping(timeout: 2)
        let cpu = Double(try child.cpuNanoseconds() - cpuBefore) / 1e9
        let resident = Double(try child.residentKilobytes()) / 1024
        return Sample(mapped: mapped, firstBadge: first.met, clicks: clickTimes, burstCPU: cpu, resident: resident)
    }

    /// Runs every program `rounds` times, interleaved (program order rotates each round).
    static func run(_ programs: [Program], rounds: Int) throws -> [Result] {
        var samples: [[Sample]] = Array(repeating: [], count: programs.count)
        for round in 0..<rounds {
            for offset in 0..<programs.count {
                let index = (round + offset) % programs.count
                samples[index].append(try runOnce(programs[index]))
            }
        }
        return zip(programs, samples).map { program, runs in
            Result(program: program, mapped: Statistics.median(runs.map(\.mapped)),
                   firstBadge: Statistics.median(runs.map(\.firstBadge)),
                   click: Statistics.median(runs.flatMap(\.clicks)),
                   burstCPU: Statistics.median(runs.map(\.burstCPU)),
                   resident: Statistics.median(runs.map(\.resident)))
        }
    }

    /// The click targets of badge-demo's default toolbar: the bell's and the mail button's icons.
    static func demoTargets() -> [(x: Int, y: Int)] {
        let clock = ManualClock()
        final class NoText: TextMeasuring {
            func size(of text: String, font: BadgeFont) -> Size { Size(width: Double(text.count) * 7, height: 14) }
        }
        let measurer = NoText()
        let toolbar = Toolbar(buttons: ["bell", "mail", "chat", "updates"].map { id in
            ToolbarButton(id: id, iconName: id, badge: BadgeController(accessibilityLabel: id, content: .none, clock: clock, measurer: measurer))
        })
        toolbar.layout(size: toolbar.preferredSize, scale: 1, direction: .leftToRight)
        return toolbar.buttons.prefix(2).map { button in
            let frame = button.frame.pixels(scale: 1, rounding: .nearest)
            return (frame.center.x, frame.maxY - 6)
        }
    }

    /// Prints the table: each program's medians, with ratios to the C program and to the best peer.
    static func report(_ results: [Result]) {
        guard let c = results.first(where: { $0.program.name.hasPrefix("bare C") }),
              let ours = results.first(where: { $0.program.name == "badge-demo" }) else { return }
        let peers = results.filter { !$0.program.name.hasPrefix("badge-demo") && !$0.program.name.hasPrefix("bare C") }
        func ms(_ v: Double) -> String { "\(Statistics.format(v * 1e3, digits: 2)) ms" }
        func s(_ v: Double) -> String { "\(Statistics.format(v, digits: 3)) s" }
        func mb(_ v: Double) -> String { "\(Statistics.format(v, digits: 1)) MB" }
        print("")
        print("| measure (medians, \(results.first.map { _ in "one interleaved run" } ?? "")) | " + results.map(\.program.name).joined(separator: " | ")
              + " | badge-demo ÷ C | badge-demo ÷ best peer | budget |")
        print("| --- |" + String(repeating: " --- |", count: results.count + 3))
        func line(_ name: String, _ value: (Result) -> Double, _ format: (Double) -> String, budget: String) {
            let best = peers.map(value).min()
            let cells = results.map { format(value($0)) }
            let toC = value(ours) / max(value(c), 1e-12)
            let toPeer = best.map { value(ours) / max($0, 1e-12) }
            print("| \(name) | " + cells.joined(separator: " | ") + " | \(Statistics.format(toC, digits: 2)) | "
                  + (toPeer.map { Statistics.format($0, digits: 2) } ?? "–") + " | \(budget) |")
        }
        line("launch → window mapped", \.mapped, ms, budget: "≤ 2 × C")
        line("launch → first badge pixels", \.firstBadge, ms, budget: "≤ 1.2 × C")
        line("click → badge repainted", \.click, ms, budget: "≤ 1.1 × C, below Tk")
        line("CPU for 200 clicks 5 ms apart, alternating", \.burstCPU, s, budget: "≤ 1.5 × C, below Tk and GTK 3")
        line("resident memory after settling", \.resident, mb, budget: "≤ 15 MB")
        if let heard = results.first(where: { $0.program.withScreenReader }) {
            // What the screen reader costs badge-demo: the same measures, with ÷ badge-demo alone.
            print("")
            print("| with a screen reader listening (AT-SPI2) | badge-demo | \(heard.program.name) | ÷ badge-demo |")
            print("| --- | --- | --- | --- |")
            for (name, value, format) in [("launch → first badge pixels", \Result.firstBadge, ms), ("click → badge repainted", \Result.click, ms),
                                          ("CPU for 200 clicks", \Result.burstCPU, s), ("resident memory", \Result.resident, mb)] {
                print("| \(name) | \(format(ours[keyPath: value])) | \(format(heard[keyPath: value])) | "
                      + "\(Statistics.format(heard[keyPath: value] / max(ours[keyPath: value], 1e-12), digits: 2)) |")
            }
        }
        fflush(nil)
    }
}
