/// One thing behind a badge's count: an unread message, a notification, an app's count, a
/// producer's entry.
///
/// Items are keyed: a badge holds at most one item per ``key``, so adding an item whose key is
/// there already replaces it and never counts twice (a notification replaced through its
/// `replaces_id`, a message whose flags changed). Text is stored cleaned: control characters
/// become spaces, and the title and detail are capped to ``maximumTextBytes`` bytes, whole
/// characters, so one item cannot make a popup or a state line arbitrarily large.
public struct BadgeItem: Hashable, Sendable {
    /// What identifies the item within its badge: a notification's id, a message's file name, a
    /// producer's own key. At most ``maximumKeyBytes`` bytes.
    public var key: String
    /// The line a person reads first: a sender, a summary, an app's name. Never empty: an item
    /// without one is titled by its key.
    public var title: String
    /// A second line (a subject, a notification's body as one line), or nil.
    public var detail: String?
    /// When it happened, in seconds since 1970 (the wall clock), or nil when unknown.
    public var time: Double?
    /// Where it comes from, for people: an app's name, a folder, a producer ("Firefox", "INBOX").
    public var origin: String?
    /// An icon name for the origin (a themed or bundled icon), or nil.
    public var iconName: String?
    /// What activating the item does, or nil when it does nothing.
    public var action: BadgeItemAction?
    /// Whether a person may dismiss it from the peek (Delete): a notification or a producer's
    /// item can go, an unread message cannot (reading it is what makes it go).
    public var isDismissable: Bool
    /// The words a screen reader says for the item, when the producer gave its own; nil means
    /// the title and detail are read.
    public var accessibleDescription: String?

    /// The longest key kept, in bytes.
    public static let maximumKeyBytes = 256
    /// The longest title or detail kept, in bytes (longer text keeps its first whole characters).
    public static let maximumTextBytes = 512

    /// Creates an item; the text is cleaned and capped (see the type's description).
    public init(key: String, title: String, detail: String? = nil, time: Double? = nil, origin: String? = nil,
                iconName: String? = nil, action: BadgeItemAction? = nil, isDismissable: Bool = false,
                accessibleDescription: String? = nil) {
        let key = Self.cleaned(key, limit: Self.maximumKeyBytes)
        self.key = key
        let title = Self.cleaned(title, limit: Self.maximumTextBytes)
        self.title = title.isEmpty ? key : title
        self.detail = detail.map { Self.cleaned($0, limit: Self.maximumTextBytes) }.flatMap { $0.isEmpty ? nil : $0 }
        self.time = time.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
        self.origin = origin.map { Self.cleaned($0, limit: Self.maximumTextBytes) }.flatMap { $0.isEmpty ? nil : $0 }
        self.iconName = iconName.flatMap { $0.isEmpty ? nil : $0 }
        self.action = action
        self.isDismissable = isDismissable
        self.accessibleDescription = accessibleDescription.map { Self.cleaned($0, limit: Self.maximumTextBytes) }
            .flatMap { $0.isEmpty ? nil : $0 }
    }

    /// What a screen reader says: the producer's own description, or the title, detail and origin.
    public var spokenDescription: String {
        if let accessibleDescription { return accessibleDescription }
        return ([title] + [detail, origin].compactMap { $0 }).joined(separator: ", ")
    }

    /// `text` on one line: control characters (newlines, tabs, escapes) as single spaces, runs of
    /// spaces folded, the ends trimmed, and at most `limit` bytes of whole characters.
    public static func cleaned(_ text: String, limit: Int) -> String {
        var result = ""
        var pendingSpace = false
        for scalar in text.unicodeScalars {
            let isSpace = scalar.properties.generalCategory == .control || scalar == " " || scalar == "\u{2028}"
                || scalar == "\u{2029}" || scalar == "\u{A0}"
            if isSpace {
                pendingSpace = !result.isEmpty
                continue
            }
            if pendingSpace { result.unicodeScalars.append(" "); pendingSpace = false }
            result.unicodeScalars.append(scalar)
            if result.utf8.count > limit + 4 { break }
        }
        guard result.utf8.count > limit else { return result }
        var capped = ""
        for character in result {
            guard capped.utf8.count + character.utf8.count <= limit else { break }
            capped.append(character)
        }
        return capped
    }
}

/// What activating an item does. The app that owns the badge performs it; the core only carries it.
public enum BadgeItemAction: Hashable, Sendable {
    /// Runs a program without a shell: the first element is the program, the rest its arguments.
    case run([String])
    /// Closes a desktop notification by its id (`CloseNotification`), invoking its default action
    /// first where the daemon offered one.
    case notification(id: UInt32, hasDefaultAction: Bool)
    /// Raises or launches an application by its desktop id ("org.telegram.desktop").
    case launch(desktopID: String)
    /// Tells the producer that added the item: an `item` event on its event stream and an
    /// `ItemActivated` D-Bus signal.
    case producer
}
