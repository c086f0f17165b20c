/// One icon button of a toolbar: its identity, icon, interaction state and badge.
///
/// A reference type because the toolbar, the input router and the renderer all look at the same
/// button; it is used from one thread only (the one that runs the event loop).
public final class ToolbarButton {
    /// A stable identifier used by configuration and scripts ("bell", "mail").
    public let id: String
    /// The icon's name (a bundled icon or one loaded from a file by the drawing layer).
    public var iconName: String
    /// The badge this button carries.
    public let badge: BadgeController
    /// The button's frame in logical window coordinates; set by `Toolbar.layout`.
    public internal(set) var frame: Rect = .zero
    /// The icon's frame in logical window coordinates; the badge anchors to it.
    public internal(set) var iconFrame: Rect = .zero
    /// True while the pointer is over the button.
    public internal(set) var isHovered = false
    /// True while a mouse button pressed on this button is held and the pointer is still over it.
    public internal(set) var isPressed = false
    /// True when the button has the keyboard focus.
    public internal(set) var isFocused = false

    /// Creates a button; its frame is set when the toolbar lays out.
    public init(id: String, iconName: String, badge: BadgeController) {
        self.id = id
        self.iconName = iconName
        self.badge = badge
    }
}
