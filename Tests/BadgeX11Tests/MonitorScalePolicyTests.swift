import BadgeCore
import Testing
@testable import BadgeX11

/// The per-monitor scale's pure parts: the layout, the hysteresis of a window's monitor, and the
/// layered choice of its scale with the layer that decided.
@Suite("Shell: per-monitor scale policy") struct MonitorScalePolicyTests {
    static let left = Monitor(name: "LEFT", frame: PixelRect(x: 0, y: 0, width: 640, height: 480))
    static let right = Monitor(name: "RIGHT", outputs: ["HDMI-1"], frame: PixelRect(x: 640, y: 0, width: 640, height: 480))
    static let screen = Monitor(name: "screen", outputs: ["screen"], frame: PixelRect(x: 0, y: 0, width: 1280, height: 480))
    static let layout = MonitorLayout([left, right])
    static let policy = MonitorScalePolicy(perMonitor: ["LEFT": 1, "RIGHT": 2])

    @Test("The layout drops empty monitors and aggregates (the screen-wide monitor), keeps mirrors")
    func layoutCleaning() {
        let empty = Monitor(name: "off", frame: PixelRect(x: 0, y: 0, width: 0, height: 0))
        let mirror = Monitor(name: "MIRROR", frame: Self.left.frame)
        #expect(MonitorLayout([Self.screen, Self.left, empty, Self.right]).monitors.map(\.name) == ["LEFT", "RIGHT"])
        #expect(MonitorLayout([Self.left, mirror]).monitors.map(\.name) == ["LEFT", "MIRROR"])
        #expect(MonitorLayout([Self.screen]).monitors.map(\.name) == ["screen"])
        // LEFT alone covers half the screen-wide monitor: both stay, and a window on LEFT is LEFT's.
        let partly = MonitorLayout([Self.screen, Self.left])
        #expect(partly.monitors.map(\.name) == ["screen", "LEFT"])
        #expect(partly.mostOf(PixelRect(x: 10, y: 10, width: 100, height: 60))?.name == "LEFT")
        #expect(partly.mostOf(PixelRect(x: 700, y: 10, width: 100, height: 60))?.name == "screen")
        #expect(Self.layout.monitor(named: "HDMI-1")?.name == "RIGHT", "found by output name")
        #expect(Self.layout.monitor(named: "DP-9") == nil)
    }

    @Test("Shares: the part of the window each monitor shows")
    func shares() {
        let window = PixelRect(x: 600, y: 10, width: 100, height: 60)
        #expect(MonitorLayout.share(of: window, on: Self.left) == 0.4)
        #expect(MonitorLayout.share(of: window, on: Self.right) == 0.6)
        #expect(Self.layout.mostOf(window)?.name == "RIGHT")
        #expect(Self.layout.mostOf(PixelRect(x: 2000, y: 0, width: 10, height: 10)) == nil)
    }

    /// Moves a window from `from` to `to` in steps of `step` pixels, resizing it to its monitor's
    /// scale as the host does; returns the origins at which its monitor changed.
    static func sweep(from: Int, to: Int, step: Int, logicalWidth: Int = 110, startScale: Double? = nil,
                      tracker: inout MonitorTracker) -> [(x: Int, monitor: String)] {
        var changes: [(x: Int, monitor: String)] = []
        var scale = startScale ?? 1
        var x = from
        while step > 0 ? x <= to : x >= to {
            // The move, then the resize the new scale asks for: both are evaluated, as ConfigureNotify does.
            for _ in 0..<2 {
                let window = PixelRect(x: x, y: 10, width: Int(Double(logicalWidth) * scale), height: Int(60 * scale))
                let before = tracker.current
                let monitor = tracker.update(window: window, scale: scale, layout: layout) { policy.choice(for: $0).scale }
                if let monitor, before != nil, monitor.name != before { changes.append((x, monitor.name)) }
                scale = policy.choice(for: monitor).scale
            }
            x += step
        }
        return changes
    }

    @Test("Small steps left to right: the monitor changes exactly once, once 60 % is across; never back while straddling")
    func hysteresisRightwards() {
        var tracker = MonitorTracker()
        let changes = Self.sweep(from: 400, to: 900, step: 1, tracker: &tracker)
        #expect(changes.count == 1, "\(changes)")
        // 110 px wide at 1×: 60 % (66 px) is on RIGHT from x = 640 - 44 = 596.
        #expect(changes.first?.x == 596 && changes.first?.monitor == "RIGHT", "\(changes)")
    }

