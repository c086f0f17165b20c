/// The words of a badge's accessible description (also its tooltip), so an application can give
/// them in the user's language: BadgeDesktop's `DesktopLocale` makes them from gettext catalogues.
///
/// Numbers reach the closures already written as the locale writes them ("12.345").
public struct BadgeStrings: Sendable {
    /// The detail of a dot or of something new: "new".
    public var new: @Sendable () -> String
    /// The detail of a count: "3 unread" (`count` chooses the plural form, `number` is shown).
    public var unread: @Sendable (_ count: Int, _ number: String) -> String
    /// The detail of an overflowing count: "more than 99 unread".
    public var moreThan: @Sendable (_ number: String) -> String
    /// The label and the detail together: "Mail, 3 unread".
    public var join: @Sendable (_ label: String, _ detail: String) -> String
    /// A number in the description: grouped as the locale groups digits.
    public var number: @Sendable (Int) -> String
    /// Where the value comes from: "from ~/Maildir/INBOX".
    public var from: @Sendable (_ source: String) -> String
    /// The mark of a value its source has not confirmed lately: "not up to date".
    public var notUpToDate: @Sendable () -> String
    /// The mark of a value restored from the last session, not confirmed yet: "last session".
    public var lastSession: @Sendable () -> String
    /// The mark of a badge whose source has not answered yet: "waiting for its source".
    public var waiting: @Sendable () -> String

    /// Creates strings from their parts; the provenance words default to English.
    public init(new: @escaping @Sendable () -> String, unread: @escaping @Sendable (Int, String) -> String,
                moreThan: @escaping @Sendable (String) -> String, join: @escaping @Sendable (String, String) -> String,
                number: @escaping @Sendable (Int) -> String,
                from: @escaping @Sendable (String) -> String = { "from \($0)" },
                notUpToDate: @escaping @Sendable () -> String = { "not up to date" },
                lastSession: @escaping @Sendable () -> String = { "last session" },
                waiting: @escaping @Sendable () -> String = { "waiting for its source" }) {
        self.new = new
        self.unread = unread
        self.moreThan = moreThan
        self.join = join
        self.number = number
        self.from = from
        self.notUpToDate = notUpToDate
        self.lastSession = lastSession
        self.waiting = waiting
    }

    /// English, with numbers as plain digits: "Mail, 3 unread", "Mail, more than 99 unread", "Mail, new".
    public static let english = BadgeStrings(
        new: { "new" }, unread: { _, number in "\(number) unread" }, moreThan: { "more than \($0) unread" },
        join: { "\($0), \($1)" }, number: { String($0) })
}
