/// The colour of the badge's border ring.
public enum BorderColor: Hashable, Sendable {
    /// Always this colour.
    case fixed(Color)
    /// The ring takes the colour behind the badge, cutting it out of the icon (Ant Design).
    case matchesSurface
}
