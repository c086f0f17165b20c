/// What `act` does to an item through the source behind its badge.
package enum ItemAction: String, Hashable, Sendable {
    /// Mark it read (an IMAP `\Seen` flag, a Maildir `S`, notmuch's `unread` tag removed).
    case read
}
