import BadgeCore
import CAtspi
import CDBusProtocol
import Testing
import BadgeIO
@testable import BadgeDesktop

/// The AT-SPI2 bridge's pure parts: the tree, the answers (and errors), the events and who hears them.
@Suite struct AccessibilityServiceTests {
    final class FixedWidth: TextMeasuring {
        func size(of text: String, font: BadgeFont) -> Size { Size(width: Double(text.count) * 7, height: 12) }
    }

    static func toolbar(mail: Int = 12) -> Toolbar {
        let clock = ManualClock()
        let labels = [("bell", "Notifications", 3), ("mail", "Mail", mail)]
        let toolbar = Toolbar(buttons: labels.map { id, label, count in
            ToolbarButton(id: id, iconName: id, badge: BadgeController(accessibilityLabel: label, content: .count(count),
                                                                     clock: clock, measurer: FixedWidth()))
        })
        toolbar.layout(size: toolbar.preferredSize, scale: 1, direction: .leftToRight)
        return toolbar
    }

    static func tree(_ toolbar: Toolbar, active: Bool = false, title: String? = "Badges") -> AccessibleTree {
        AccessibleTree(toolbar: toolbar, applicationName: "app",
                       window: .init(title: title, size: PixelRect(x: 0, y: 0, width: 110, height: 60), isMapped: true, isActive: active))
    }

    static func service(_ tree: AccessibleTree) -> AccessibilityService {
        var service = AccessibilityService(tree: tree, busName: ":1.7")
        service.windowOrigin = (100, 200)
        return service
    }

    func call(_ path: String, _ interface: String, _ member: String, _ arguments: [DBusValue] = [],
              signature: String? = nil, toolbar: Toolbar = toolbar()) -> AccessibilityService.Reply {
        Self.service(Self.tree(toolbar)).answer(.init(path: path, interface: interface, member: member, signature: signature,
                                                       arguments: arguments))
    }

    static let button1 = AccessibleTree.buttonPath(1)

