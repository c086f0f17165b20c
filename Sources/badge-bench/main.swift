// badge-bench: the numbers in the README, measured in one run (`make bench`, release build).
// Every figure is a median over repeated runs; where a baseline makes sense it is measured in the
// same run and reported as a ratio, because these machines are shared and noisy.
import BadgeCore
import BadgeDrawing
import Glibc
import XvfbHarness

func row(_ name: String, _ value: String, _ budget: String, _ note: String = "") {
    let line = "| \(name) | \(value) | \(budget) | \(note) |"
    print(line)
    fflush(nil)
}

func makeBadge(clock: ManualClock, text: TextLayouts, count: Int = 9) -> BadgeController {
    BadgeController(accessibilityLabel: "Mail", content: .count(count), clock: clock, measurer: text)
}

func makeToolbar(clock: ManualClock, text: TextLayouts, scale: Double) -> Toolbar {
    let buttons = [("bell", 3), ("mail", 12)].map { id, count in
        ToolbarButton(id: id, iconName: id, badge: makeBadge(clock: clock, text: text, count: count))
    }
    let toolbar = Toolbar(buttons: buttons)
    toolbar.layout(size: toolbar.preferredSize, scale: scale, direction: .leftToRight)
    return toolbar
}

// MARK: Core

func benchPresentation(text: TextLayouts) {
    let clock = ManualClock(now: 1)
    let badge = makeBadge(clock: clock, text: text)
    badge.layout(host: Rect(x: 18, y: 18, width: 24, height: 24), bounds: Rect(x: 0, y: 0, width: 110, height: 60),
                 direction: .leftToRight, scale: 1)
    badge.increment()   // 9 → 10: bounce, roll and width morph all run
    var samples: [Double] = []
    var sink = 0.0
    for _ in 0..<200 {
        let iterations = 1000
        let elapsed = Statistics.time {
            for i in 0..<iterations {
                let p = badge.presentation(at: 1 + Double(i % 300) / 1000)
                sink += p.scale
            }
        }
        samples.append(elapsed / Double(iterations))
    }
    if sink.isNaN { print("") }
    row("one badge's presentation for a frame (mid-animation)", "\(Statistics.format(Statistics.median(samples) * 1e6, digits: 3)) µs", "< 2 µs")
}

func benchBurst(text: TextLayouts) {
    var samples: [Double] = []
    var animations = 0.0
    for _ in 0..<21 {
        let clock = ManualClock(now: 1)
        let badge = makeBadge(clock: clock, text: text)
        badge.layout(host: Rect(x: 18, y: 18, width: 24, height: 24), bounds: Rect(x: 0, y: 0, width: 110, height: 60),
                     direction: .leftToRight, scale: 1)
        samples.append(Statistics.time {
            for _ in 0..<10_000 { badge.increment() }
            _ = badge.presentation(at: clock.now)
        })
        animations = (badge.animationEndTime ?? 0) - clock.now
    }
    row("burst of 10,000 changes to one badge in one frame", "\(Statistics.format(Statistics.median(samples) * 1e3, digits: 3)) ms",
        "< 5 ms", "one animation, ends \(Statistics.format(animations, digits: 2)) s later")
}

// MARK: Drawing

func benchFrames(text: TextLayouts, icons: IconLibrary) throws {
    for scale in [1.0, 2.0] {
        let clock = ManualClock(now: 1)
        let toolbar = makeToolbar(clock: clock, text: text, scale: scale)
        let renderer = ToolbarRenderer(theme: .light, text: text, icons: icons)
        let image = try ImageSurface(width: Int(toolbar.bounds.width * scale), height: Int(toolbar.bounds.height * scale))
        func frames(animating: Bool) throws -> Double {
            var samples: [Double] = []
            for round in 0..<300 {
                if animating && round % 12 == 0 { toolbar.button(id: "mail")?.badge.increment() }
                let time = clock.now + Double(round % 12) / 60
                samples.append(try Statistics.time { try image.draw { context in renderer.draw(toolbar, at: time, in: context) } })
                if animating && round % 12 == 11 { clock.advance(by: 1) }
            }
            return Statistics.median(samples)
        }
        let still = try frames(animating: false)
        let bouncing = try frames(animating: true)
        let budget = scale == 1 ? "≤ 0.3 ms" : "≤ 1 ms"
        row("toolbar frame during a bounce, offscreen, \(Int(scale))×", "\(Statistics.format(bouncing * 1e3, digits: 3)) ms", budget,
            "still frame \(Statistics.format(still * 1e3, digits: 3)) ms (ratio \(Statistics.format(bouncing / still)))")
    }
}

// MARK: Under Xvfb

