/// What a Maildir file name says about its message: the flags after `:2,` (maildir(5)).
package enum MaildirFlags {
    /// The flag letters of `name`: what follows `:2,` after the last `:`; empty without an info part.
    package static func flags(of name: String) -> Substring {
        guard let colon = name.lastIndex(of: ":") else { return "" }
        let info = name[name.index(after: colon)...]
        return info.hasPrefix("2,") ? info.dropFirst(2) : ""
    }

    /// True when a message of this name counts as unread: not seen (`S`) and not trashed (`T`).
    /// A message in `new/` has not been seen by any reader, so only `T` matters there.
    package static func isUnread(_ name: String, inNew: Bool) -> Bool {
        let letters = flags(of: name)
        if letters.contains("T") { return false }
        return inNew || !letters.contains("S")
    }
}