    @Test("A peek row with a second action (Mark read) has two actions, the second named in the user's language; DoAction 1 asks for it")
    func peekRowSecondAction() {
        let toolbar = Self.toolbar()
        var row = PeekRow(title: "Alice", detail: "Lunch?")
        row.secondaryAction = "Als gelesen markieren"
        let peek = AccessibleTree.Peek(buttonIndex: 1, rows: [row, PeekRow(title: "and 3 more", isActionable: false)],
                                       rowFrames: [PixelRect(x: 0, y: 60, width: 100, height: 20), PixelRect(x: 0, y: 80, width: 100, height: 20)],
                                       frame: PixelRect(x: 0, y: 60, width: 100, height: 40), highlighted: 0)
        let window = AccessibleTree.Window(title: "Badges", size: PixelRect(x: 0, y: 0, width: 110, height: 60), isMapped: true, isActive: true)
        let tree = AccessibleTree(parts: [AccessibleTree.Part(toolbar: toolbar, window: window, peek: peek)], applicationName: "app")
        let path = AccessibleTree.peekItemPath(0, part: 0)
        #expect(tree[path]?.actions.map(\.name) == ["click", "Als gelesen markieren"])
        #expect(tree[path]?.actions.last?.keyBinding == "<Shift>Return")
        #expect(tree[AccessibleTree.peekItemPath(1, part: 0)]?.actions.isEmpty == true)
        let service = Self.service(tree)
        #expect(service.answer(.init(path: path, interface: ATSPI_DBUS_INTERFACE_ACTION, member: "DoAction", signature: nil, arguments: [.int32(1)]))
                == .activatePeekRow(0, part: 0, secondary: true))
        #expect(service.answer(.init(path: path, interface: ATSPI_DBUS_INTERFACE_ACTION, member: "DoAction", signature: nil, arguments: [.int32(0)]))
                == .activatePeekRow(0, part: 0, secondary: false))
    }

    @Test("Application → frame → tool bar → push buttons, named by label and described by badge")
    func treeShape() {
        let toolbar = Self.toolbar()
        toolbar.focus(toolbar.buttons[1])
        let tree = Self.tree(toolbar, active: true)
        #expect(tree.ordered.map(\.role) == [ATSPI_ROLE_APPLICATION, ATSPI_ROLE_FRAME, ATSPI_ROLE_TOOL_BAR,
                                             ATSPI_ROLE_PUSH_BUTTON, ATSPI_ROLE_PUSH_BUTTON])
        let mail = tree[Self.button1]
        #expect(mail?.name == "Mail" && mail?.description == "Mail, 12 unread")
        #expect(mail?.frame == toolbar.buttons[1].frame.pixels(scale: 1, rounding: .nearest))
        #expect(mail.map { $0.has(ATSPI_STATE_FOCUSED) && $0.has(ATSPI_STATE_FOCUSABLE) && $0.has(ATSPI_STATE_SHOWING) } == true)
        #expect(tree[AccessibleTree.framePath]?.has(ATSPI_STATE_ACTIVE) == true)
        #expect(tree[AccessibleTree.buttonPath(0)]?.has(ATSPI_STATE_FOCUSED) == false)
        // Focus only counts in the active window.
        #expect(Self.tree(toolbar, active: false)[Self.button1]?.has(ATSPI_STATE_FOCUSED) == false)
        // A child window inside another program's: no frame of ours.
        let embedded = Self.tree(toolbar, title: nil)
        #expect(embedded[AccessibleTree.framePath] == nil && embedded[AccessibleTree.toolBarPath]?.parent == AccessibleTree.applicationPath)
    }

    @Test("Queries: role, children, index, state words, extents in screen, window and parent coordinates")
    func answers() {
        #expect(call(Self.button1, ATSPI_DBUS_INTERFACE_ACCESSIBLE, "GetRole") == .values([.uint32(ATSPI_ROLE_PUSH_BUTTON.rawValue)]))
        #expect(call(AccessibleTree.toolBarPath, ATSPI_DBUS_INTERFACE_ACCESSIBLE, "GetChildAtIndex", [.int32(1)])
                == .values([.structure([.string(":1.7"), .objectPath(Self.button1)])]))
        #expect(call(Self.button1, ATSPI_DBUS_INTERFACE_ACCESSIBLE, "GetIndexInParent") == .values([.int32(1)]))
        #expect(call(AccessibleTree.applicationPath, ATSPI_DBUS_INTERFACE_ACCESSIBLE, "GetIndexInParent") == .values([.int32(-1)]))
        guard case .values(let state) = call(Self.button1, ATSPI_DBUS_INTERFACE_ACCESSIBLE, "GetState"),
              case .array(_, let words) = state.first else {
            Issue.record("no state")
            return
        }
        #expect(words.count == 2, "libatspi wants exactly two words")
        let frame = Self.toolbar().buttons[1].frame.pixels(scale: 1, rounding: .nearest)
        let extents = { (type: UInt32) in call(Self.button1, ATSPI_DBUS_INTERFACE_COMPONENT, "GetExtents", [.uint32(type)]) }
        #expect(extents(ATSPI_COORD_TYPE_SCREEN.rawValue) == .values([.structure([.int32(Int32(frame.x + 100)), .int32(Int32(frame.y + 200)),
                                                                                   .int32(Int32(frame.width)), .int32(Int32(frame.height))])]))
        #expect(extents(ATSPI_COORD_TYPE_WINDOW.rawValue) == .values([.structure([.int32(Int32(frame.x)), .int32(Int32(frame.y)),
                                                                                   .int32(Int32(frame.width)), .int32(Int32(frame.height))])]))
        #expect(call(AccessibleTree.toolBarPath, ATSPI_DBUS_INTERFACE_COMPONENT, "GetAccessibleAtPoint",
                     [.int32(Int32(frame.x + 101)), .int32(Int32(frame.y + 201)), .uint32(ATSPI_COORD_TYPE_SCREEN.rawValue)])
                == .values([.structure([.string(":1.7"), .objectPath(Self.button1)])]))
        let inside = [DBusValue.int32(Int32(frame.x + 1)), .int32(Int32(frame.y + 1)), .uint32(ATSPI_COORD_TYPE_WINDOW.rawValue)]
        #expect(call(Self.button1, ATSPI_DBUS_INTERFACE_COMPONENT, "Contains", inside) == .values([.bool(true)]))
        #expect(call(AccessibleTree.buttonPath(0), ATSPI_DBUS_INTERFACE_COMPONENT, "Contains", inside) == .values([.bool(false)]))
        #expect(call(Self.button1, AccessibilityService.propertiesInterface, "Get", [.string(ATSPI_DBUS_INTERFACE_ACCESSIBLE), .string("Name")])
                == .values([.variant(.string("Mail"))]))
        #expect(call(AccessibleTree.applicationPath, AccessibilityService.propertiesInterface, "Get",
                     [.string(ATSPI_DBUS_INTERFACE_ACCESSIBLE), .string("Parent")]) == .values([.variant(AccessibilityService.null)]))
        #expect(call(Self.button1, ATSPI_DBUS_INTERFACE_ACTION, "DoAction", [.int32(0)]) == .perform(button: 1, action: .increment))
        #expect(call(Self.button1, ATSPI_DBUS_INTERFACE_ACTION, "DoAction", [.int32(2)]) == .perform(button: 1, action: .clear))
        #expect(call(Self.button1, ATSPI_DBUS_INTERFACE_COMPONENT, "GrabFocus") == .focus(button: 1))
        #expect(call(AccessibleTree.applicationPath, AccessibilityService.propertiesInterface, "Set",
                     [.string(ATSPI_DBUS_INTERFACE_APPLICATION), .string("Id"), .variant(.int32(4))]) == .setApplicationID(4))
        #expect(call(AccessibleTree.applicationPath, AccessibilityService.propertiesInterface, "Get",
                     [.string(ATSPI_DBUS_INTERFACE_APPLICATION), .string("ToolkitName")]) == .values([.variant(.string("BadgeKit"))]))
        #expect(call(AccessibleTree.applicationPath, ATSPI_DBUS_INTERFACE_APPLICATION, "GetLocale", [.uint32(0)]) == .values([.string("C")]))
        #expect(call(Self.button1, ATSPI_DBUS_INTERFACE_ACCESSIBLE, "GetApplication")
                == .values([.structure([.string(":1.7"), .objectPath(AccessibleTree.applicationPath)])]))
        #expect(call(Self.button1, ATSPI_DBUS_INTERFACE_ACCESSIBLE, "GetAttributes")
                == .values([.array(element: "{ss}", [.dictEntry(.string("toolkit"), .string("BadgeKit")),
                                                      .dictEntry(.string("button-index"), .string("1"))])]))
        #expect(call(AccessibilityService.cachePath, ATSPI_DBUS_INTERFACE_CACHE, "GetItems") == .values([.array(element: "((so)(so)(so)iiassusau)", [])]))
        #expect(call("/", AccessibilityService.peerInterface, "Ping") == .values([]))
    }

    @Test("Bad calls: the standard error for each", arguments: [
        (button1, ATSPI_DBUS_INTERFACE_ACTION, "DoAction", [DBusValue.string("click")], DBUS_ERROR_INVALID_ARGS),
        (button1, ATSPI_DBUS_INTERFACE_ACTION, "DoAction", [.int32(3)], DBUS_ERROR_INVALID_ARGS),
        (AccessibleTree.toolBarPath, ATSPI_DBUS_INTERFACE_ACCESSIBLE, "GetChildAtIndex", [.int32(2)], DBUS_ERROR_INVALID_ARGS),
        (AccessibleTree.toolBarPath, ATSPI_DBUS_INTERFACE_ACCESSIBLE, "GetChildAtIndex", [.int32(-1)], DBUS_ERROR_INVALID_ARGS),
        (button1, ATSPI_DBUS_INTERFACE_COMPONENT, "GetExtents", [.uint32(3)], DBUS_ERROR_INVALID_ARGS),
        (button1, ATSPI_DBUS_INTERFACE_ACCESSIBLE, "GetRole", [.int32(1)], DBUS_ERROR_INVALID_ARGS),
        ("/org/a11y/atspi/accessible/button/9", ATSPI_DBUS_INTERFACE_ACCESSIBLE, "GetRole", [], DBUS_ERROR_UNKNOWN_OBJECT),
        (button1, "org.example.Nope", "GetRole", [], DBUS_ERROR_UNKNOWN_INTERFACE),
        (AccessibleTree.framePath, ATSPI_DBUS_INTERFACE_ACTION, "GetActions", [], DBUS_ERROR_UNKNOWN_INTERFACE),
        (button1, ATSPI_DBUS_INTERFACE_ACCESSIBLE, "Explode", [], DBUS_ERROR_UNKNOWN_METHOD),
        (button1, "", "Explode", [], DBUS_ERROR_UNKNOWN_METHOD),
        (button1, AccessibilityService.propertiesInterface, "Get", [.string(ATSPI_DBUS_INTERFACE_ACCESSIBLE), .string("Nope")], DBUS_ERROR_UNKNOWN_PROPERTY),
        (button1, AccessibilityService.propertiesInterface, "Set", [.string(ATSPI_DBUS_INTERFACE_ACCESSIBLE), .string("Name"), .variant(.string("x"))],
         DBUS_ERROR_PROPERTY_READ_ONLY),
        (button1, AccessibilityService.propertiesInterface, "Get", [.string("x")], DBUS_ERROR_INVALID_ARGS),
    ])
    func badCalls(path: String, interface: String, member: String, arguments: [DBusValue], expected: String) {
        guard case .error(let name, let message) = call(path, interface, member, arguments) else {
            Issue.record("no error for \(member) at \(path)")
            return
        }
        #expect(name == expected && !message.isEmpty, "\(member): \(name) \(message)")
    }

    @Test("Events: focus lost before gained, descriptions with an announcement, the title, activation")
    func events() {
        let toolbar = Self.toolbar()
        let before = Self.tree(toolbar, active: false)
        toolbar.focus(toolbar.buttons[1])
        toolbar.buttons[1].badge.increment()
        let after = Self.tree(toolbar, active: true, title: "(16) Badges")
        let events = AccessibleEvent.changes(from: before, to: after)
        #expect(events.map(\.name) == ["object:property-change:accessible-name", "object:state-changed:active",
                                       "object:property-change:accessible-description", "object:announcement",
                                       "window:activate", "object:state-changed:focused"], "\(events.map(\.name))")
        #expect(events.first { $0.member == "Announcement" }?.value == .string("Mail, 13 unread"))
        #expect(events.last?.path == Self.button1 && events.last?.detail1 == 1)
        #expect(AccessibleEvent.changes(from: after, to: after).isEmpty)
        // Back: deactivated, and the focused state goes.
        let back = AccessibleEvent.changes(from: after, to: Self.tree(toolbar, active: false, title: "(16) Badges")).map(\.name)
        #expect(back.contains("window:deactivate") && back.contains("object:state-changed:focused"))
    }

    @Test("Listeners: the registry's CamelCase patterns, prefixes, and nothing while no one listens")
    func listeners() {
        var listeners = AccessibilityListeners()
        #expect(!listeners.sends("object:announcement") && !listeners.sends("object:state-changed:focused"))
        listeners.add(bus: ":1.3", pattern: "Window:Activate:")
        #expect(listeners.wants("window:activate") && !listeners.wants("window:deactivate") && !listeners.wants("object:announcement"))
        // While anyone listens, what libatspi caches is kept current.
        #expect(listeners.sends("object:property-change:accessible-description") && !listeners.sends("object:announcement"))
        listeners.add(bus: ":1.4", pattern: "Object::")
        #expect(listeners.wants("object:announcement") && listeners.wants("object:state-changed:focused"))
        listeners.remove(bus: ":1.4", pattern: "Object::")
        listeners.add(bus: ":1.4", pattern: "object:state-changed")
        #expect(listeners.wants("object:state-changed:focused") && !listeners.wants("object:property-change:accessible-name"))
        listeners.replace(with: [(":1.5", "Object:PropertyChange:AccessibleDescription")])
        #expect(listeners.wants("object:property-change:accessible-description") && !listeners.wants("window:activate"))
        listeners.removeAll(bus: ":1.5")
        #expect(listeners.isEmpty)
        listeners.add(bus: ":1.6", pattern: "")
        #expect(listeners.wants("window:deactivate"), "an empty pattern is every event")
    }

    @Test("Values: signatures of replies and event bodies")
    func signatures() {
        #expect(AccessibilityService.null.signature == "(so)")
        #expect(DBusValue.dictionary([]).signature == "a{sv}")
        #expect(DBusValue.signature(of: [.string(""), .int32(0), .int32(0), .variant(.int32(0)), .dictionary([])]) == "siiva{sv}")
        #expect(AccessibleEvent.hyphenated("StateChanged") == "state-changed")
    }
}

