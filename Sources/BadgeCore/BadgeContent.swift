/// What a badge should show, before formatting: a count, free text, a dot, or nothing.
public enum BadgeContent: Hashable, Sendable {
    /// No badge.
    case none
    /// A number of unread items; negative values are treated as 0.
    case count(Int)
    /// Free text ("New", "一个信息", emoji…); empty or whitespace-only text shows no badge.
    case text(String)
    /// A small dot without text.
    case dot
}