func benchRunning(display: String, demo: String) throws {
    let child = try ChildProcess(executable: demo, arguments: ["--control"],
                                 environment: .inherited(adding: ["DISPLAY": display]), stdin: .pipe)
    defer { child.kill(SIGKILL); _ = child.waitForExit(timeout: 5) }
    _ = try child.readEvent(named: "ready")

    let x = try XTestClient(display: display)
    try x.movePointerToCorner()
    try x.sync()   // the server has processed the motion before the app is asked to sync
    try child.writeLine("sync before")
    _ = try child.readEvent(named: "sync")
    let (ticksBefore, wakeupsBefore) = try idle(child, seconds: 10)
    row("idle for 10 s before any animation: CPU ticks / wakeups", "\(ticksBefore) / \(wakeupsBefore)", "0 / 0",
        "wakeups = the process's context switches")

    for _ in 0..<40 {
        try child.writeLine("inc bell")
        _ = try child.readEvent(named: "change")
    }

    try x.movePointerToCorner()
    try x.sync()   // the server has processed the motion before the app is asked to sync
    // Let the last bounce finish: "animating" turns false, then sync.
    let settle = Deadline(seconds: 5)
    repeat {
        try child.writeLine("state")
    } while try child.readEvent(named: "state")["animating"]?.bool == true && !settle.hasPassed
    try child.writeLine("sync idle")
    _ = try child.readEvent(named: "sync")
    let (ticksAfter, wakeupsAfter) = try idle(child, seconds: 10)
    row("idle for 10 s after 40 animated changes: CPU ticks / wakeups", "\(ticksAfter) / \(wakeupsAfter)", "0 / 0")
    row("resident memory after 40 animated changes", "\(Statistics.format(Double(try child.residentKilobytes()) / 1024, digits: 1)) MB", "flat")
}

/// CPU ticks and context switches (each wakeup from poll() is one) of `child` over `seconds` of quiet.
func idle(_ child: ChildProcess, seconds: Int) throws -> (ticks: Int, wakeups: Int) {
    // The app answered the sync just before blocking in poll(): wait until it sleeps, so that last
    // switch into poll() is not counted as an idle wakeup.
    try child.waitUntilSleeping(timeout: 1)
    let ticks = try child.cpuTicks(), wakeups = try child.contextSwitches()
    var pollSet = [pollfd(fd: -1, events: 0, revents: 0)]
    _ = poll(&pollSet, 1, Int32(seconds * 1000))   // wait without touching the app
    return (try child.cpuTicks() - ticks, try child.contextSwitches() - wakeups)
}