/// Several hosts, one application: each host's toolbar is a part of one tree, with paths of its own.
@Suite struct AccessibleTreePartsTests {
    @Test("Two parts: a frame with its tool bar, and a tool bar straight under the application; actions name their part")
    func twoParts() throws {
        let clock = ManualClock()
        func toolbar(_ ids: [String]) -> Toolbar {
            let bar = Toolbar(buttons: ids.map { ToolbarButton(id: $0, iconName: "bell", badge: BadgeController(
                accessibilityLabel: $0, content: .count(1), clock: clock, measurer: AccessibilityServiceTests.FixedWidth())) })
            bar.layout(size: bar.preferredSize, scale: 1, direction: .leftToRight)
            return bar
        }
        let frame = PixelRect(x: 0, y: 0, width: 200, height: 50)
        let tree = AccessibleTree(parts: [
            .init(toolbar: toolbar(["a", "b"]), window: .init(title: "Mail", size: frame, isMapped: true, isActive: true)),
            .init(toolbar: toolbar(["c"]), window: .init(title: nil, size: frame, isMapped: true, isActive: false)),
        ], applicationName: "app")
        #expect(tree[AccessibleTree.applicationPath]?.children == [AccessibleTree.framePath, AccessibleTree.toolBarPath(part: 1)])
        #expect(tree[AccessibleTree.toolBarPath(part: 1)]?.parent == AccessibleTree.applicationPath)
        #expect(tree[AccessibleTree.toolBarPath(part: 1)]?.children == [AccessibleTree.buttonPath(0, part: 1)])
        #expect(tree[AccessibleTree.buttonPath(0, part: 1)]?.name == "c" && tree[AccessibleTree.buttonPath(0, part: 1)]?.part == 1)
        #expect(tree[AccessibleTree.buttonPath(1)]?.name == "b" && tree[AccessibleTree.buttonPath(1)]?.part == 0)
        var service = AccessibilityService(tree: tree, busName: ":1.5")
        service.windowOrigins = [0: (10, 20), 1: (300, 400)]
        func call(_ path: String, _ interface: String, _ member: String, _ arguments: [DBusValue] = []) -> AccessibilityService.Reply {
            service.answer(.init(path: path, interface: interface, member: member,
                                 signature: DBusValue.signature(of: arguments), arguments: arguments))
        }
        #expect(call(AccessibleTree.buttonPath(0, part: 1), ATSPI_DBUS_INTERFACE_ACTION, "DoAction", [.int32(0)])
                == .perform(button: 0, action: .increment, part: 1))
        #expect(call(AccessibleTree.buttonPath(1), ATSPI_DBUS_INTERFACE_COMPONENT, "GrabFocus") == .focus(button: 1, part: 0))
        // Screen coordinates start at each part's own window.
        guard case .values(let extents) = call(AccessibleTree.buttonPath(0, part: 1), ATSPI_DBUS_INTERFACE_COMPONENT,
                                               "GetExtents", [.uint32(ATSPI_COORD_TYPE_SCREEN.rawValue)]),
              case .structure(let box)? = extents.first, box.count == 4 else {
            Issue.record("no extents")
            return
        }
        let button = try #require(tree[AccessibleTree.buttonPath(0, part: 1)]?.frame)
        #expect(box[0] == .int32(Int32(300 + button.x)) && box[1] == .int32(Int32(400 + button.y)))
    }
}
