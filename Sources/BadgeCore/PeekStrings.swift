/// The words of the peek (the list of a badge's items), so an application can give them in the
/// user's language. English by default.
public struct PeekStrings: Sendable {
    /// How long ago something happened, from the seconds elapsed: "just now", "2 min ago".
    public var ago: @Sendable (_ seconds: Double) -> String
    /// The line under a list that holds only some of the items: "and 30 more".
    public var andMore: @Sendable (_ count: Int) -> String
    /// An entry for what is counted but cannot be listed: "4 earlier notifications".
    public var unlisted: @Sendable (_ count: Int) -> String
    /// The one line of a peek with no items: "Nothing here".
    public var empty: @Sendable () -> String

    /// Creates strings from their parts.
    public init(ago: @escaping @Sendable (Double) -> String, andMore: @escaping @Sendable (Int) -> String,
                unlisted: @escaping @Sendable (Int) -> String, empty: @escaping @Sendable () -> String) {
        self.ago = ago
        self.andMore = andMore
        self.unlisted = unlisted
        self.empty = empty
    }

    /// English: "just now", "5 s ago" is never said (under a minute is "just now"), "2 min ago",
    /// "3 h ago", "yesterday", "4 days ago"; "and 30 more"; "4 earlier".
    public static let english = PeekStrings(
        ago: { PeekStrings.englishAgo($0) },
        andMore: { "and \($0) more" },
        unlisted: { $0 == 1 ? "1 earlier" : "\($0) earlier" },
        empty: { "Nothing here" })

    /// The English relative time for `seconds` elapsed (negative, from a clock set back, is "just now").
    public static func englishAgo(_ seconds: Double) -> String {
        guard seconds.isFinite, seconds >= 60 else { return "just now" }
        let minutes = Int(seconds / 60)
        if minutes < 60 { return "\(minutes) min ago" }
        let hours = minutes / 60
        if hours < 24 { return "\(hours) h ago" }
        let days = hours / 24
        return days == 1 ? "yesterday" : "\(days) days ago"
    }
}
