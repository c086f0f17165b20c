import BadgeCore
import BadgeX11

/// The desktop's settings (XSETTINGS, the portal, `Xft.dpi`) where no flag or config file decided:
/// the scale, the theme and reduced motion, each with where it came from.
extension BadgeApplication {
    /// Applies what the desktop says, where no flag or config file decided.
    func follow(_ settings: DesktopSettings, host: ToolbarHost) {
        followDesktopScale(settings.scale, host: host)
        if sources.desktopChoosesTheme {
            let theme: Theme = settings.prefersDark == true ? .dark : .light
            if renderer.theme != theme {
                renderer.theme = theme
                board.apply(.theme(theme))
                host.invalidate()
            }
            sources.theme = settings.prefersDark == nil ? .default : .desktop
        }
        if sources.desktopChoosesMotion {
            host.reducesMotion = settings.reducesMotion ?? false
            sources.reducedMotion = settings.reducesMotion == nil ? .default : .desktop
        }
    }
}
