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

    /// Buttons per row before the toolbar wraps into another row; nil: one row.
    public var maximumColumns: Int?

    /// The widest a badge may paint, border ring included: one button plus one spacing (50 by default),
    /// the distance from one button's badge to the next (``Toolbar`` gives each badge the lane up to
    /// halfway to its neighbours' badges). A longer text is cut with "…" to fit, so a badge never
    /// covers a neighbour's badge.
    public var badgeLaneWidth: Double { buttonSize + Swift.max(spacing, 0) }

    /// Creates the default metrics.
    public init() {}

    /// The number of buttons in a full row when there are `buttonCount` buttons.
    public func columns(buttonCount: Int) -> Int {
        let count = max(buttonCount, 1)
        guard let maximumColumns, maximumColumns > 0 else { return count }
        return min(count, maximumColumns)
    }

    /// The window size that holds `buttonCount` buttons (in one row, or wrapped at `maximumColumns`).
    public func preferredSize(buttonCount: Int) -> Size {
        let count = max(buttonCount, 1)
        let columns = Double(columns(buttonCount: count))
        let rows = Double((count + Int(columns) - 1) / Int(columns))
        return Size(width: padding * 2 + columns * buttonSize + (columns - 1) * spacing,
                    height: padding * 2 + rows * buttonSize + (rows - 1) * spacing)
    }
}
