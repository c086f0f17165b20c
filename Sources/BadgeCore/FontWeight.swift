/// The weight of the badge font.
public enum FontWeight: Hashable, Sendable {
    /// Normal weight (400).
    case regular
    /// Medium weight (500).
    case medium
    /// Semibold weight (600).
    case semibold
    /// Bold weight (700), the default for badges.
    case bold
}
