import BadgeX11

/// The demo's own keys, tried before the toolbar's standard ones (Tab, Space, minus, Delete …):
/// Escape and Ctrl+Q quit; `t` cycles the chat text, `b` toggles the updates dot's blinking, `o`
/// toggles mail between 120 (overflow) and 12, `r` toggles reduced motion.
enum KeyCommand: Equatable, Sendable {
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

    /// The demo command for a key press, or nil when the key is not one of the demo's.
    static func command(for press: KeyPress) -> KeyCommand? {
        if press.control {
            return press.symbol == KeySymbol.q || press.symbol == KeySymbol.capitalQ ? .quit : nil
        }
        if press.symbol == KeySymbol.escape { return .quit }
        switch press.text {
        case "t": return .cycleChatText
        case "b": return .toggleBlink
        case "o": return .toggleOverflow
        case "r": return .toggleReducedMotion
        default: return nil
        }
    }

    /// The texts `t` cycles the chat badge through (the last one shows truncation).
    static let chatTexts = ["New", "一个信息", "Super long text badge"]

    /// The next chat text after `current` (the first one when `current` is not in the cycle).
    static func nextChatText(after current: String?) -> String {
        guard let current, let index = chatTexts.firstIndex(of: current) else { return chatTexts[0] }
        return chatTexts[(index + 1) % chatTexts.count]
    }
}
