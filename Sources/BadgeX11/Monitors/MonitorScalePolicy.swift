/// Where a window's device scale comes from, in layers, for the monitor it is on. X11 has no
/// standard per-monitor scale, so BadgeKit takes the first layer that says something:
///
/// 1. ``flag``: the user's command line, for every monitor;
/// 2. ``perMonitor``: the user's scale for this monitor, by monitor or output name;
/// 3. ``configured``: the user's scale for every monitor (a config file);
/// 4. the monitor's `DPI` output property (X11Libre), ÷ 96 in quarter steps; a server that
///    leaves every output at the default 96 states nothing (``outputDPIs(_:)``);
/// 5. ``desktop``: `Xft/DPI` (XSETTINGS) or `Xft.dpi` (X resources), for every monitor;
/// 6. with ``fromMonitorSize``, the monitor's physical size, in quarter steps within 1…3, when
///    the size is believable (EDID often lies);
/// 7. 1.
///
/// Pure: ``MonitorScaleFollower`` applies it to a ``ToolbarHost``; tests and other shells use it alone.
public struct MonitorScalePolicy: Hashable, Sendable {
    /// Which layer decided.
    public enum Source: String, Hashable, Sendable {
        /// The command line.
        case flag
        /// The user's scale for this monitor.
        case monitorConfig = "monitor-config"
        /// The user's scale for every monitor.
        case config
        /// The monitor's `DPI` output property.
        case outputDPI = "output-dpi"
        /// The desktop's `Xft/DPI` or `Xft.dpi`.
        case desktop
        /// The monitor's physical size.
        case monitorSize = "monitor-size"
        /// Nothing said anything: 1.
        case `default`
    }

    /// A scale, the layer it came from, and the monitor it is for.
    public struct Choice: Hashable, Sendable {
        /// The device scale.
        public var scale: Double
        /// The layer that decided.
        public var source: Source
        /// The monitor's name, nil without monitors.
        public var monitor: String?

        /// Creates a choice.
        public init(scale: Double, source: Source, monitor: String?) {
            self.scale = scale
            self.source = source
            self.monitor = monitor
        }
    }

    /// The smallest scale any layer may give.
    public static let minimumScale = 0.5
    /// The largest scale any layer may give.
    public static let maximumScale = 4.0
    /// The DPI that is scale 1.
    public static let referenceDPI = 96.0
    /// The scales the physical size may give.
    public static let monitorSizeScales = 1.0...3.0
    /// The physical sizes believed, in millimetres a side: smaller is an aspect ratio or a
    /// projector's zero, larger a television's guess.
    public static let believableMillimetres = 100...2000
    /// The most the horizontal and vertical DPI of a believable size may differ (square pixels).
    public static let believableAspectDifference = 0.2

    /// The scale from the command line, nil when none was given.
    public var flag: Double?
    /// The user's scales by monitor or output name (0.5…4; others are ignored).
    public var perMonitor: [String: Double]
    /// The user's scale for every monitor, nil when none.
    public var configured: Double?
    /// The desktop's scale (``DesktopSettings/scale``), nil when it says none.
    public var desktop: Double?
    /// Whether the physical size may decide (off unless asked for: EDID sizes are often wrong).
    public var fromMonitorSize: Bool

    /// A policy; every layer is empty unless given.
    public init(flag: Double? = nil, perMonitor: [String: Double] = [:], configured: Double? = nil,
                desktop: Double? = nil, fromMonitorSize: Bool = false) {
        self.flag = flag
        self.perMonitor = perMonitor
        self.configured = configured
        self.desktop = desktop
        self.fromMonitorSize = fromMonitorSize
    }

    /// The scale for a window on `monitor` (nil: no monitors, or no RandR).
    public func choice(for monitor: Monitor?) -> Choice {
        let name = monitor?.name
        if let scale = Self.usable(flag) { return Choice(scale: scale, source: .flag, monitor: name) }
        if let monitor, let scale = Self.usable(perMonitor[monitor.name] ?? monitor.outputs.lazy.compactMap({ perMonitor[$0] }).first) {
            return Choice(scale: scale, source: .monitorConfig, monitor: name)
        }
        if let scale = Self.usable(configured) { return Choice(scale: scale, source: .config, monitor: name) }
        if let dpi = monitor?.outputDPI, let scale = Self.scale(outputDPI: dpi) {
            return Choice(scale: scale, source: .outputDPI, monitor: name)
        }
        if let scale = Self.usable(desktop) { return Choice(scale: scale, source: .desktop, monitor: name) }
        if fromMonitorSize, let monitor, let scale = Self.scale(physicalSizeOf: monitor) {
            return Choice(scale: scale, source: .monitorSize, monitor: name)
        }
        return Choice(scale: 1, source: .default, monitor: name)
    }

    /// The names in ``perMonitor`` that name no monitor of `layout` (nor any of their outputs).
    public func unmatchedNames(in layout: MonitorLayout) -> [String] {
        perMonitor.keys.filter { layout.monitor(named: $0) == nil }.sorted()
    }

    /// `value` when it is a scale (finite, 0.5…4), else nil.
    public static func usable(_ value: Double?) -> Double? {
        guard let value, value.isFinite, value >= minimumScale, value <= maximumScale else { return nil }
        return value
    }

    /// `value` to the nearest quarter.
    public static func quarterSteps(_ value: Double) -> Double {
        (value * 4).rounded() / 4
    }

    /// `dpi` ÷ 96 in quarter steps, nil when that is outside 0.5…4 (or `dpi` is not a number).
    public static func scale(outputDPI dpi: Double) -> Double? {
        guard dpi.isFinite, dpi > 0 else { return nil }
        return usable(quarterSteps(dpi / referenceDPI))
    }

    /// The outputs' `DPI` values as they count: all of them, unless every one is the default 96
    /// (X11Libre sets 96 on every output; only a value someone changed says something).
    public static func outputDPIs(_ values: [String: Double]) -> [String: Double] {
        values.values.allSatisfy({ $0 == referenceDPI }) ? [:] : values
    }

    /// The scale from `monitor`'s physical size, in quarter steps within 1…3, or nil when the size
    /// is unknown or not believable (a side outside 100…2000 mm, or pixels far from square).
    public static func scale(physicalSizeOf monitor: Monitor) -> Double? {
        let (width, height) = (monitor.widthMillimetres, monitor.heightMillimetres)
        guard believableMillimetres.contains(width), believableMillimetres.contains(height), !monitor.frame.isEmpty else { return nil }
        let millimetresPerInch = 25.4
        let horizontal = Double(monitor.frame.width) / (Double(width) / millimetresPerInch)
        let vertical = Double(monitor.frame.height) / (Double(height) / millimetresPerInch)
        guard abs(horizontal - vertical) <= believableAspectDifference * max(horizontal, vertical) else { return nil }
        let scale = quarterSteps((horizontal + vertical) / 2 / referenceDPI)
        return min(max(scale, monitorSizeScales.lowerBound), monitorSizeScales.upperBound)
    }
}
