import BadgeIO
import BadgeCore
import CDBusProtocol

/// The badge interface of one toolbar on D-Bus (`io.github.badgekit.Badges1`): methods that change a
/// badge, the read-only properties `Buttons`, `Badges` and `Version`, the `BadgeChanged` signal, and
/// the standard Properties, Introspectable and Peer interfaces of its object.
///
/// Pure: a call comes in as a `DBusRequest` and leaves as a ``Reply`` (values, a standard error,
/// or a change for the caller to make), answered from the toolbar's buttons; ``BadgeBusService``
/// puts it on a bus.
package struct BadgeBusInterface {
    /// The interface's name.
    package static let name = "io.github.badgekit.Badges1"
    /// The interface's version (the `Version` property); a new major version gets a new name.
    package static let version: UInt32 = 1

    /// A change a method asks for: the edits every front end shares (`BadgeEdit`).
    package typealias Change = BadgeEdit

    /// What to send back (and do).
    package enum Reply: Equatable, Sendable {
        /// A method return with these values.
        case values([DBusValue])
        /// A standard error reply.
        case failure(DBusFailure)
        /// Make `change` on the buttons with these ids, in order, then return nothing.
        case change([String], Change)
        /// Mark the items with these keys of the button with this id read through its source (every
        /// item it counts with nil), then return nothing, or the refusal as an InvalidArgs error.
        case markRead(String, keys: [String]?)
    }

    /// A method: its name and its arguments' names and types.
    package struct Method: Sendable {
        /// The name.
        package var name: String
        /// The arguments, in order.
        package var arguments: [(name: String, type: String)]
        /// What it returns, in order (nothing for most).
        package var results: [(name: String, type: String)] = []
        /// The arguments' signature.
        package var signature: String { arguments.map(\.type).joined() }
    }

    /// The interface's methods.
    package static let methods = [
        Method(name: "Set", arguments: [("id", "s"), ("count", "x")]),
        Method(name: "Increment", arguments: [("id", "s"), ("step", "x")]),
        Method(name: "Decrement", arguments: [("id", "s"), ("step", "x")]),
        Method(name: "Clear", arguments: [("id", "s")]),
        Method(name: "SetText", arguments: [("id", "s"), ("text", "s")]),
        Method(name: "ShowDot", arguments: [("id", "s"), ("blink", "b")]),
        Method(name: "AddItem", arguments: [("id", "s"), ("key", "s"), ("title", "s"), ("detail", "s")]),
        Method(name: "RemoveItem", arguments: [("id", "s"), ("key", "s")]),
        Method(name: "Items", arguments: [("id", "s")], results: [("items", "aa{sv}")]),
        Method(name: "MarkRead", arguments: [("id", "s"), ("keys", "as")]),
        Method(name: "MarkAllRead", arguments: [("id", "s")]),
    ]

    /// The interface's properties (all read-only): name, type, and whether a change is signalled.
    package static let properties: [(name: String, type: String, emitsChange: String)] = [
        ("Buttons", "as", "true"), ("Badges", "a{sa{sv}}", "true"), ("Version", "u", "const"),
    ]

    /// The object's path.
    package var path: String

    /// The interface at `path`.
    package init(path: String) {
        self.path = path
    }

    // MARK: Answers

    /// The answer to `request`, from `buttons` (the toolbar's, in order).
    package func answer(_ request: DBusRequest, buttons: [ToolbarButton]) -> Reply {
        guard request.path == path else { return .failure(.unknownObject(request.path)) }
        if let peer = request.peerAnswer { return Self.reply(peer) }
        switch request.interface {
        case Self.name: return badgeMethod(request, buttons: buttons)
        case DBusFailure.propertiesInterface: return property(request, buttons: buttons)
        case DBusFailure.introspectableInterface:
            guard request.member == "Introspect" else { return .failure(.unknownMethod(request)) }
            guard request.signature.isEmpty else { return .failure(.wrongSignature(request, expected: "")) }
            return .values([.string(Self.introspection)])
        case "":
            // No interface named: the first interface with the method, one taking these arguments
            // first (`Set(sx)` is the badge's, `Set(ssv)` the Properties').
            let candidates = [(Self.name, Self.methods.map { ($0.name, $0.signature) }),
                              (DBusFailure.propertiesInterface, [("Get", "ss"), ("GetAll", "s"), ("Set", "ssv")]),
                              (DBusFailure.introspectableInterface, [("Introspect", "")]),
                              (DBusFailure.peerInterface, [("Ping", ""), ("GetMachineId", "")])]
            let having = candidates.filter { $0.1.contains { $0.0 == request.member } }
            guard let chosen = having.first(where: { $0.1.contains { $0 == (request.member, request.signature) } }) ?? having.first else {
                return .failure(.unknownMethod(request))
            }
            var named = request
            named.interface = chosen.0
            return answer(named, buttons: buttons)
        default:
            return .failure(.unknownInterface(request.interface, at: path))
        }
    }

    private func badgeMethod(_ request: DBusRequest, buttons: [ToolbarButton]) -> Reply {
        guard let method = Self.methods.first(where: { $0.name == request.member }) else { return .failure(.unknownMethod(request)) }
        guard request.signature == method.signature else { return .failure(.wrongSignature(request, expected: method.signature)) }
        let id = request.string(0)
        let ids = buttons.map(\.id)
        let targets: [String]
        if method.name == "Clear", id.isEmpty {
            targets = ids
        } else if ids.contains(id) {
            targets = [id]
        } else {
            let known = ids.isEmpty ? "the toolbar has no buttons" : "buttons are \(ids.joined(separator: ", "))"
            return .failure(DBusFailure(DBUS_ERROR_INVALID_ARGS, "unknown button \(InputEcho.quoted(id)); \(known)"))
        }
        let change: Change
        let button = buttons.first { $0.id == id }
        switch method.name {
        case "Set", "Increment", "Decrement":
            let number = request.arguments[1].integerValue ?? -1
            guard number >= 0, let amount = Int(exactly: number) else {
                let what = method.name == "Set" ? "count" : "step"
                return .failure(DBusFailure(DBUS_ERROR_INVALID_ARGS, "\(method.name): the \(what) must be 0 or more, not \(number)"))
            }
            change = method.name == "Set" ? .set(amount) : method.name == "Increment" ? .increment(amount) : .decrement(amount)
        case "Clear": change = .clear
        case "SetText": change = .text(request.string(1))
        case "AddItem":
            guard !request.string(1).isEmpty, !request.string(2).isEmpty else {
                return .failure(DBusFailure(DBUS_ERROR_INVALID_ARGS, "AddItem: the key and the title must not be empty"))
            }
            change = .addItem(BadgeItem(key: request.string(1), title: request.string(2), detail: request.string(3),
                                        time: SystemTime.realtime, action: .producer, isDismissable: true))
        case "RemoveItem":
            change = .removeItem(request.string(1))
        case "Items":
            return .values([Self.items(of: button?.badge.items ?? BadgeItemList())])
        case "MarkRead":
            guard case .array(_, let values) = request.arguments[1] else { return .failure(.wrongSignature(request, expected: method.signature)) }
            let keys = values.compactMap { if case .string(let key) = $0 { key } else { nil } }
            guard !keys.isEmpty, keys.count <= BadgeItemList.maximumCount else {
                return .failure(DBusFailure(DBUS_ERROR_INVALID_ARGS, "MarkRead: give 1 to \(BadgeItemList.maximumCount) keys (MarkAllRead marks every item)"))
            }
            return .markRead(id, keys: keys)
        case "MarkAllRead":
            return .markRead(id, keys: nil)
        default:
            guard case .bool(let blink) = request.arguments[1] else { return .failure(.wrongSignature(request, expected: method.signature)) }
            change = .dot(blink: blink)
        }
        // The rules every front end shares (items own the count; an item removed must be there).
        if let button, let refusal = change.refusal(on: button.badge, buttonID: id, verb: method.name) {
            return .failure(DBusFailure(DBUS_ERROR_INVALID_ARGS, refusal))
        }
        return .change(targets, change)
    }

    private func property(_ request: DBusRequest, buttons: [ToolbarButton]) -> Reply {
        let standard = [DBusFailure.propertiesInterface, DBusFailure.introspectableInterface, DBusFailure.peerInterface]
        let ours = { (interface: String) in interface == Self.name || interface.isEmpty }
        switch request.propertyAccess {
        case .success(.get(let interface, let name)) where ours(interface):
            guard let value = Self.propertyValues(buttons).first(where: { $0.0 == name })?.1 else {
                return .failure(.unknownProperty(name, of: Self.name))
            }
            return .values([.variant(value)])
        case .success(.getAll(let interface)) where ours(interface):
            return .values([DBusValue.dictionary(Self.propertyValues(buttons))])
        case .success(.getAll(let interface)) where standard.contains(interface):
            return .values([DBusValue.dictionary([])])
        case .success(.set(let interface, let name, _)) where ours(interface):
            guard Self.properties.contains(where: { $0.name == name }) else { return .failure(.unknownProperty(name, of: Self.name)) }
            return .failure(.readOnly(name, of: Self.name))
        case .success(.get(let interface, let name)) where standard.contains(interface),
             .success(.set(let interface, let name, _)) where standard.contains(interface):
            return .failure(.unknownProperty(name, of: interface))
        case .success(.get(let interface, _)), .success(.getAll(let interface)), .success(.set(let interface, _, _)):
            return .failure(.unknownInterface(interface, at: path))
        case .failure(let failure):
            return .failure(failure)
        case nil:
            return .failure(.unknownMethod(request))
        }
    }

    private static func reply(_ result: Result<[DBusValue], DBusFailure>) -> Reply {
        switch result {
        case .success(let values): return .values(values)
        case .failure(let failure): return .failure(failure)
        }
    }

    // MARK: Values

    /// A badge's content as `a{sv}`: "kind" (count, text, dot or none), "text" (the label shown,
    /// "" for none), "count" (x) for a count, "blink" (b) for a dot.
    package static func content(of button: ToolbarButton) -> DBusValue {
        let badge = button.badge
        var entries: [(String, DBusValue)]
        switch badge.value {
        case .none: entries = [("kind", .string("none"))]
        case .count(let count): entries = [("kind", .string("count")), ("count", .int64(Int64(count)))]
        case .text: entries = [("kind", .string("text"))]
        case .dot: entries = [("kind", .string("dot")), ("blink", .bool(badge.isBlinking))]
        }
        entries.append(("text", .string(badge.label.text ?? "")))
        return DBusValue.dictionary(entries)
    }

    /// A badge's items as `aa{sv}`, newest first: "key", "title" (s), "detail", "origin", "icon",
    /// "description" (s, where given), "time" (d, seconds since 1970, where known), "dismissable" (b).
    package static func items(of list: BadgeItemList) -> DBusValue {
        .array(element: "a{sv}", list.items.map { item in
            var entries: [(String, DBusValue)] = [("key", .string(item.key)), ("title", .string(item.title))]
            if let detail = item.detail { entries.append(("detail", .string(detail))) }
            if let origin = item.origin { entries.append(("origin", .string(origin))) }
            if let icon = item.iconName { entries.append(("icon", .string(icon))) }
            if let words = item.accessibleDescription { entries.append(("description", .string(words))) }
            if let time = item.time { entries.append(("time", .double(time))) }
            entries.append(("dismissable", .bool(item.isDismissable)))
            return DBusValue.dictionary(entries)
        })
    }

    /// `ItemActivated(s id, s key)`: a person activated a producer's item in the peek.
    package func itemActivated(buttonID: String, key: String) -> DBusMessage {
        .signal(path: path, interface: Self.name, member: "ItemActivated", arguments: [.string(buttonID), .string(key)])
    }

    /// The `Badges` property: every button's id and content (`a{sa{sv}}`), in order.
    package static func badges(_ buttons: [ToolbarButton]) -> DBusValue {
        .array(element: "{sa{sv}}", buttons.map { .dictEntry(.string($0.id), content(of: $0)) })
    }

    /// Every property's value, in the order of ``properties``.
    package static func propertyValues(_ buttons: [ToolbarButton]) -> [(String, DBusValue)] {
        [("Buttons", .array(element: "s", buttons.map { .string($0.id) })), ("Badges", badges(buttons)),
         ("Version", .uint32(version))]
    }

    // MARK: Signals

    /// `BadgeChanged(s id, a{sv} content)` for `button`.
    package func badgeChanged(_ button: ToolbarButton) -> DBusMessage {
        .signal(path: path, interface: Self.name, member: "BadgeChanged", arguments: [.string(button.id), Self.content(of: button)])
    }

    /// `org.freedesktop.DBus.Properties.PropertiesChanged` with the properties `names` (their new values).
    package func propertiesChanged(_ names: [String], buttons: [ToolbarButton]) -> DBusMessage {
        let changed = Self.propertyValues(buttons).filter { names.contains($0.0) }
        return .signal(path: path, interface: DBusFailure.propertiesInterface, member: "PropertiesChanged",
                       arguments: [.string(Self.name), DBusValue.dictionary(changed), .array(element: "s", [])])
    }

    // MARK: Introspection

    /// The object's introspection XML: this interface with argument names, its read-only
    /// properties and its signal, then the standard interfaces.
    package static let introspection: String = {
        var xml = "  <interface name=\"\(name)\">\n"
        for method in methods {
            xml += "    <method name=\"\(method.name)\">"
            for argument in method.arguments { xml += "<arg name=\"\(argument.name)\" type=\"\(argument.type)\" direction=\"in\"/>" }
            for result in method.results { xml += "<arg name=\"\(result.name)\" type=\"\(result.type)\" direction=\"out\"/>" }
            xml += "</method>\n"
        }
        for property in properties {
            xml += "    <property name=\"\(property.name)\" type=\"\(property.type)\" access=\"read\">"
                + "<annotation name=\"org.freedesktop.DBus.Property.EmitsChangedSignal\" value=\"\(property.emitsChange)\"/></property>\n"
        }
        xml += "    <signal name=\"BadgeChanged\"><arg name=\"id\" type=\"s\"/><arg name=\"content\" type=\"a{sv}\"/></signal>\n"
        xml += "    <signal name=\"ItemActivated\"><arg name=\"id\" type=\"s\"/><arg name=\"key\" type=\"s\"/></signal>\n"
        xml += "  </interface>\n"
        return DBusIntrospection.document(interfaces: [xml] + DBusIntrospection.standardInterfaces)
    }()
}
