/// What marking items read came to (``BadgeSource/markRead(_:done:)``).
public enum MarkReadOutcome: Equatable, Sendable {
    /// The source marked them (the server, the files or the database took it); its next reading
    /// confirms the count.
    case marked
    /// It could not, in words a user can act on (never holding a secret).
    case failed(String)
}
