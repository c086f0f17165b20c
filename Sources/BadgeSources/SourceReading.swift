import BadgeCore

/// What a source says now: its content, where it comes from, when it last succeeded, and why the
/// last attempt failed, if it did.
public struct SourceReading: Equatable, Sendable {
    /// What the badge should show; nil when there is no value yet (or the first attempt failed).
    /// After a failure the last good content stays, with ``isStale`` set.
    public var content: BadgeContent?
    /// Where the value comes from, for people: "~/Maildir/INBOX", "notmuch count tag:unread",
    /// "command ~/bin/ci-status".
    public var description: String
    /// When the current value was read (CLOCK_REALTIME seconds since 1970); nil before the first
    /// successful reading.
    public var updated: Double?
    /// Why the last attempt failed, in words a user can act on; nil when it succeeded.
    public var error: String?
    /// True when the content may be out of date: the last attempt failed, a folder is missing, a
    /// run is overdue.
    public var isStale: Bool
    /// What the count is made of, for sources that can list it (notifications, a command's
    /// `"items"`); nil when the source gives only a number. With items, ``content`` is their count
    /// unless the source counts more than it lists.
    public var items: BadgeItemList?
    /// True when what the source follows is not there at all (no notification daemon on the
    /// bus), as opposed to failing: a button bound only where its source exists (the defaults
    /// without a config file) goes back to what it showed without it.
    public var isAbsent: Bool
    /// True when only part of the content is out of date (one account of several): the content is
    /// still shown as it changes, in the stale style, rather than kept at its last good value.
    public var isPartlyStale = false

    /// A reading; by default one with no value yet.
    public init(content: BadgeContent? = nil, description: String, updated: Double? = nil,
                error: String? = nil, isStale: Bool = false, items: BadgeItemList? = nil, isAbsent: Bool = false) {
        self.items = items
        self.isAbsent = isAbsent
        self.content = content
        self.description = description
        self.updated = updated
        self.error = error
        self.isStale = isStale
    }
}
