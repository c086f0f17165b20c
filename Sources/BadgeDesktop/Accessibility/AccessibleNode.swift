import BadgeIO
import BadgeCore
import CAtspi

/// One object of the tree the shell shows to screen readers over AT-SPI2: what it is (role),
/// what it is called, its states, where it is and what it can do. Pure data: the tree is built
/// from the toolbar as a ``AccessibleTree`` snapshot, answered from and compared for events.
package struct AccessibleNode: Equatable, Sendable {
    /// An action an assistive technology can perform on the node (AT-SPI2's Action interface).
    package struct Action: Equatable, Sendable {
        /// The action's name ("click", "decrement", "clear").
        package var name: String
        /// What it does, in words.
        package var description: String
        /// The key that does the same, in GTK's accelerator notation ("space"), or "".
        package var keyBinding: String
        /// What performing it does to the badge.
        package var badgeAction: BadgeAction
    }

    /// The node's object path (the application is `ATSPI_DBUS_PATH_ROOT`).
    package var path: String
    /// The role (`AtspiRole`).
    package var role: AtspiRole
    /// The accessible name.
    package var name: String
    /// The accessible description.
    package var description: String
    /// The states (`AtspiStateType`), in no particular order.
    package var states: Set<UInt32>
    /// The node's rectangle in window pixels (nil: the application, which has no extents).
    package var frame: PixelRect?
    /// The parent's path (nil: the application, whose parent is the registry's desktop).
    package var parent: String?
    /// The children's paths, in order.
    package var children: [String]
    /// The actions (buttons only).
    package var actions: [Action]
    /// The index of the toolbar button this node stands for, if it is one.
    package var buttonIndex: Int?
    /// Which part of the application (which host's toolbar) the node belongs to.
    package var part = 0
    /// The row of the open peek this node stands for, if it is one (its one action activates it).
    package var peekRow: Int?

    /// The AT-SPI2 interfaces the node answers.
    package var interfaces: [String] {
        var names = [ATSPI_DBUS_INTERFACE_ACCESSIBLE]
        if role == ATSPI_ROLE_APPLICATION { names.append(ATSPI_DBUS_INTERFACE_APPLICATION) } else { names.append(ATSPI_DBUS_INTERFACE_COMPONENT) }
        if !actions.isEmpty { names.append(ATSPI_DBUS_INTERFACE_ACTION) }
        return names
    }

    /// The state set as AT-SPI2 sends it: two 32-bit words of bits.
    package var stateWords: [UInt32] {
        var words: [UInt32] = [0, 0]
        for state in states where state < 64 { words[Int(state / 32)] |= 1 << (state % 32) }
        return words
    }

    /// True when the node has `state`.
    package func has(_ state: AtspiStateType) -> Bool { states.contains(state.rawValue) }
}
