/// The corner of the host the badge is centred on; leading/trailing follow the layout direction.
public enum BadgeAnchor: Hashable, Sendable, CaseIterable {
    /// Top-left in left-to-right layouts, top-right in right-to-left.
    case topLeading
    /// Top-right in left-to-right layouts, top-left in right-to-left (the default).
    case topTrailing
    /// Bottom-left in left-to-right layouts, bottom-right in right-to-left.
    case bottomLeading
    /// Bottom-right in left-to-right layouts, bottom-left in right-to-left.
    case bottomTrailing
}
