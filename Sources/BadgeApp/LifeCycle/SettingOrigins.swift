import BadgeX11

/// Where a setting in effect comes from, as `state` says it (`themeFrom`, `reducedMotionFrom`):
/// a flag wins over the config file, which wins over the desktop, which wins over the default;
/// `key` is reduced motion toggled with the demo's `r`.
enum SettingOrigin: String, Sendable {
    case flag, config, desktop, key, `default`
}

/// Where the scale, the theme and reduced motion in effect come from, typed (never compared as
/// strings). The scale's layers are the monitor policy's own (``MonitorScalePolicy/Source``).
struct SettingOrigins: Sendable {
    /// The scale's: a flag, a monitor's entry, the config, an output's DPI, the desktop, the default.
    var scale: MonitorScalePolicy.Source = .default
    /// The theme's.
    var theme: SettingOrigin = .default
    /// Reduced motion's.
    var reducedMotion: SettingOrigin = .default

    /// True when the desktop may set the theme (nothing stronger chose it).
    var desktopChoosesTheme: Bool { theme == .default || theme == .desktop }
    /// True when the desktop may set reduced motion.
    var desktopChoosesMotion: Bool { reducedMotion == .default || reducedMotion == .desktop }
}
