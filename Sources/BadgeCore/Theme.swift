/// The colours of the toolbar around the badges, for light and dark desktops.
public struct Theme: Hashable, Sendable {
    /// The theme's name as given on the command line ("light", "dark").
    public var name: String
    /// The toolbar's surface.
    public var background: Color
    /// A thin line along the toolbar's bottom edge.
    public var separator: Color
    /// The button surface while the pointer is over it.
    public var hoverBackground: Color
    /// The button surface while a mouse button is held on it.
    public var pressedBackground: Color
    /// The icon tint (symbolic icons are drawn as a mask in this colour).
    public var foreground: Color
    /// The keyboard focus ring.
    public var focusRing: Color

    /// Creates a theme from its colours.
    public init(name: String, background: Color, separator: Color, hoverBackground: Color,
                pressedBackground: Color, foreground: Color, focusRing: Color) {
        self.name = name
        self.background = background
        self.separator = separator
        self.hoverBackground = hoverBackground
        self.pressedBackground = pressedBackground
        self.foreground = foreground
        self.focusRing = focusRing
    }

    /// A light toolbar, close to the GNOME/Adwaita header bar.
    public static let light = Theme(
        name: "light",
        background: Color(red: 0.965, green: 0.961, blue: 0.957),
        separator: Color(red: 0.82, green: 0.815, blue: 0.81),
        hoverBackground: Color(red: 0.0, green: 0.0, blue: 0.0, alpha: 0.07),
        pressedBackground: Color(red: 0.0, green: 0.0, blue: 0.0, alpha: 0.15),
        foreground: Color(red: 0.18, green: 0.18, blue: 0.2),
        focusRing: Color(red: 0.21, green: 0.52, blue: 0.89)
    )

    /// A dark toolbar, close to the GNOME/Adwaita dark header bar.
    public static let dark = Theme(
        name: "dark",
        background: Color(red: 0.19, green: 0.19, blue: 0.2),
        separator: Color(red: 0.1, green: 0.1, blue: 0.11),
        hoverBackground: Color(red: 1.0, green: 1.0, blue: 1.0, alpha: 0.09),
        pressedBackground: Color(red: 1.0, green: 1.0, blue: 1.0, alpha: 0.18),
        foreground: Color(red: 0.93, green: 0.93, blue: 0.94),
        focusRing: Color(red: 0.47, green: 0.68, blue: 0.96)
    )

    /// The theme with this name, or nil for an unknown name.
    public static func named(_ name: String) -> Theme? {
        switch name {
        case "light": return .light
        case "dark": return .dark
        default: return nil
        }
    }
}
