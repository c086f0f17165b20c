/// What a list of messages shows for one: who sent it, what it is about, when, and its id.
package struct MailSummary: Equatable, Sendable {
    /// The sender's name (decoded), or the address when there is no name; nil without a From.
    package var from: String?
    /// The subject (decoded); nil without one.
    package var subject: String?
    /// The Date header, in seconds since 1970; nil without one or when it cannot be read.
    package var date: Double?
    /// The Message-ID without its angle brackets; nil without one.
    package var messageID: String?

    /// A summary from its parts.
    package init(from: String? = nil, subject: String? = nil, date: Double? = nil, messageID: String? = nil) {
        self.from = from
        self.subject = subject
        self.date = date
        self.messageID = messageID
    }
}
