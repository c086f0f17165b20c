import BadgeCore

/// One monitor of the screen, as RandR describes it: a named rectangle of the root window, the
/// outputs that show it, its physical size, and the `DPI` its outputs state (X11Libre's per-output
/// property). Pure data: the shell reads it from the server (RandR), tests make it by hand.
public struct Monitor: Hashable, Sendable {
    /// The monitor's name: RandR 1.5's (`xrandr --listmonitors`), else its first output's.
    public var name: String
    /// The names of the outputs that show it (`HDMI-1`, `eDP-1`); empty for a monitor defined
    /// without outputs (`xrandr --setmonitor NAME GEOMETRY none`).
    public var outputs: [String]
    /// Where it is, in root-window pixels.
    public var frame: PixelRect
    /// Its physical width in millimetres, as the server reports it (0: unknown).
    public var widthMillimetres: Int
    /// Its physical height in millimetres, as the server reports it (0: unknown).
    public var heightMillimetres: Int
    /// The `DPI` output property of its first output that has one, nil when none has.
    public var outputDPI: Double?
    /// True for the primary monitor.
    public var isPrimary: Bool

    /// Creates a monitor.
    public init(name: String, outputs: [String] = [], frame: PixelRect, widthMillimetres: Int = 0, heightMillimetres: Int = 0,
                outputDPI: Double? = nil, isPrimary: Bool = false) {
        self.name = name
        self.outputs = outputs
        self.frame = frame
        self.widthMillimetres = widthMillimetres
        self.heightMillimetres = heightMillimetres
        self.outputDPI = outputDPI
        self.isPrimary = isPrimary
    }

    /// True when `key` is the monitor's name or the name of one of its outputs.
    public func isNamed(_ key: String) -> Bool {
        name == key || outputs.contains(key)
    }
}
