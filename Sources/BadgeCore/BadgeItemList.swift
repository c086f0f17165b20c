/// The items behind one badge, newest first, at most ``maximumCount`` of them.
///
/// A value type: the badge's controller owns the one list (``BadgeController/items``), and every
/// output reads it there. Adding an item whose key is already there replaces it in place of the
/// old one (so it never counts twice); beyond ``maximumCount`` the oldest items are dropped from
/// the list and counted in ``unlisted``, so the count stays honest while memory stays bounded.
/// ``unlisted`` also holds what a source counts but cannot list ("4 earlier notifications").
public struct BadgeItemList: Hashable, Sendable {
    /// The most items a badge keeps (200): older ones are dropped and counted in ``unlisted``.
    public static let maximumCount = 200

    /// The items, newest first (by time; items without a time after those with one, in the order added).
    public private(set) var items: [BadgeItem] = []
    /// How many more things the count includes than the list holds: items dropped beyond
    /// ``maximumCount``, or what a source counts without listing.
    public private(set) var unlisted = 0
    private var sequence: [String: Int] = [:]
    private var nextSequence = 0

    /// An empty list.
    public init() {}

    /// A list of `items` (a later item with a key already seen replaces the earlier one) and
    /// `unlisted` more (negative is taken as 0).
    public init(_ items: [BadgeItem], unlisted: Int = 0) {
        for item in items { insert(item) }
        self.unlisted = max(0, unlisted) &+ self.unlisted
    }

    /// A list of `items` given newest first by arrival (a mail folder's newest UID or delivery
    /// first), and `unlisted` more: ordered by time, and items of the same time (mail whose Date
    /// headers name the same second, a burst) in the order given, so the last to arrive is on top.
    public init(newestFirst items: [BadgeItem], unlisted: Int = 0) {
        self.init(items.reversed(), unlisted: unlisted)
    }

    /// The count the items make: the listed ones plus ``unlisted`` (saturating).
    public var count: Int {
        let (sum, overflow) = items.count.addingReportingOverflow(unlisted)
        return overflow ? Int.max : sum
    }

    /// Whether there is nothing, listed or not.
    public var isEmpty: Bool { items.isEmpty && unlisted == 0 }

    /// The item with `key`, or nil.
    public func item(forKey key: String) -> BadgeItem? {
        let key = BadgeItem.cleaned(key, limit: BadgeItem.maximumKeyBytes)
        return items.first { $0.key == key }
    }

    /// Adds `item`, or replaces the item with its key; true when it replaced one. The oldest item
    /// beyond ``maximumCount`` is dropped and counted in ``unlisted``.
    @discardableResult
    public mutating func insert(_ item: BadgeItem) -> Bool {
        let replaced = items.firstIndex { $0.key == item.key }.map { items.remove(at: $0) } != nil
        sequence[item.key] = nextSequence
        nextSequence &+= 1
        let position = items.firstIndex { Self.isNewer(item, sequence: sequence[item.key] ?? 0, than: $0, sequence: sequence[$0.key] ?? 0) }
        items.insert(item, at: position ?? items.endIndex)
        while items.count > Self.maximumCount {
            let dropped = items.removeLast()
            sequence[dropped.key] = nil
            unlisted &+= 1
        }
        return replaced
    }

    /// Removes the item with `key` and returns it, or nil when there is none.
    @discardableResult
    public mutating func remove(key: String) -> BadgeItem? {
        let key = BadgeItem.cleaned(key, limit: BadgeItem.maximumKeyBytes)
        guard let index = items.firstIndex(where: { $0.key == key }) else { return nil }
        sequence[key] = nil
        return items.remove(at: index)
    }

    /// Sets how many things are counted without being listed (0 or more).
    public mutating func setUnlisted(_ count: Int) {
        unlisted = max(0, count)
    }

    /// Newer first: by time, an item with a time before one without, then the later added.
    private static func isNewer(_ a: BadgeItem, sequence sa: Int, than b: BadgeItem, sequence sb: Int) -> Bool {
        switch (a.time, b.time) {
        case let (x?, y?) where x != y: return x > y
        case (.some, nil): return true
        case (nil, .some): return false
        default: return sa > sb
        }
    }

    /// Equal when the items (in order) and the unlisted count are.
    public static func == (lhs: BadgeItemList, rhs: BadgeItemList) -> Bool {
        lhs.items == rhs.items && lhs.unlisted == rhs.unlisted
    }

    /// Hashes the items and the unlisted count.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(items)
        hasher.combine(unlisted)
    }
}
