import BadgeIO
import BadgeCore
import CAtspi
import CDBusProtocol

/// Answers AT-SPI2 method calls from an ``AccessibleTree`` snapshot: Accessible, Application,
/// Component, Action, and the standard Properties, Introspectable and Peer interfaces.
///
/// Pure: a call comes in as a ``Request`` and leaves as a ``Reply``, so every answer, including
/// the standard D-Bus error for a wrong signature, an unknown path, interface or method, or an
/// index out of range, is tested without a bus.
package struct AccessibilityService {
    /// A method call.
    package typealias Request = DBusRequest

    /// What to send back (and do).
    package enum Reply: Equatable, Sendable {
        /// A method return with these values.
        case values([DBusValue])
        /// A standard error reply.
        case error(name: String, message: String)
        /// Apply `action` to toolbar button `button` (as the matching click would), then return true.
        case perform(button: Int, action: BadgeAction, part: Int = 0)
        /// Give toolbar button `button` the keyboard focus, then return true.
        case focus(button: Int, part: Int = 0)
        /// Activate row `row` of part `part`'s open peek (its second action, mark read, when `secondary`).
        case activatePeekRow(Int, part: Int, secondary: Bool = false)
        /// Remember the application id the registry gives (`Application.Id`), then return nothing.
        case setApplicationID(Int32)
    }

    /// The standard interfaces.
    package static let propertiesInterface = DBusFailure.propertiesInterface
    /// D-Bus introspection.
    package static let introspectableInterface = DBusFailure.introspectableInterface
    /// D-Bus ping.
    package static let peerInterface = DBusFailure.peerInterface
    /// Where libatspi asks for objects to preload (`org.a11y.atspi.Cache`).
    package static let cachePath = "/org/a11y/atspi/cache"
    /// The AT-SPI2 version this bridge speaks.
    package static let atspiVersion = "2.1"

    /// The tree answered from.
    package var tree: AccessibleTree
    /// This connection's unique bus name, which every object reference carries.
    package var busName: String
    /// The registry's desktop, the application's parent (the answer to Embed).
    package var desktop: DBusValue = Self.null
    /// Each part's window's top-left corner on the screen, in pixels (by part; (0, 0) when unknown).
    package var windowOrigins: [Int: (x: Int, y: Int)] = [:]
    /// The first part's window's top-left corner on the screen (a one-toolbar application's).
    package var windowOrigin: (x: Int, y: Int) {
        get { windowOrigins[0] ?? (0, 0) }
        set { windowOrigins[0] = newValue }
    }
    /// The id the registry gave the application.
    package var applicationID: Int32 = 0
    /// The toolkit's name and version (Application.ToolkitName, Version).
    package var toolkit = (name: "BadgeKit", version: BadgeKitVersion.string)
    /// The locale name (LC_MESSAGES), for Accessible.Locale and Application.GetLocale.
    package var locale = "C"

    /// A service for `tree`, its objects named on `busName`.
    package init(tree: AccessibleTree, busName: String) {
        self.tree = tree
        self.busName = busName
    }

    /// The null object reference.
    package static let null = DBusValue.structure([.string(""), .objectPath(ATSPI_DBUS_PATH_NULL)])

    /// The reference to the node at `path` in this application.
    package func reference(_ path: String?) -> DBusValue {
        guard let path else { return Self.null }
        return .structure([.string(busName), .objectPath(path)])
    }

    /// The answer to `request`.
    package func answer(_ request: Request) -> Reply {
        if let peer = request.peerAnswer { return Self.reply(peer) }
        if request.path == Self.cachePath, request.interface == ATSPI_DBUS_INTERFACE_CACHE || request.interface.isEmpty,
           request.member == "GetItems" {
            guard request.signature == "" else { return wrongSignature(request, expected: "") }
            // Nothing to preload: clients ask each object (and so never hold a stale child list).
            return .values([.array(element: "((so)(so)(so)iiassusau)", [])])
        }
        guard let node = tree[request.path] else {
            if request.interface == Self.introspectableInterface, request.member == "Introspect", request.signature == "" {
                return .values([.string(Self.introspection(of: nil, children: Self.childNames(below: request.path, in: tree)))])
            }
            return Self.reply(.failure(.unknownObject(request.path, what: "accessible object")))
        }
        switch request.interface {
        case Self.propertiesInterface: return properties(request, node)
        case Self.introspectableInterface:
            guard request.member == "Introspect" else { return unknownMethod(request) }
            guard request.signature == "" else { return wrongSignature(request, expected: "") }
            return .values([.string(Self.introspection(of: node, children: []))])
        case ATSPI_DBUS_INTERFACE_ACCESSIBLE: return accessible(request, node)
        case ATSPI_DBUS_INTERFACE_APPLICATION where node.interfaces.contains(ATSPI_DBUS_INTERFACE_APPLICATION):
            return application(request)
        case ATSPI_DBUS_INTERFACE_COMPONENT where node.interfaces.contains(ATSPI_DBUS_INTERFACE_COMPONENT):
            return component(request, node)
        case ATSPI_DBUS_INTERFACE_ACTION where !node.actions.isEmpty:
            return action(request, node)
        case "":
            // No interface named: the first interface of the node's that has the method.
            for interface in node.interfaces + [Self.propertiesInterface] {
                var named = request
                named.interface = interface
                let reply = answer(named)
                if case .error(let name, _) = reply, name == DBUS_ERROR_UNKNOWN_METHOD { continue }
                return reply
            }
            return unknownMethod(request)
        default:
            return Self.reply(.failure(.unknownInterface(request.interface, at: request.path)))
        }
    }

    // MARK: Accessible

    private func accessible(_ request: Request, _ node: AccessibleNode) -> Reply {
        let expected: String
        switch request.member {
        case "GetChildAtIndex": expected = "i"
        case "GetChildren", "GetIndexInParent", "GetRelationSet", "GetRole", "GetRoleName", "GetLocalizedRoleName",
             "GetState", "GetAttributes", "GetApplication", "GetInterfaces":
            expected = ""
        default: return unknownMethod(request)
        }
        guard request.signature == expected else { return wrongSignature(request, expected: expected) }
        switch request.member {
        case "GetChildAtIndex":
            guard let index = request.arguments.first?.integerValue, index >= 0, index < node.children.count else {
                return .error(name: DBUS_ERROR_INVALID_ARGS,
                              message: "child index \(request.arguments.first?.integerValue ?? -1) is out of range: \(request.path) has \(node.children.count) children")
            }
            return .values([reference(node.children[Int(index)])])
        case "GetChildren": return .values([.array(element: "(so)", node.children.map { reference($0) })])
        case "GetIndexInParent": return .values([.int32(Int32(tree.index(of: node)))])
        case "GetRelationSet": return .values([.array(element: "(ua(so))", [])])
        case "GetRole": return .values([.uint32(node.role.rawValue)])
        case "GetRoleName", "GetLocalizedRoleName": return .values([.string(Self.roleName(node.role))])
        case "GetState": return .values([.array(element: "u", node.stateWords.map { .uint32($0) })])
        case "GetAttributes": return .values([attributes(node)])
        case "GetApplication": return .values([reference(AccessibleTree.applicationPath)])
        default: return .values([.array(element: "s", node.interfaces.map { .string($0) })])
        }
    }

    private func attributes(_ node: AccessibleNode) -> DBusValue {
        var entries: [(String, String)] = [("toolkit", toolkit.name)]
        if let index = node.buttonIndex { entries.append(("button-index", String(index))) }
        return .array(element: "{ss}", entries.map { .dictEntry(.string($0.0), .string($0.1)) })
    }

    // MARK: Application

    private func application(_ request: Request) -> Reply {
        switch request.member {
        case "GetLocale":
            guard request.signature == "u" else { return wrongSignature(request, expected: "u") }
            return .values([.string(locale)])
        case "GetApplicationBusAddress":
            guard request.signature == "" else { return wrongSignature(request, expected: "") }
            // No peer-to-peer server: clients use the bus.
            return .values([.string("")])
        default: return unknownMethod(request)
        }
    }

    // MARK: Component

    private func component(_ request: Request, _ node: AccessibleNode) -> Reply {
        let expected: String
        switch request.member {
        case "Contains", "GetAccessibleAtPoint": expected = "iiu"
        case "GetExtents", "GetPosition", "ScrollTo": expected = "u"
        case "GetSize", "GetLayer", "GetMDIZOrder", "GrabFocus", "GetAlpha": expected = ""
        case "SetExtents": expected = "iiiiu"
        case "SetPosition": expected = "iiu"
        case "SetSize": expected = "ii"
        case "ScrollToPoint": expected = "uii"
        default: return unknownMethod(request)
        }
        guard request.signature == expected else { return wrongSignature(request, expected: expected) }
        let numbers = request.arguments.map { $0.integerValue ?? 0 }
        switch request.member {
        case "Contains", "GetAccessibleAtPoint":
            guard let origin = origin(of: node, coordinates: numbers[2]) else { return badCoordinateType(numbers[2]) }
            let point = (x: Int(numbers[0]) - origin.x, y: Int(numbers[1]) - origin.y)
            let frame = node.frame ?? PixelRect(x: 0, y: 0, width: 0, height: 0)
            func inside(_ rect: PixelRect) -> Bool {
                point.x >= rect.x && point.y >= rect.y && point.x < rect.x + rect.width && point.y < rect.y + rect.height
            }
            if request.member == "Contains" { return .values([.bool(inside(frame))]) }
            let hit = node.children.first { tree[$0]?.frame.map(inside) ?? false }
            return .values([reference(hit)])
        case "GetExtents", "GetPosition":
            guard let origin = origin(of: node, coordinates: numbers[0]) else { return badCoordinateType(numbers[0]) }
            let frame = node.frame ?? PixelRect(x: 0, y: 0, width: 0, height: 0)
            let x = Int32(clamping: frame.x + origin.x), y = Int32(clamping: frame.y + origin.y)
            if request.member == "GetPosition" { return .values([.int32(x), .int32(y)]) }
            return .values([.structure([.int32(x), .int32(y), .int32(Int32(clamping: frame.width)), .int32(Int32(clamping: frame.height))])])
        case "GetSize":
            let frame = node.frame ?? PixelRect(x: 0, y: 0, width: 0, height: 0)
            return .values([.int32(Int32(clamping: frame.width)), .int32(Int32(clamping: frame.height))])
        case "GetLayer":
            return .values([.uint32(node.role == ATSPI_ROLE_FRAME ? ATSPI_LAYER_WINDOW.rawValue : ATSPI_LAYER_WIDGET.rawValue)])
        case "GetMDIZOrder": return .values([.int16(0)])
        case "GrabFocus":
            guard let index = node.buttonIndex else { return .values([.bool(false)]) }
            return .focus(button: index, part: node.part)
        case "GetAlpha": return .values([.double(1)])
        default:
            // Moving, resizing and scrolling: the window manager's business, refused.
            return .values([.bool(false)])
        }
    }

    /// Where coordinates of `type` start, relative to the window's top-left pixel (nil: no such type).
    private func origin(of node: AccessibleNode, coordinates type: Int64) -> (x: Int, y: Int)? {
        switch type {
        case Int64(ATSPI_COORD_TYPE_SCREEN.rawValue): return windowOrigins[node.part] ?? (0, 0)
        case Int64(ATSPI_COORD_TYPE_WINDOW.rawValue): return (0, 0)
        case Int64(ATSPI_COORD_TYPE_PARENT.rawValue):
            let parent = node.parent.flatMap { tree[$0]?.frame } ?? PixelRect(x: 0, y: 0, width: 0, height: 0)
            return (-parent.x, -parent.y)
        default: return nil
        }
    }

    private func badCoordinateType(_ type: Int64) -> Reply {
        .error(name: DBUS_ERROR_INVALID_ARGS, message: "coordinate type \(type) is none of screen (0), window (1) or parent (2)")
    }

    // MARK: Action

    private func action(_ request: Request, _ node: AccessibleNode) -> Reply {
        let expected: String
        switch request.member {
        case "GetDescription", "GetName", "GetLocalizedName", "GetKeyBinding", "DoAction": expected = "i"
        case "GetActions": expected = ""
        default: return unknownMethod(request)
        }
        guard request.signature == expected else { return wrongSignature(request, expected: expected) }
        if request.member == "GetActions" {
            return .values([.array(element: "(sss)", node.actions.map { .structure([.string($0.name), .string($0.description), .string($0.keyBinding)]) })])
        }
        if let row = node.peekRow, request.member == "DoAction", let index = request.arguments.first?.integerValue,
           index >= 0, index < node.actions.count, index <= 1 {
            return .activatePeekRow(row, part: node.part, secondary: index == 1)
        }
        guard let index = request.arguments.first?.integerValue, index >= 0, index < node.actions.count,
              node.buttonIndex != nil || node.peekRow != nil else {
            return .error(name: DBUS_ERROR_INVALID_ARGS,
                          message: "action index \(request.arguments.first?.integerValue ?? -1) is out of range: \(request.path) has \(node.actions.count) actions")
        }
        let action = node.actions[Int(index)]
        switch request.member {
        case "GetDescription": return .values([.string(action.description)])
        case "GetName", "GetLocalizedName": return .values([.string(action.name)])
        case "GetKeyBinding": return .values([.string(action.keyBinding)])
        default:
            guard let button = node.buttonIndex else { return .values([.bool(false)]) }
            return .perform(button: button, action: action.badgeAction, part: node.part)
        }
    }

    // MARK: Properties

    private func properties(_ request: Request, _ node: AccessibleNode) -> Reply {
        switch request.propertyAccess {
        case .success(.get(let interface, let name)):
            guard node.interfaces.contains(interface) else { return Self.reply(.failure(.unknownInterface(interface, at: request.path))) }
            guard let value = properties(of: node, interface: interface).first(where: { $0.0 == name })?.1 else {
                return Self.reply(.failure(.unknownProperty(name, of: interface)))
            }
            return .values([.variant(value)])
        case .success(.getAll(let interface)):
            guard node.interfaces.contains(interface) else { return Self.reply(.failure(.unknownInterface(interface, at: request.path))) }
            return .values([DBusValue.dictionary(properties(of: node, interface: interface))])
        case .success(.set(let interface, let name, let value)):
            guard node.interfaces.contains(interface), properties(of: node, interface: interface).contains(where: { $0.0 == name }) else {
                return Self.reply(.failure(.unknownProperty(name, of: interface)))
            }
            guard interface == ATSPI_DBUS_INTERFACE_APPLICATION, name == "Id" else { return Self.reply(.failure(.readOnly(name, of: interface))) }
            guard case .int32(let id) = value else {
                return .error(name: DBUS_ERROR_INVALID_ARGS, message: "Application.Id takes an int32 (i)")
            }
            return .setApplicationID(id)
        case .failure(let failure):
            return Self.reply(.failure(failure))
        case nil:
            return unknownMethod(request)
        }
    }

    private func properties(of node: AccessibleNode, interface: String) -> [(String, DBusValue)] {
        switch interface {
        case ATSPI_DBUS_INTERFACE_ACCESSIBLE:
            return [("Name", .string(node.name)), ("Description", .string(node.description)),
                    ("Parent", node.parent.map { reference($0) } ?? desktop),
                    ("ChildCount", .int32(Int32(node.children.count))), ("Locale", .string(locale)),
                    ("AccessibleId", .string(node.path.split(separator: "/").last.map(String.init) ?? "")),
                    ("HelpText", .string(""))]
        case ATSPI_DBUS_INTERFACE_APPLICATION:
            return [("ToolkitName", .string(toolkit.name)), ("Version", .string(toolkit.version)),
                    ("AtspiVersion", .string(Self.atspiVersion)), ("Id", .int32(applicationID))]
        case ATSPI_DBUS_INTERFACE_ACTION:
            return [("NActions", .int32(Int32(node.actions.count)))]
        default:
            return []
        }
    }

    // MARK: Errors and names

    private func unknownMethod(_ request: Request) -> Reply {
        Self.reply(.failure(.unknownMethod(request)))
    }

    private func wrongSignature(_ request: Request, expected: String) -> Reply {
        Self.reply(.failure(.wrongSignature(request, expected: expected)))
    }

    /// Values, or the standard error.
    private static func reply(_ result: Result<[DBusValue], DBusFailure>) -> Reply {
        switch result {
        case .success(let values): return .values(values)
        case .failure(let failure): return .error(name: failure.name, message: failure.message)
        }
    }

    /// The role's name as libatspi spells it ("push button").
    package static func roleName(_ role: AtspiRole) -> String {
        switch role {
        case ATSPI_ROLE_APPLICATION: return "application"
        case ATSPI_ROLE_FRAME: return "frame"
        case ATSPI_ROLE_TOOL_BAR: return "tool bar"
        case ATSPI_ROLE_PUSH_BUTTON: return "push button"
        case ATSPI_ROLE_WINDOW: return "window"
        case ATSPI_ROLE_MENU: return "menu"
        case ATSPI_ROLE_MENU_ITEM: return "menu item"
        default: return "unknown"
        }
    }

    /// The child element names below `path` (for introspecting the paths between the objects).
    static func childNames(below path: String, in tree: AccessibleTree) -> [String] {
        DBusIntrospection.childNames(below: path, among: tree.ordered.map(\.path))
    }

    /// Introspection XML: the node's interfaces (by name; their members are in at-spi2-core's xml/) and children.
    static func introspection(of node: AccessibleNode?, children: [String]) -> String {
        let names = node.map { $0.interfaces + [propertiesInterface, introspectableInterface, peerInterface] } ?? []
        return DBusIntrospection.document(interfaces: names.map(DBusIntrospection.named), children: children)
    }
}
