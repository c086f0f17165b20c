import BadgeCore
import BadgeX11

/// The scale of the monitor the window is on: the layers of ``MonitorScalePolicy`` (the flag, the
/// config's `monitors` and `scale`, the output's DPI, the desktop, the monitor's size if asked
/// for), applied by the shell's ``MonitorScaleFollower``; `state` reports the monitor and the layer.
extension BadgeApplication {
    /// The layers the flag and the config file give (the desktop's is added live).
    static func scalePolicy(flag: Double?, config: ToolbarConfig) -> MonitorScalePolicy {
        return MonitorScalePolicy(flag: flag, perMonitor: config.monitorScales.perMonitor, configured: config.scale,
                                  fromMonitorSize: config.monitorScales.fromMonitorSize)
    }

    /// The scale's layers in effect, kept once: the monitor follower's (its owner) once it runs,
    /// the ones made at start before.
    var scalePolicy: MonitorScalePolicy {
        get { host?.monitorScaleFollower?.policy ?? startingScalePolicy }
        set {
            if let follower = host?.monitorScaleFollower { follower.policy = newValue } else { startingScalePolicy = newValue }
        }
    }

    /// Starts following the monitors' scales for `host`, with the desktop's scale as it is now.
    func startMonitorScale(_ host: ToolbarHost) {
        var policy = scalePolicy
        policy.desktop = host.desktopSettings.scale
        let follower = MonitorScaleFollower(host: host, policy: policy)
        follower.onChange = { [weak self] choice in self?.sources.scale = choice.source }
        sources.scale = follower.choice.source
        warnAboutUnknownMonitors(policy, layout: follower.layout)
    }

    /// The desktop's scale changed (XSETTINGS, `Xft.dpi`): one layer of the policy.
    func followDesktopScale(_ scale: Double?, host: ToolbarHost) {
        scalePolicy.desktop = scale
    }

    /// The config file was read again: its layers replace the old ones (the flag stays).
    func applyScaleConfig(_ config: ToolbarConfig, host: ToolbarHost) {
        var policy = Self.scalePolicy(flag: scalePolicy.flag, config: config)
        policy.desktop = scalePolicy.desktop
        scalePolicy = policy
        guard let follower = host.monitorScaleFollower else { return }
        warnAboutUnknownMonitors(policy, layout: follower.layout)
    }

    /// One warning per configured name that names no monitor or output now (with RandR monitors).
    func warnAboutUnknownMonitors(_ policy: MonitorScalePolicy, layout: MonitorLayout) {
        guard !layout.isEmpty else { return }
        let known = layout.monitors.map { ([$0.name] + $0.outputs).joined(separator: "/") }.joined(separator: ", ")
        for name in policy.unmatchedNames(in: layout) {
            StandardError.say(Sentence("monitors.%1$s: no monitor or output has this name (there are %2$s); ignored until one does", .text(InputEcho.escaped(name, quote: true)), .text(known)))
        }
    }

    /// `state`'s name of the monitor the window is on (nil without RandR monitors).
    var monitorName: String? { host?.monitorScaleFollower?.choice.monitor }
}
