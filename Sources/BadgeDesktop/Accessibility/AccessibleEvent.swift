import BadgeIO
import CAtspi

/// An AT-SPI2 event: a signal on the object it concerns, such as
/// `object:state-changed:focused` (interface `org.a11y.atspi.Event.Object`, member
/// `StateChanged`, detail `focused`).
package struct AccessibleEvent: Equatable, Sendable {
    /// `org.a11y.atspi.Event.Window` (there is no named constant for it in atspi-constants.h).
    package static let windowInterface = "org.a11y.atspi.Event.Window"
    /// Politeness of an announcement: polite (`ATSPI_LIVE_POLITE` from at-spi2-core 2.50 on; 2.46
    /// reads no politeness and speaks every announcement).
    package static let politeAnnouncement: Int32 = 1

    /// The object's path.
    package var path: String
    /// The event interface.
    package var interface: String
    /// The signal's member ("StateChanged").
    package var member: String
    /// The detail ("focused", "accessible-description"; "" for none).
    package var detail = ""
    /// The first number (1 for a state set, 0 cleared; the politeness of an announcement).
    package var detail1: Int32 = 0
    /// The second number.
    package var detail2: Int32 = 0
    /// The value (the new description or name; an int 0 when there is none).
    package var value: DBusValue = .int32(0)

    /// The name listeners register ("object:state-changed:focused", "window:activate").
    package var name: String {
        let category = interface.split(separator: ".").last.map { $0.lowercased() } ?? ""
        var parts = [category, Self.hyphenated(member)]
        if !detail.isEmpty { parts.append(detail) }
        return parts.joined(separator: ":")
    }

    /// "StateChanged" → "state-changed", as the registry spells event names.
    package static func hyphenated(_ camel: String) -> String {
        var result = ""
        for character in camel {
            if character.isUppercase, !result.isEmpty { result.append("-") }
            result.append(contentsOf: character.lowercased())
        }
        return result
    }

    /// The events that turn `old` into `new`: focus moves (the old focus lost first), window
    /// activation, names and descriptions (each description change also announced), and shown
    /// or hidden objects. Objects that appear or go are reported as children changes of the tool bar.
    package static func changes(from old: AccessibleTree, to new: AccessibleTree) -> [AccessibleEvent] {
        var lost: [AccessibleEvent] = [], gained: [AccessibleEvent] = [], other: [AccessibleEvent] = []
        let object = ATSPI_DBUS_INTERFACE_EVENT_OBJECT
        for node in new.ordered {
            guard let before = old[node.path] else { continue }
            if before.name != node.name {
                other.append(AccessibleEvent(path: node.path, interface: object, member: "PropertyChange",
                                             detail: "accessible-name", value: .string(node.name)))
            }
            if before.description != node.description {
                other.append(AccessibleEvent(path: node.path, interface: object, member: "PropertyChange",
                                             detail: "accessible-description", value: .string(node.description)))
                other.append(AccessibleEvent(path: node.path, interface: object, member: "Announcement",
                                             detail1: politeAnnouncement, value: .string(node.description)))
            }
            for (state, detail) in [(ATSPI_STATE_SHOWING, "showing"), (ATSPI_STATE_VISIBLE, "visible"),
                                    (ATSPI_STATE_ACTIVE, "active")]
                where before.has(state) != node.has(state) {
                other.append(AccessibleEvent(path: node.path, interface: object, member: "StateChanged",
                                             detail: detail, detail1: node.has(state) ? 1 : 0))
            }
            if before.has(ATSPI_STATE_ACTIVE) != node.has(ATSPI_STATE_ACTIVE), node.role == ATSPI_ROLE_FRAME {
                // The members are CamelCase: libatspi's match rules name them so.
                let event = AccessibleEvent(path: node.path, interface: windowInterface,
                                            member: node.has(ATSPI_STATE_ACTIVE) ? "Activate" : "Deactivate",
                                            value: .string(node.name))
                if node.has(ATSPI_STATE_ACTIVE) { gained.insert(event, at: 0) } else { lost.append(event) }
            }
            if before.has(ATSPI_STATE_FOCUSED) != node.has(ATSPI_STATE_FOCUSED) {
                let focused = node.has(ATSPI_STATE_FOCUSED)
                let event = AccessibleEvent(path: node.path, interface: object, member: "StateChanged",
                                            detail: "focused", detail1: focused ? 1 : 0)
                if focused { gained.append(event) } else { lost.append(event) }
            }
        }
        for after in new.ordered where after.role == ATSPI_ROLE_TOOL_BAR {
            guard let before = old[after.path], before.children != after.children else { continue }
            for (index, path) in before.children.enumerated().reversed() where !after.children.contains(path) {
                other.append(AccessibleEvent(path: after.path, interface: object, member: "ChildrenChanged",
                                             detail: "remove", detail1: Int32(index), value: .objectPath(path)))
            }
            for (index, path) in after.children.enumerated() where !before.children.contains(path) {
                other.append(AccessibleEvent(path: after.path, interface: object, member: "ChildrenChanged",
                                             detail: "add", detail1: Int32(index), value: .objectPath(path)))
            }
        }
        // A popup window (the peek) appearing: the application gains a child, the window is made
        // and activated, and its highlighted item is focused, as GTK's menus announce themselves;
        // going: the reverse.
        let application = AccessibleTree.applicationPath
        for node in new.ordered where node.role == ATSPI_ROLE_WINDOW && old[node.path] == nil {
            let index = new[application]?.children.firstIndex(of: node.path) ?? 0
            other.append(AccessibleEvent(path: application, interface: object, member: "ChildrenChanged", detail: "add",
                                         detail1: Int32(index), value: .objectPath(node.path)))
            gained.insert(AccessibleEvent(path: node.path, interface: windowInterface, member: "Create", value: .string(node.name)), at: 0)
            gained.insert(AccessibleEvent(path: node.path, interface: windowInterface, member: "Activate", value: .string(node.name)), at: 1)
            for item in new.ordered where item.role == ATSPI_ROLE_MENU_ITEM && item.has(ATSPI_STATE_FOCUSED) && old[item.path] == nil {
                gained.append(AccessibleEvent(path: item.path, interface: object, member: "StateChanged", detail: "focused", detail1: 1))
            }
        }
        for node in old.ordered where node.role == ATSPI_ROLE_WINDOW && new[node.path] == nil {
            let index = old[application]?.children.firstIndex(of: node.path) ?? 0
            lost.append(AccessibleEvent(path: node.path, interface: windowInterface, member: "Deactivate", value: .string(node.name)))
            lost.append(AccessibleEvent(path: node.path, interface: windowInterface, member: "Destroy", value: .string(node.name)))
            other.append(AccessibleEvent(path: application, interface: object, member: "ChildrenChanged", detail: "remove",
                                         detail1: Int32(index), value: .objectPath(node.path)))
        }
        // A screen reader hears the window, then what left the focus, then where it went.
        return lost + other + gained
    }
}
