/// What a key press does in the demo, decided from its keysym and the Control and Shift modifiers.
///
/// Tab / Shift+Tab move the focus; Space, Return, plus: +1; minus, BackSpace: −1; Delete, 0: clear;
/// Ctrl+Q, Escape: quit. Demo keys: `t` cycles the chat text, `b` toggles the updates dot's blinking,
/// `o` toggles mail between 120 (overflow) and 12, `r` toggles reduced motion.
public enum KeyCommand: Equatable, Sendable {
    /// Focus the next button.
    case focusNext
    /// Focus the previous button.
    case focusPrevious
    /// +1 on the focused button.
    case increment
    /// −1 on the focused button.
    case decrement
    /// Clear the focused button's badge.
    case clear
    /// Quit with status 0.
    case quit
    /// Cycle the chat button's text badge.
    case cycleChatText
    /// Toggle the updates dot between steady and blinking.
    case toggleBlink
    /// Toggle mail between an overflowing count and a small one.
    case toggleOverflow
    /// Toggle reduced motion for every badge.
    case toggleReducedMotion

    /// The command for a keysym (X11 keysym values), or nil when the key does nothing.
    public static func command(forKeysym keysym: UInt32, control: Bool, shift: Bool) -> KeyCommand? {
        if control {
            return keysym == 0x71 || keysym == 0x51 ? .quit : nil  // q, Q
        }
        switch keysym {
        case 0xff09: return shift ? .focusPrevious : .focusNext  // Tab
        case 0xfe20: return .focusPrevious  // ISO_Left_Tab (Shift+Tab)
        case 0x20, 0xff0d, 0xff8d, 0x2b, 0xffab: return .increment  // space, Return, KP_Enter, plus, KP_Add
        case 0x2d, 0xffad, 0xff08: return .decrement  // minus, KP_Subtract, BackSpace
        case 0xffff, 0xff9f, 0x30, 0xffb0: return .clear  // Delete, KP_Delete, 0, KP_0
        case 0xff1b: return .quit  // Escape
        case 0x74: return .cycleChatText  // t
        case 0x62: return .toggleBlink  // b
        case 0x6f: return .toggleOverflow  // o
        case 0x72: return .toggleReducedMotion  // r
        default: return nil
        }
    }

    /// The texts `t` cycles the chat badge through (the last one shows truncation).
    public static let chatTexts = ["New", "一个信息", "Super long text badge"]

    /// The next chat text after `current` (the first one when `current` is not in the cycle).
    public static func nextChatText(after current: String?) -> String {
        guard let current, let index = chatTexts.firstIndex(of: current) else { return chatTexts[0] }
        return chatTexts[(index + 1) % chatTexts.count]
    }
}
