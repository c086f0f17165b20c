// The icons in Resources/Icons, embedded in the binary by SwiftPM (`.embedInCode`), so the demo
// never searches the file system for them at run time.

/// The SVG sources of the icons that ship with BadgeKit, keyed by icon name ("bell", "mail", ...).
public enum BundledIcons {
    /// SVG bytes of every bundled icon, by name.
    public static let svgData: [String: [UInt8]] = [
        "bell": PackageResources.bell_svg,
        "mail": PackageResources.mail_svg,
        "chat": PackageResources.chat_svg,
        "updates": PackageResources.updates_svg,
    ]

    /// The names of the bundled icons, sorted.
    public static var names: [String] { svgData.keys.sorted() }
}
