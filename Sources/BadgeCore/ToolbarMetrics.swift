/// The sizes of the toolbar's parts, in logical units.
public struct ToolbarMetrics: Hashable, Sendable {
    /// Width and height of one square button.
    public var buttonSize: Double = 44
    /// Width and height of the icon inside a button.
    public var iconSize: Double = 24
    /// Space between two buttons.
    public var spacing: Double = 6
    /// Space between the window edge and the buttons; leaves room for the badges' overhang.
    public var padding: Double = 8
    /// Corner radius of the hover and pressed backgrounds.
    public var cornerRadius: Double = 8

    /// Creates the default metrics.
    public init() {}

    /// The window size that holds `buttonCount` buttons in one row.
    public func preferredSize(buttonCount: Int) -> Size {
        let count = Double(max(buttonCount, 1))
        return Size(width: padding * 2 + count * buttonSize + (count - 1) * spacing,
                    height: padding * 2 + buttonSize)
    }
}
