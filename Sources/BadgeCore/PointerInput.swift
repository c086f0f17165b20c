/// A pointer button as the toolbar understands it, independent of any window system.
public enum PointerButton: Hashable, Sendable {
    /// The primary (usually left) button.
    case primary
    /// The middle button or wheel press.
    case middle
    /// The secondary (usually right) button.
    case secondary
    /// One notch of the wheel away from the user.
    case wheelUp
    /// One notch of the wheel toward the user.
    case wheelDown
}

extension PointerButton {
    /// What a click with this button does to a count when nothing else takes it (no click action,
    /// no source that owns the count): the primary button adds 1, the middle button clears, the
    /// wheel adds or takes 1. Nil for the secondary button, which opens the peek and never counts.
    /// The window and a bar's click (`click ID BUTTON`) share it.
    public var defaultAction: (action: BadgeAction, cause: ChangeCause)? {
        switch self {
        case .primary: return (.increment, .click)
        case .middle: return (.clear, .click)
        case .wheelUp: return (.increment, .wheel)
        case .wheelDown: return (.decrement, .wheel)
        case .secondary: return nil
        }
    }
}

/// What an input does to a badge.
public enum BadgeAction: Hashable, Sendable {
    /// Raise the count by one.
    case increment
    /// Lower the count by one, never below zero.
    case decrement
    /// Set the count to zero.
    case clear

    /// Applies the action to a badge controller.
    public func apply(to badge: BadgeController) {
        switch self {
        case .increment: badge.increment()
        case .decrement: badge.decrement()
        case .clear: badge.clear()
        }
    }
}

/// Where an action came from, as reported to scripts and logs.
public enum ChangeCause: String, Hashable, Sendable {
    /// A mouse click.
    case click
    /// A key press.
    case key
    /// A wheel notch.
    case wheel
    /// A control-channel command.
    case control
    /// An assistive technology, such as a screen reader performing a button's action.
    case accessibility
    /// A source the badge is bound to (a Maildir folder, the notification daemon, a command).
    case source
}
