/// The writing direction of the window; right-to-left mirrors anchors and horizontal offsets.
public enum LayoutDirection: Hashable, Sendable {
    /// Leading is left, trailing is right.
    case leftToRight
    /// Leading is right, trailing is left.
    case rightToLeft
}