/// How much of Resources/badge-demo.order still names functions of the release binary: the order
/// file goes stale as code changes (`make order-file` regenerates it), which costs memory.
func benchOrderFile(demo: String) throws {
    let orderPath = "Resources/badge-demo.order"
    guard let file = fopen(orderPath, "re") else {
        row("order file symbols found in the release binary", "not measured", "", "\(orderPath) not found")
        return
    }
    var wanted = Set<String>()
    var line = [CChar](repeating: 0, count: 4096)
    while fgets(&line, Int32(line.count), file) != nil {
        let text = String(decoding: line.prefix { $0 != 0 && $0 != 10 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if !text.isEmpty && !text.hasPrefix("#") { wanted.insert(text) }
    }
    fclose(file)
    let nm = try ChildProcess(executable: "nm", arguments: ["--defined-only", demo], stdin: .null)
    var present = Set<String>()
    while let symbol = try nm.readLine(timeout: 30) {
        // "address type name"
        if let name = symbol.split(separator: " ").last.map(String.init), wanted.contains(name) { present.insert(name) }
    }
    _ = nm.waitForExit(timeout: 5)
    row("order file symbols found in the release binary", "\(present.count) of \(wanted.count)", "all",
        "fewer after code changes: `make order-file`")
}

/// The four programs side by side, from outside (`OutsideBenchmark`).
func benchOutside(demo: String, rounds: Int) throws {
    let toolkitTargets = [(x: 26, y: 42), (x: 76, y: 42)]   // the bell's and the mail button's lower half
    var programs = [
        OutsideBenchmark.Program(name: "bare C (XCB + cairo)", executable: ".build/peers/c-badge-toolbar", targets: toolkitTargets),
        OutsideBenchmark.Program(name: "badge-demo", executable: demo, targets: OutsideBenchmark.demoTargets()),
    ]
    // Another build of badge-demo (an earlier commit's), measured in the same interleaved run: what
    // a change cost, as a ratio, on this noisy machine.
    if let baseline = getenv("BADGE_BENCH_BASELINE_DEMO").map({ String(cString: $0) }), !baseline.isEmpty {
        programs.append(OutsideBenchmark.Program(name: "badge-demo (baseline build)", executable: baseline,
                                                 targets: OutsideBenchmark.demoTargets()))
    }
    if AccessibilityStack.isAvailable {
        programs.append(OutsideBenchmark.Program(name: "badge-demo + screen reader", executable: demo,
                                                 targets: OutsideBenchmark.demoTargets(), withScreenReader: true))
    } else {
        print("badge-demo with a screen reader: not measured (needs at-spi2-core and python3-pyatspi: `make test-deps`)")
    }
    let peersWanted = getenv("BADGE_BENCH_NO_PEERS") == nil   // for quick profiling runs: C and badge-demo only
    if !peersWanted {
        print("Tk and GTK 3: skipped (BADGE_BENCH_NO_PEERS)")
    } else if access("/usr/bin/wish", X_OK) == 0 {
        programs.append(OutsideBenchmark.Program(name: "Tk 8.6", executable: "/usr/bin/wish",
                                                 arguments: ["Benchmarks/peers/badge-toolbar.tcl"], targets: toolkitTargets))
    } else {
        print("Tk: not measured (/usr/bin/wish is missing: run `make peers` first)")
    }
    if !peersWanted {
    } else if access(".build/peers/gtk3-badge-toolbar", X_OK) == 0 {
        // No accessibility bus here: do not let GTK wait for one.
        programs.append(OutsideBenchmark.Program(name: "GTK 3", executable: ".build/peers/gtk3-badge-toolbar",
                                                 environment: ["NO_AT_BRIDGE": "1"], targets: toolkitTargets))
    } else {
        print("GTK 3: not measured (.build/peers/gtk3-badge-toolbar is missing: run `make peers` first)")
    }
    guard access(programs[0].executable, X_OK) == 0 else {
        print("bare C baseline: not measured (\(programs[0].executable) is missing: `make bench` builds it)")
        return
    }
    OutsideBenchmark.report(try OutsideBenchmark.run(programs, rounds: rounds))
}

// MARK: Main

print("| measurement | median | budget | notes |")
print("| --- | --- | --- | --- |")
do {
    if getenv("BADGE_BENCH_ONLY").map({ String(cString: $0) }) == "outside" {
        // Only the four programs side by side (for profiling changes quickly).
        let rounds = getenv("BADGE_BENCH_ROUNDS").flatMap { Int(String(cString: $0)) } ?? 3
        try benchOutside(demo: try BuiltProducts.executable(named: "badge-demo"), rounds: max(1, rounds))
        exit(0)
    }
    if getenv("BADGE_BENCH_ONLY").map({ String(cString: $0) }) == "sources" {
        let rounds = getenv("BADGE_BENCH_ROUNDS").flatMap { Int(String(cString: $0)) } ?? 3
        try SourcesBenchmark.run(demo: try BuiltProducts.executable(named: "badge-demo"), rounds: max(1, rounds))
        exit(0)
    }
    if getenv("BADGE_BENCH_ONLY").map({ String(cString: $0) }) == "producers" {
        let rounds = getenv("BADGE_BENCH_ROUNDS").flatMap { Int(String(cString: $0)) } ?? 3
        try ProducerBenchmark.run(demo: try BuiltProducts.executable(named: "badge-demo"), runs: max(1, rounds))
        exit(0)
    }
    if getenv("BADGE_BENCH_ONLY").map({ String(cString: $0) }) == "bars" {
        let rounds = getenv("BADGE_BENCH_ROUNDS").flatMap { Int(String(cString: $0)) } ?? 3
        try BarBenchmark.run(demo: try BuiltProducts.executable(named: "badge-demo"), runs: max(1, rounds))
        exit(0)
    }
    if getenv("BADGE_BENCH_ONLY").map({ String(cString: $0) }) == "peek" {
        let rounds = getenv("BADGE_BENCH_ROUNDS").flatMap { Int(String(cString: $0)) } ?? 3
        try PeekBenchmark.run(demo: try BuiltProducts.executable(named: "badge-demo"), runs: max(1, rounds))
        exit(0)
    }
    let text = try TextLayouts()
    let icons = try IconLibrary()
    benchPresentation(text: text)
    benchBurst(text: text)
    try benchFrames(text: text, icons: icons)
    let scaling = try ScalingBenchmark.run(text: text, icons: icons)
    for point in scaling {
        row("frame with \(point.buttons) badge buttons: one animating / full redraw",
            "\(Statistics.format(point.damageLimited * 1e3, digits: 3)) ms / \(Statistics.format(point.fullRedraw * 1e3, digits: 3)) ms",
            "flat / linear")
    }
    let plotPath = CommandLine.arguments.dropFirst().first ?? "Resources/scaling.png"
    try ScalingBenchmark.plot(scaling, text: text, to: plotPath)
    print("scaling plot: \(plotPath)")
    let demo = try BuiltProducts.executable(named: "badge-demo")
    let server = try XvfbServer.start(width: 640, height: 480, depth: 24)
    defer { server.stop() }
    try benchRunning(display: server.display, demo: demo)
    try benchOrderFile(demo: demo)
    let rounds = getenv("BADGE_BENCH_ROUNDS").flatMap { Int(String(cString: $0)) } ?? 3
    try ProducerBenchmark.run(demo: demo, runs: max(1, rounds))
    try SourcesBenchmark.run(demo: demo, rounds: max(1, rounds))
    try PeekBenchmark.run(demo: demo, runs: max(1, rounds))
    try BarBenchmark.run(demo: demo, runs: max(1, rounds))
    try benchOutside(demo: demo, rounds: max(1, rounds))
} catch {
    print("badge-bench: \(error)")
    exit(1)
}
