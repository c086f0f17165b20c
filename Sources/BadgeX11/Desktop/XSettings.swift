/// The XSETTINGS wire format (freedesktop.org's XSETTINGS spec), decoded without trusting it: the
/// `_XSETTINGS_SETTINGS` property a settings daemon (gnome-settings-daemon, xsettingsd, xfsettingsd)
/// publishes on its selection window.
///
/// Layout: byte order (0 LSB first, 1 MSB first), 3 unused bytes, serial, count; then each setting:
/// type (0 integer, 1 string, 2 colour), 1 unused byte, name length (16 bits), name padded to 4,
/// last-change serial, then an INT32, or a length-prefixed string padded to 4, or four 16-bit
/// channels. A truncated or malformed buffer yields the settings read before the damage.
public enum XSetting: Hashable, Sendable {
    /// An integer setting (Xft/DPI is 1024 × dots per inch).
    case integer(Int32)
    /// A string setting (Net/ThemeName).
    case string(String)
    /// A colour: red, green, blue, alpha, 16 bits each.
    case color(red: UInt16, green: UInt16, blue: UInt16, alpha: UInt16)

    /// The settings in `bytes`, by name; empty for a buffer that is not XSETTINGS data at all.
    public static func decode(_ bytes: [UInt8]) -> [String: XSetting] {
        var reader = Reader(bytes: bytes)
        guard let order = reader.byte(), order <= 1 else { return [:] }
        reader.bigEndian = order == 1
        guard reader.skip(3), reader.card32() != nil, let count = reader.card32() else { return [:] }
        var settings: [String: XSetting] = [:]
        // Never more entries than the buffer could hold (each takes at least 12 bytes).
        for _ in 0..<min(Int(count), bytes.count / 12) {
            guard let type = reader.byte(), reader.skip(1), let nameLength = reader.card16(),
                  let nameBytes = reader.bytes(Int(nameLength)), reader.skip(padding(Int(nameLength))),
                  reader.card32() != nil else { break }
            let name = String(decoding: nameBytes, as: UTF8.self)
            switch type {
            case 0:
                guard let value = reader.card32() else { return settings }
                settings[name] = .integer(Int32(bitPattern: value))
            case 1:
                guard let length = reader.card32(), length <= UInt32(bytes.count), let text = reader.bytes(Int(length)),
                      reader.skip(padding(Int(length))) else { return settings }
                settings[name] = .string(String(decoding: text, as: UTF8.self))
            case 2:
                guard let red = reader.card16(), let green = reader.card16(), let blue = reader.card16(),
                      let alpha = reader.card16() else { return settings }
                settings[name] = .color(red: red, green: green, blue: blue, alpha: alpha)
            default:
                return settings  // an unknown type: its size is unknown, so nothing after it can be read
            }
        }
        return settings
    }

    private static func padding(_ length: Int) -> Int { (4 - length % 4) % 4 }

    private struct Reader {
        let bytes: [UInt8]
        var offset = 0
        var bigEndian = false

        mutating func byte() -> UInt8? {
            guard offset < bytes.count else { return nil }
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func skip(_ count: Int) -> Bool {
            guard count >= 0, offset + count <= bytes.count else { return false }
            offset += count
            return true
        }

        mutating func bytes(_ count: Int) -> ArraySlice<UInt8>? {
            guard count >= 0, offset + count <= bytes.count else { return nil }
            defer { offset += count }
            return bytes[offset..<offset + count]
        }

        mutating func card16() -> UInt16? {
            guard let part = bytes(2) else { return nil }
            let a = UInt16(part[part.startIndex]), b = UInt16(part[part.startIndex + 1])
            return bigEndian ? a << 8 | b : b << 8 | a
        }

        mutating func card32() -> UInt32? {
            guard let part = bytes(4) else { return nil }
            let values = part.map(UInt32.init)
            return bigEndian ? values[0] << 24 | values[1] << 16 | values[2] << 8 | values[3]
                : values[3] << 24 | values[2] << 16 | values[1] << 8 | values[0]
        }
    }
}

/// What the desktop asks of an application, from XSETTINGS and the X resources: the shell reads
/// them and follows their changes (``ToolbarHost/Event/desktopSettingsChanged(_:)``).
public struct DesktopSettings: Hashable, Sendable {
    /// The device scale from `Xft/DPI` (XSETTINGS) or `Xft.dpi` (X resources) ÷ 96, within 0.5…4;
    /// nil when neither says (or says something absurd).
    public var scale: Double?
    /// Whether the theme is dark: `Net/ThemeName` ending in "-dark", or `Gtk/ApplicationPreferDarkTheme`.
    public var prefersDark: Bool?
    /// Whether animations are off (`Gtk/EnableAnimations` = 0).
    public var reducesMotion: Bool?

    /// Creates settings.
    public init(scale: Double? = nil, prefersDark: Bool? = nil, reducesMotion: Bool? = nil) {
        self.scale = scale
        self.prefersDark = prefersDark
        self.reducesMotion = reducesMotion
    }

    /// The settings from decoded XSETTINGS (a daemon's) and the X resources' `Xft.dpi` scale.
    public init(xsettings: [String: XSetting], resourceScale: Double?) {
        if case .integer(let dpi1024)? = xsettings["Xft/DPI"], dpi1024 > 0 {
            scale = Self.scale(dpi: Double(dpi1024) / 1024)
        } else {
            scale = resourceScale
        }
        var dark: Bool?
        if case .string(let theme)? = xsettings["Net/ThemeName"] { dark = theme.lowercased().hasSuffix("-dark") }
        if case .integer(let prefer)? = xsettings["Gtk/ApplicationPreferDarkTheme"], prefer != 0 { dark = true }
        prefersDark = dark
        if case .integer(let enabled)? = xsettings["Gtk/EnableAnimations"] { reducesMotion = enabled == 0 } else { reducesMotion = nil }
    }

    /// `dpi` ÷ 96, or nil outside 48…384 dpi (scales 0.5…4), NaN or infinite.
    public static func scale(dpi: Double) -> Double? {
        guard dpi.isFinite, dpi >= 48, dpi <= 384 else { return nil }
        return dpi / 96
    }
}
