import BadgeCore

extension DesktopLocale {
    /// The peek's words ("2 min ago", "and 30 more", "4 earlier", "Nothing here") from BadgeKit's
    /// catalogue for this locale, with the numbers grouped as the locale groups them.
    public var peekStrings: PeekStrings {
        let domain = Self.domain, separator = groupingSeparator
        let counted: @Sendable (String, Int) -> String = { msgid, count in
            Self.substitute(Self.lookUp(msgid, plural: msgid, count: count, domain: domain), [Self.group(count, separator: separator)])
        }
        return PeekStrings(
            ago: { seconds in
                guard seconds.isFinite, seconds >= 60 else { return Self.lookUp("just now", domain: domain) }
                let minutes = Int(seconds / 60)
                if minutes < 60 { return counted("%s min ago", minutes) }
                let hours = minutes / 60
                if hours < 24 { return counted("%s h ago", hours) }
                let days = hours / 24
                return days == 1 ? Self.lookUp("yesterday", domain: domain) : counted("%s days ago", days)
            },
            andMore: { counted("and %s more", $0) },
            unlisted: { counted("%s earlier", $0) },
            empty: { Self.lookUp("Nothing here", domain: domain) })
    }
}