    @Test("Back right to left at 2×: once, only when the window at the new scale is 60 % on the left")
    func hysteresisLeftwards() {
        var tracker = MonitorTracker()
        _ = tracker.update(window: PixelRect(x: 900, y: 10, width: 220, height: 120), scale: 2, layout: Self.layout) { Self.policy.choice(for: $0).scale }
        let changes = Self.sweep(from: 900, to: 200, step: -1, startScale: 2, tracker: &tracker)
        #expect(changes.count == 1, "\(changes)")
        // At 2× the window is 220 wide: LEFT shows 60 % of it (132 px) from x = 640 - 132 = 508.
        #expect(changes.first?.x == 508 && changes.first?.monitor == "LEFT", "\(changes)")
    }

    @Test("Straddling back and forth around the boundary never flips")
    func straddlingNeverFlaps() {
        var tracker = MonitorTracker()
        var changes = 0
        var previous: String?
        for x in [560, 580, 590, 595, 590, 580, 585, 594, 560, 594] {
            let window = PixelRect(x: x, y: 0, width: 110, height: 60)
            let monitor = tracker.update(window: window, scale: 1, layout: Self.layout) { Self.policy.choice(for: $0).scale }
            if let previous, monitor?.name != previous { changes += 1 }
            previous = monitor?.name
        }
        #expect(changes == 0 && previous == "LEFT")
    }

    @Test("Mirrors (the same rectangle) never flap; equal monitors of a different scale take turns never")
    func mirrorsNeverFlap() {
        let mirror = Monitor(name: "MIRROR", frame: Self.left.frame)
        let layout = MonitorLayout([Self.left, mirror])
        let policy = MonitorScalePolicy(perMonitor: ["LEFT": 1, "MIRROR": 2])
        var tracker = MonitorTracker()
        var seen = Set<String>()
        for _ in 0..<5 {
            let monitor = tracker.update(window: PixelRect(x: 10, y: 10, width: 100, height: 60), scale: 1, layout: layout) {
                policy.choice(for: $0).scale
            }
            seen.insert(monitor?.name ?? "none")
        }
        #expect(seen == ["LEFT"])
    }

    @Test("A removed monitor, a window off its monitor, no monitors at all")
    func layoutChanges() {
        var tracker = MonitorTracker()
        let window = PixelRect(x: 700, y: 10, width: 110, height: 60)
        #expect(tracker.update(window: window, scale: 1, layout: Self.layout) { _ in 1 }?.name == "RIGHT")
        // RIGHT is gone: the window goes to the first monitor.
        #expect(tracker.update(window: window, scale: 1, layout: MonitorLayout([Self.left])) { _ in 1 }?.name == "LEFT")
        // Moved wholly onto RIGHT, which is back: LEFT shows none of it, so it follows at once.
        #expect(tracker.update(window: window, scale: 1, layout: Self.layout) { _ in 1 }?.name == "RIGHT")
        #expect(tracker.update(window: window, scale: 1, layout: .none) { _ in 1 } == nil && tracker.current == nil)
        // On the screen-wide monitor, a monitor appears under the window: the more specific one takes it, for good.
        _ = tracker.update(window: window, scale: 1, layout: MonitorLayout([Self.screen])) { _ in 1 }
        let specific = MonitorLayout([Self.screen, Self.right])
        #expect(tracker.update(window: window, scale: 1, layout: specific) { _ in 1 }?.name == "RIGHT")
        #expect(tracker.update(window: window, scale: 1, layout: specific) { _ in 1 }?.name == "RIGHT")
        #expect(MonitorTracker(threshold: 0.2).threshold == MonitorTracker.defaultThreshold, "a threshold of half or less would flap")
    }

