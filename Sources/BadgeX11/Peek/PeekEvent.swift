import BadgeCore

/// What asked for a peek.
public enum PeekTrigger: String, Hashable, Sendable {
    /// A right press on the button.
    case pointer
    /// The Menu key or Shift+F10 on the focused button: the first row is highlighted.
    case keyboard
    /// The application's own call (the tray, a control command).
    case program
}

/// Why the peek closed.
public enum PeekCloseReason: String, Hashable, Sendable {
    /// Escape (or the Menu key again).
    case escape
    /// A click outside it.
    case outside
    /// A row was activated.
    case activated
    /// The toolbar's window was hidden, went away, or another peek replaced it.
    case hidden
    /// The pointer and keyboard could not be grabbed within ``ToolbarHost/peekGrabPatience``
    /// seconds: a popup without its grab would leave the pointer stuck or keys going astray.
    case grabFailed
    /// ``ToolbarHost/closePeek()``.
    case program
}

/// What the peek reports (``ToolbarHost/Event/peek(_:)``).
public enum PeekEvent: Hashable, Sendable {
    /// It is mapped and holds the grabs.
    case opened(buttonID: String)
    /// Row `row` was activated (a click, Return, Space); the peek closes after it.
    case activated(buttonID: String, row: Int)
    /// Row `row` was dismissed with Delete (only a dismissable row); the peek stays open, and the
    /// application updates its rows (``ToolbarHost/updatePeek(rows:)``).
    case dismissed(buttonID: String, row: Int)
    /// Row `row`'s second action (`PeekRow.secondaryAction`: Shift+Return, a middle click, a
    /// screen reader's second action) was asked for; the peek stays open, and the application
    /// updates its rows.
    case secondary(buttonID: String, row: Int)
    /// It closed.
    case closed(buttonID: String, reason: PeekCloseReason)
}

/// The open peek, as `state` and tests read it.
public struct PeekInfo: Hashable, Sendable {
    /// The button it belongs to.
    public var buttonID: String
    /// Its window id.
    public var window: UInt32
    /// Where it is, in root pixels.
    public var frame: PixelRect
    /// Its rows.
    public var rows: [PeekRow]
    /// Each row's frame in root pixels.
    public var rowFrames: [PixelRect]
    /// The highlighted row, or nil.
    public var highlighted: Int?
    /// Whether it holds the pointer and keyboard grabs.
    public var isGrabbed: Bool
    /// Whether it opened above its button (no room below).
    public var isAbove: Bool
}
