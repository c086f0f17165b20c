import BadgeCore
import BadgeSources

/// A button bound to another application's launcher count takes what the file does not give from
/// that application's desktop file: its name as the label, its icon (from the icon theme, drawn
/// like the bundled ones). An application that is not installed keeps the id and the chat icon.
enum LauncherButton {
    /// The icon size looked for in the theme, in pixels (the largest the toolbar draws at 2×).
    static let iconPixels = 48

    /// Whether `button`'s icon comes from its application (not the file): one that cannot be drawn
    /// is no error then, the chat icon stays.
    static func iconIsApplications(_ button: ToolbarConfig.Button) -> Bool {
        if case .launcher? = button.source { return !button.iconGiven }
        return false
    }

    /// `button` with its label and icon from its application's desktop file, where it has none,
    /// and, when its launcher id finds no desktop file, why (broadcasts are still followed, but no
    /// label, icon or launch come from it, and a typo would pass in silence). One lookup for both.
    static func resolved(_ button: ToolbarConfig.Button) -> (button: ToolbarConfig.Button, warning: Sentence?) {
        guard case .launcher(let desktopID)? = button.source else { return (button, nil) }
        let entry: DesktopEntry?
        var warning: Sentence?
        do {
            entry = try DesktopEntryFinder().entry(forID: desktopID)
        } catch {
            entry = nil
            if case .notFound = error {
                warning = Sentence("no desktop file for \"%1$s\" (%2$s); its broadcasts are still followed", .text(InputEcho.escaped(desktopID, limit: 80, quote: true)), .text("\(error)"))
            }
        }
        var button = button
        if !button.labelGiven, let name = entry?.name, !name.isEmpty { button.label = name }
        if !button.iconGiven {
            button.iconName = "chat"
            button.iconPath = nil
            // The toolbar loads it; one the theme has but that cannot be drawn leaves the chat icon.
            if let icon = entry?.icon, let path = IconThemeLookup().path(forIcon: icon, pixels: iconPixels) {
                button.iconPath = path
            }
        }
        return (button, warning)
    }
}