    @Test("The layers, in order, each with its source")
    func layers() {
        let dpiMonitor = Monitor(name: "DP-1", outputs: ["DP-1"], frame: PixelRect(x: 0, y: 0, width: 3840, height: 2160),
                                 widthMillimetres: 600, heightMillimetres: 340, outputDPI: 150)
        var policy = MonitorScalePolicy(flag: 1.25, perMonitor: ["DP-1": 1.75], configured: 3, desktop: 1.5, fromMonitorSize: true)
        func choice() -> (Double, MonitorScalePolicy.Source) {
            let c = policy.choice(for: dpiMonitor)
            return (c.scale, c.source)
        }
        #expect(choice() == (1.25, .flag))
        policy.flag = nil
        #expect(choice() == (1.75, .monitorConfig))
        policy.perMonitor = [:]
        #expect(choice() == (3, .config))
        policy.configured = nil
        #expect(choice() == (1.5, .outputDPI), "150 dpi ÷ 96 = 1.5625: 1.5 in quarter steps")
        var noDPI = dpiMonitor
        noDPI.outputDPI = nil
        #expect(policy.choice(for: noDPI).source == .desktop && policy.choice(for: noDPI).scale == 1.5)
        policy.desktop = nil
        // 3840 px over 600 mm: 162.6 dpi, 1.69: 1.75 in quarter steps.
        #expect(policy.choice(for: noDPI).scale == 1.75 && policy.choice(for: noDPI).source == .monitorSize)
        policy.fromMonitorSize = false
        #expect(policy.choice(for: noDPI).scale == 1 && policy.choice(for: noDPI).source == .default)
        #expect(policy.choice(for: nil) == MonitorScalePolicy.Choice(scale: 1, source: .default, monitor: nil))
        #expect(MonitorScalePolicy(perMonitor: ["DP-1": 2]).choice(for: dpiMonitor).monitor == "DP-1")
    }

    @Test("Bad values are no layer: 0, negative, huge, NaN; absurd DPI; EDID sizes that lie")
    func badValues() {
        for bad in [0, -1, 100, .nan, .infinity, 0.49, 4.01] as [Double] {
            #expect(MonitorScalePolicy.usable(bad) == nil, "\(bad)")
            let policy = MonitorScalePolicy(flag: bad, perMonitor: ["LEFT": bad], configured: bad, desktop: bad)
            #expect(policy.choice(for: Self.left) == MonitorScalePolicy.Choice(scale: 1, source: .default, monitor: "LEFT"))
        }
        #expect(MonitorScalePolicy.scale(outputDPI: 0) == nil && MonitorScalePolicy.scale(outputDPI: -96) == nil)
        #expect(MonitorScalePolicy.scale(outputDPI: 9600) == nil && MonitorScalePolicy.scale(outputDPI: 192) == 2)
        #expect(MonitorScalePolicy.scale(outputDPI: 130) == 1.25 && MonitorScalePolicy.scale(outputDPI: 96) == 1)
        // X11Libre sets 96 on every output: that states nothing; one changed value makes them all count.
        #expect(MonitorScalePolicy.outputDPIs(["eDP-1": 96, "HDMI-1": 96]).isEmpty)
        #expect(MonitorScalePolicy.outputDPIs(["eDP-1": 192, "HDMI-1": 96]) == ["eDP-1": 192, "HDMI-1": 96])
        func sized(_ width: Int, _ height: Int, mm: (Int, Int)) -> Double? {
            MonitorScalePolicy.scale(physicalSizeOf: Monitor(name: "M", frame: PixelRect(x: 0, y: 0, width: width, height: height),
                                                             widthMillimetres: mm.0, heightMillimetres: mm.1))
        }
        #expect(sized(1920, 1080, mm: (160, 90)) == nil, "an aspect ratio in centimetres")
        #expect(sized(1920, 1080, mm: (0, 0)) == nil, "a projector's unknown size")
        #expect(sized(1920, 1080, mm: (1600, 300)) == nil, "pixels far from square")
        #expect(sized(1920, 1080, mm: (5000, 2800)) == nil, "larger than any monitor")
        #expect(sized(1920, 1080, mm: (527, 296)) == 1, "a 24-inch full-HD monitor: 92.5 dpi")
        #expect(sized(3840, 2160, mm: (344, 194)) == 3, "a 15.6-inch 4K laptop: 283 dpi, 2.95, kept within 1…3")
        #expect(sized(1366, 768, mm: (500, 281)) == 1, "a low-DPI monitor stays at 1")
    }

    @Test("Configured names that match no monitor or output")
    func unmatchedNames() {
        let policy = MonitorScalePolicy(perMonitor: ["LEFT": 1, "HDMI-1": 2, "DP-7": 1.5])
        #expect(policy.unmatchedNames(in: Self.layout) == ["DP-7"])
    }
}
