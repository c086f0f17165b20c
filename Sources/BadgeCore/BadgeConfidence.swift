/// How far the value a badge shows can be trusted, when a source feeds it: a badge never shows a
/// number its source has not confirmed as if it were current.
public enum BadgeConfidence: String, Hashable, Sendable, CaseIterable {
    /// Confirmed by its source, or set by the user or a producer.
    case current
    /// Its source failed, missed its interval, or its producer left: drawn in the stale style, and
    /// described as "not up to date". With nothing to show (a source that never succeeded), the
    /// badge shows ``BadgeController/unknownMark`` in that style: never mistaken for 0.
    case stale
    /// Restored from the last session; its source has not confirmed it yet: drawn outlined, and
    /// described as "last session".
    case lastSession
    /// Its source has not answered yet (a server that has not greeted, a command still running):
    /// nothing is confirmed, so nothing is called current. With no value the badge shows nothing;
    /// a value is drawn outlined, as ``lastSession``, and described as "waiting for its source".
    case pending
}
