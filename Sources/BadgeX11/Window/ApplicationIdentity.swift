/// Who a top-level window belongs to, as window managers, taskbars and docks see it.
///
/// The shell writes it into the window's properties: `WM_CLASS` (instance and class name), the
/// title (`_NET_WM_NAME` and `WM_NAME`), and the window icon (`_NET_WM_ICON`); applications use
/// the desktop-file id for their dock badge and startup notification.
public struct ApplicationIdentity: Hashable, Sendable {
    /// The `WM_CLASS` instance name, conventionally the executable's name ("mail-client").
    public var instanceName: String
    /// The `WM_CLASS` class name, conventionally capitalised ("MailClient").
    public var className: String
    /// The window title without counts ("Badges").
    public var title: String
    /// Whether the title is prefixed by the toolbar's total count, as mail clients do: "(15) Badges".
    public var titleShowsTotal: Bool
    /// The desktop file's id without ".desktop" ("mail-client"), for docks and launchers.
    public var desktopFileID: String
    /// The bundled icon drawn in the window icon, with the total count as a badge (see `IconLibrary.names`).
    public var iconName: String

    /// Creates an identity; `className` defaults to `instanceName` with its first letter capitalised,
    /// `desktopFileID` to `instanceName`.
    public init(instanceName: String, className: String? = nil, title: String, titleShowsTotal: Bool = true,
                desktopFileID: String? = nil, iconName: String = "bell") {
        self.instanceName = instanceName
        self.className = className ?? (instanceName.prefix(1).uppercased() + instanceName.dropFirst())
        self.title = title
        self.titleShowsTotal = titleShowsTotal
        self.desktopFileID = desktopFileID ?? instanceName
        self.iconName = iconName
    }

    /// The `WM_CLASS` property value: instance and class, each NUL-terminated. A NUL inside a
    /// name would split it, so it is dropped.
    package var wmClassBytes: [UInt8] {
        Array(instanceName.utf8.filter { $0 != 0 }) + [0] + Array(className.utf8.filter { $0 != 0 }) + [0]
    }
}
