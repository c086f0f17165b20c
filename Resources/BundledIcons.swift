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

    /// The device sizes (pixels) for which librsvg-rendered masks ship: a 24-point toolbar icon at 1×, 1.25×, 1.5× and 2×, and the window icon's glyphs.
    public static let maskSizes = [12, 16, 24, 30, 32, 36, 48]

    /// Prerendered alpha masks (one byte a pixel, row-major), keyed "name-pixels".
    static let masks: [String: [UInt8]] = [
        "bell-12": PackageResources.bell_12_a8,
        "bell-16": PackageResources.bell_16_a8,
        "bell-24": PackageResources.bell_24_a8,
        "bell-30": PackageResources.bell_30_a8,
        "bell-32": PackageResources.bell_32_a8,
        "bell-36": PackageResources.bell_36_a8,
        "bell-48": PackageResources.bell_48_a8,
        "mail-12": PackageResources.mail_12_a8,
        "mail-16": PackageResources.mail_16_a8,
        "mail-24": PackageResources.mail_24_a8,
        "mail-30": PackageResources.mail_30_a8,
        "mail-32": PackageResources.mail_32_a8,
        "mail-36": PackageResources.mail_36_a8,
        "mail-48": PackageResources.mail_48_a8,
        "chat-12": PackageResources.chat_12_a8,
        "chat-16": PackageResources.chat_16_a8,
        "chat-24": PackageResources.chat_24_a8,
        "chat-30": PackageResources.chat_30_a8,
        "chat-32": PackageResources.chat_32_a8,
        "chat-36": PackageResources.chat_36_a8,
        "chat-48": PackageResources.chat_48_a8,
        "updates-12": PackageResources.updates_12_a8,
        "updates-16": PackageResources.updates_16_a8,
        "updates-24": PackageResources.updates_24_a8,
        "updates-30": PackageResources.updates_30_a8,
        "updates-32": PackageResources.updates_32_a8,
        "updates-36": PackageResources.updates_36_a8,
        "updates-48": PackageResources.updates_48_a8,
    ]

    /// The prerendered mask of icon `name` at `pixels` × `pixels`, if one ships.
    public static func mask(name: String, pixels: Int) -> [UInt8]? {
        masks["\(name)-\(pixels)"]
    }

    /// The names of the bundled icons, sorted.
    public static var names: [String] { svgData.keys.sorted() }
}
