/// How a badge shows its value while the desktop's Do Not Disturb is on (``BadgeFormat/doNotDisturb``).
public enum DoNotDisturbDisplay: String, Hashable, Sendable, CaseIterable {
    /// No badge at all.
    case hidden
    /// A dot: something waits, without a number (the default choice).
    case dot
    /// The value as usual.
    case count
}
