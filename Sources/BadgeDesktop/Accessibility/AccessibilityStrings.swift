import BadgeIO

/// The words screen readers hear for a button's actions, so an application can give them in the
/// user's language: ``DesktopLocale/accessibilityStrings`` makes them from BadgeKit's catalogues.
/// The actions' names ("click", "decrement", "clear") are identifiers and stay as they are.
public struct AccessibilityStrings: Sendable, Equatable {
    /// What "click" does: "Adds one to the badge".
    public var increment: String
    /// What "decrement" does: "Takes one from the badge".
    public var decrement: String
    /// What "clear" does: "Clears the badge".
    public var clear: String

    /// Creates the words.
    public init(increment: String, decrement: String, clear: String) {
        self.increment = increment
        self.decrement = decrement
        self.clear = clear
    }

    /// English.
    public static let english = AccessibilityStrings(increment: "Adds one to the badge", decrement: "Takes one from the badge",
                                                     clear: "Clears the badge")
}
