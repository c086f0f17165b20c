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

    /// ``description`` as a sentence, for the app to say in the user's language; used only while
    /// ``description`` is still its English (a source that sets the text alone is shown as it is).
    package var descriptionSentence: Sentence?
    /// ``error`` as a sentence, on the same terms.
    package var errorSentence: Sentence?

    /// A reading whose description (and error) are sentences, said in English in ``description``.
    package init(content: BadgeContent? = nil, said description: Sentence, updated: Double? = nil,
                 error: Sentence? = nil, isStale: Bool = false, items: BadgeItemList? = nil, isAbsent: Bool = false) {
        self.init(content: content, description: description.english, updated: updated, error: error?.english,
                  isStale: isStale, items: items, isAbsent: isAbsent)
        descriptionSentence = description
        errorSentence = error
    }

    /// Sets ``error`` to `sentence` in English, keeping the sentence.
    package mutating func fail(_ sentence: Sentence) {
        error = sentence.english
        errorSentence = sentence
    }

    /// The description to say: the sentence while it is current, else the text as it is.
    package var descriptionToSay: Sentence {
        descriptionSentence.flatMap { $0.english == description ? $0 : nil } ?? Sentence(verbatim: description)
    }

    /// Equal when what people and scripts read is: the sentences are the same words, kept for
    /// saying them in another language.
    public static func == (a: SourceReading, b: SourceReading) -> Bool {
        a.content == b.content && a.description == b.description && a.updated == b.updated && a.error == b.error
            && a.isStale == b.isStale && a.items == b.items && a.isAbsent == b.isAbsent
    }

    /// The error to say, on the same terms; nil without an error.
    package var errorToSay: Sentence? {
        error.map { text in errorSentence.flatMap { $0.english == text ? $0 : nil } ?? Sentence(verbatim: text) }
    }
}
