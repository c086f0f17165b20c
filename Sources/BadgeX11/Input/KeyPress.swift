import BadgeCore
import CXKBCommonX11

/// One key press, read through the real keymap (xkbcommon), as an application's key handler sees it.
public struct KeyPress: Hashable, Sendable {
    /// The keysym in the current layout and modifiers (compare with ``KeySymbol``'s names).
    public let symbol: UInt32
    /// The text the key types ("t", "é", "+"); empty for keys that type nothing.
    public let text: String
    /// True while Control is held.
    public let control: Bool
    /// True while Shift is held.
    public let shift: Bool

    /// Creates a key press (for tests and synthetic input).
    public init(symbol: UInt32, text: String, control: Bool, shift: Bool) {
        self.symbol = symbol
        self.text = text
        self.control = control
        self.shift = shift
    }
}

/// Keysyms by xkbcommon's names (`XKB_KEY_*`), for matching a ``KeyPress``.
public enum KeySymbol {
    /// Tab.
    public static let tab = UInt32(XKB_KEY_Tab)
    /// Shift+Tab on most layouts.
    public static let leftTab = UInt32(XKB_KEY_ISO_Left_Tab)
    /// Space.
    public static let space = UInt32(XKB_KEY_space)
    /// Return.
    public static let returnKey = UInt32(XKB_KEY_Return)
    /// Enter on the keypad.
    public static let keypadEnter = UInt32(XKB_KEY_KP_Enter)
    /// Plus.
    public static let plus = UInt32(XKB_KEY_plus)
    /// Plus on the keypad.
    public static let keypadAdd = UInt32(XKB_KEY_KP_Add)
    /// Minus.
    public static let minus = UInt32(XKB_KEY_minus)
    /// Minus on the keypad.
    public static let keypadSubtract = UInt32(XKB_KEY_KP_Subtract)
    /// BackSpace.
    public static let backSpace = UInt32(XKB_KEY_BackSpace)
    /// Delete.
    public static let delete = UInt32(XKB_KEY_Delete)
    /// Delete on the keypad.
    public static let keypadDelete = UInt32(XKB_KEY_KP_Delete)
    /// The digit 0.
    public static let zero = UInt32(XKB_KEY_0)
    /// 0 on the keypad.
    public static let keypadZero = UInt32(XKB_KEY_KP_0)
    /// Escape.
    public static let escape = UInt32(XKB_KEY_Escape)
    /// Up.
    public static let up = UInt32(XKB_KEY_Up)
    /// Down.
    public static let down = UInt32(XKB_KEY_Down)
    /// Home.
    public static let home = UInt32(XKB_KEY_Home)
    /// End.
    public static let end = UInt32(XKB_KEY_End)
    /// The Menu key (context menu).
    public static let menu = UInt32(XKB_KEY_Menu)
    /// F10 (with Shift: the context menu).
    public static let f10 = UInt32(XKB_KEY_F10)
    /// The letter q.
    public static let q = UInt32(XKB_KEY_q)
    /// The letter Q.
    public static let capitalQ = UInt32(XKB_KEY_Q)
}

/// What the standard toolbar keys do, as GTK and Qt toolbars answer them: Tab and Shift+Tab move
/// the focus, Space, Return and plus add one to the focused badge, minus and BackSpace take one
/// away, Delete and 0 clear it; Menu and Shift+F10 ask for the focused button's peek.
public enum ToolbarKeyAction: Hashable, Sendable {
    /// Ask for the focused button's peek (``ToolbarHost/Event/peekRequested(_:_:)``).
    case peek
    /// Focus the next button (wrapping round, or leaving an embedded toolbar: ``ToolbarHost/focusWraps``).
    case focusNext
    /// Focus the previous button (wrapping round, or leaving an embedded toolbar).
    case focusPrevious
    /// Apply a badge action to the focused button.
    case badge(BadgeAction)

    /// The standard action for `press`, or nil when the key has none (Control held: none).
    public static func action(for press: KeyPress) -> ToolbarKeyAction? {
        guard !press.control else { return nil }
        switch press.symbol {
        case KeySymbol.menu: return .peek
        case KeySymbol.f10: return press.shift ? .peek : nil
        case KeySymbol.tab: return press.shift ? .focusPrevious : .focusNext
        case KeySymbol.leftTab: return .focusPrevious
        case KeySymbol.space, KeySymbol.returnKey, KeySymbol.keypadEnter, KeySymbol.plus, KeySymbol.keypadAdd:
            return .badge(.increment)
        case KeySymbol.minus, KeySymbol.keypadSubtract, KeySymbol.backSpace: return .badge(.decrement)
        case KeySymbol.delete, KeySymbol.keypadDelete, KeySymbol.zero, KeySymbol.keypadZero: return .badge(.clear)
        default: return nil
        }
    }
}
