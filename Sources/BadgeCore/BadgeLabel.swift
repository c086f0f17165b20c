/// What a badge actually shows after formatting (`BadgeFormat.label(for:)`).
public enum BadgeLabel: Hashable, Sendable {
    /// Nothing is shown.
    case hidden
    /// A dot without text.
    case dot
    /// A text label, already formatted ("99+", "1,234", "New", truncated text ending in "…").
    case text(String)

    /// The label text, nil for `.hidden` and `.dot`.
    public var text: String? {
        if case .text(let string) = self { return string }
        return nil
    }
}
