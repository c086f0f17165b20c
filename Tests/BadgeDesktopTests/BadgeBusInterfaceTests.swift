import BadgeCore
import CDBusProtocol
import Testing
import BadgeIO
@testable import BadgeDesktop

/// The badge interface on D-Bus, without a bus: each method's change, the properties' values,
/// introspection, the standard error for every bad call, and random calls that never change a badge
/// wrongly.
@Suite struct BadgeBusInterfaceTests {
    final class FixedWidth: TextMeasuring {
        func size(of text: String, font: BadgeFont) -> Size { Size(width: Double(text.count) * 7, height: 12) }
    }

    static let path = "/io/github/badgekit/Test"

    static func toolbar() -> Toolbar {
        let clock = ManualClock()
        let contents: [(String, BadgeContent)] = [("bell", .count(3)), ("mail", .count(12)), ("chat", .text("New")), ("updates", .dot)]
        return Toolbar(buttons: contents.map { id, content in
            ToolbarButton(id: id, iconName: id, badge: BadgeController(accessibilityLabel: id, content: content, clock: clock, measurer: FixedWidth()))
        })
    }

    func call(_ interface: String, _ member: String, _ arguments: [DBusValue] = [], path: String = path,
              signature: String? = nil, toolbar: Toolbar = toolbar()) -> BadgeBusInterface.Reply {
        BadgeBusInterface(path: Self.path).answer(.init(path: path, interface: interface, member: member, signature: signature,
                                                        arguments: arguments), buttons: toolbar.buttons)
    }

    static let badges = BadgeBusInterface.name

    @Test("Each method asks for its change; Clear with no id clears every button")
    func methods() {
        #expect(call(Self.badges, "Set", [.string("mail"), .int64(5)]) == .change(["mail"], .set(5)))
        #expect(call(Self.badges, "Increment", [.string("bell"), .int64(2)]) == .change(["bell"], .increment(2)))
        #expect(call(Self.badges, "Decrement", [.string("bell"), .int64(0)]) == .change(["bell"], .decrement(0)))
        #expect(call(Self.badges, "Clear", [.string("chat")]) == .change(["chat"], .clear))
        #expect(call(Self.badges, "Clear", [.string("")]) == .change(["bell", "mail", "chat", "updates"], .clear))
        #expect(call(Self.badges, "SetText", [.string("chat"), .string("Hi")]) == .change(["chat"], .text("Hi")))
        #expect(call(Self.badges, "ShowDot", [.string("updates"), .bool(true)]) == .change(["updates"], .dot(blink: true)))
        // No interface named: Set(sx) is the badge's, Set(ssv) the Properties'.
        #expect(call("", "Set", [.string("mail"), .int64(1)]) == .change(["mail"], .set(1)))
        #expect(call("", "Set", [.string(Self.badges), .string("Version"), .variant(.uint32(2))])
                == .failure(.readOnly("Version", of: Self.badges)))
        #expect(call("", "Ping") == .values([]))
        // Marking read is the application's (its sources): asked for, never a change of the model here.
        #expect(call(Self.badges, "MarkRead", [.string("mail"), .array(element: "s", [.string("7"), .string("9")])])
                == .markRead("mail", keys: ["7", "9"]))
        #expect(call(Self.badges, "MarkAllRead", [.string("mail")]) == .markRead("mail", keys: nil))
        guard case .failure(let empty) = call(Self.badges, "MarkRead", [.string("mail"), .array(element: "s", [])]) else {
            Issue.record("MarkRead without keys was taken")
            return
        }
        #expect(empty.message.contains("MarkAllRead marks every item"), "\(empty.message)")
        guard case .failure(let unknown) = call(Self.badges, "MarkAllRead", [.string("nope")]) else { Issue.record("an unknown button"); return }
        #expect(unknown.message.contains("unknown button"))
    }

    @Test("AddItem, RemoveItem and Items: an unknown key and a number set by hand over items are refused")
    func items() {
        let toolbar = Self.toolbar()
        let bell = toolbar.buttons[0]
        guard case .change(let ids, .addItem(let item)) = call(Self.badges, "AddItem", [.string("bell"), .string("k1"), .string("Alice"), .string("hi")],
                                                             toolbar: toolbar) else {
            Issue.record("AddItem asked for no change")
            return
        }
        #expect(ids == ["bell"] && item.title == "Alice" && item.detail == "hi" && item.action == .producer && item.time != nil)
        BadgeBusInterface.Change.addItem(item).apply(to: bell.badge)
        #expect(bell.badge.value == .count(1))
        guard case .values(let values) = call(Self.badges, "Items", [.string("bell")], toolbar: toolbar),
              case .array("a{sv}", let entries)? = values.first, entries.count == 1,
              entries.first?.stringKeyedEntries?["title"]?.stringValue == "Alice" else {
            Issue.record("Items did not list the item")
            return
        }
        guard case .failure(let refused) = call(Self.badges, "Set", [.string("bell"), .int64(5)], toolbar: toolbar) else {
            Issue.record("Set over items was taken")
            return
        }
        #expect(refused.message.contains("count is its 1 item;"))
        guard case .failure(let missing) = call(Self.badges, "RemoveItem", [.string("bell"), .string("nope")], toolbar: toolbar) else {
            Issue.record("RemoveItem of a missing key was taken")
            return
        }
        #expect(missing.message.contains("no item \"nope\""))
        #expect(call(Self.badges, "RemoveItem", [.string("bell"), .string("k1")], toolbar: toolbar) == .change(["bell"], .removeItem("k1")))
        #expect(call(Self.badges, "AddItem", [.string("bell"), .string(""), .string("t"), .string("")], toolbar: toolbar)
                != .change(["bell"], .addItem(item)))
    }

    @Test("Changes apply as control commands do: saturating, never below 0, text capped")
    func changesApply() {
        let toolbar = Self.toolbar()
        let mail = toolbar.buttons[1].badge
        BadgeBusInterface.Change.increment(Int.max).apply(to: mail)
        #expect(mail.value == .count(Int.max))
        BadgeBusInterface.Change.decrement(Int.max).apply(to: mail)
        BadgeBusInterface.Change.decrement(5).apply(to: mail)
        #expect(mail.value == .count(0))
        BadgeBusInterface.Change.text(String(repeating: "é", count: 1000)).apply(to: mail)
        guard case .text(let text) = mail.value else {
            Issue.record("no text: \(mail.value)")
            return
        }
        #expect(text.utf8.count <= TextBounds.maximumBadgeTextBytes)
        BadgeBusInterface.Change.dot(blink: true).apply(to: mail)
        #expect(mail.value == .dot && mail.isBlinking)
    }

    @Test("Properties: Buttons, Badges (kind, count, text, blink) and Version")
    func properties() {
        #expect(call(DBusFailure.propertiesInterface, "Get", [.string(Self.badges), .string("Buttons")])
                == .values([.variant(.array(element: "s", ["bell", "mail", "chat", "updates"].map { .string($0) }))]))
        #expect(call(DBusFailure.propertiesInterface, "Get", [.string(""), .string("Version")]) == .values([.variant(.uint32(1))]))
        let toolbar = Self.toolbar()
        let expected = DBusValue.array(element: "{sa{sv}}", [
            .dictEntry(.string("bell"), DBusValue.dictionary([("kind", .string("count")), ("count", .int64(3)), ("text", .string("3"))])),
            .dictEntry(.string("mail"), DBusValue.dictionary([("kind", .string("count")), ("count", .int64(12)), ("text", .string("12"))])),
            .dictEntry(.string("chat"), DBusValue.dictionary([("kind", .string("text")), ("text", .string("New"))])),
            .dictEntry(.string("updates"), DBusValue.dictionary([("kind", .string("dot")), ("blink", .bool(false)), ("text", .string(""))])),
        ])
        #expect(BadgeBusInterface.badges(toolbar.buttons) == expected)
        #expect(call(DBusFailure.propertiesInterface, "Get", [.string(Self.badges), .string("Badges")]) == .values([.variant(expected)]))
        guard case .values(let all) = call(DBusFailure.propertiesInterface, "GetAll", [.string(Self.badges)]),
              case .array("{sv}", let entries)? = all.first else {
            Issue.record("GetAll gave no a{sv}")
            return
        }
        #expect(entries.count == 3)
        #expect(call(DBusFailure.propertiesInterface, "GetAll", [.string(DBusFailure.peerInterface)]) == .values([DBusValue.dictionary([])]))
        toolbar.buttons[0].badge.value = .none
        #expect(BadgeBusInterface.content(of: toolbar.buttons[0]) == DBusValue.dictionary([("kind", .string("none")), ("text", .string(""))]))
    }

    @Test("Signals: BadgeChanged with the content, PropertiesChanged with the new values")
    func signals() throws {
        let toolbar = Self.toolbar()
        let interface = BadgeBusInterface(path: Self.path)
        let changed = interface.badgeChanged(toolbar.buttons[1])
        #expect(changed.kind == .signal && changed.path == Self.path && changed.interface == Self.badges && changed.member == "BadgeChanged")
        #expect(changed.signature == "sa{sv}" && changed.body.first == .string("mail"))
        let properties = interface.propertiesChanged(["Badges"], buttons: toolbar.buttons)
        #expect(properties.member == "PropertiesChanged" && properties.signature == "sa{sv}as")
        #expect(properties.body[1] == DBusValue.dictionary([("Badges", BadgeBusInterface.badges(toolbar.buttons))]))
        // They survive the wire.
        let decoded = try DBusMessage(decoding: properties.encoded(serial: 3))
        #expect(decoded.body == properties.body)
    }

    @Test("Introspection lists every method with named arguments, the read-only properties, the signal and the standard interfaces")
    func introspection() {
        guard case .values(let values) = call(DBusFailure.introspectableInterface, "Introspect"), let xml = values.first?.stringValue else {
            Issue.record("no XML")
            return
        }
        for method in BadgeBusInterface.methods {
            #expect(xml.contains("<method name=\"\(method.name)\">"), "\(method.name)")
            for argument in method.arguments {
                #expect(xml.contains("<arg name=\"\(argument.name)\" type=\"\(argument.type)\" direction=\"in\"/>"))
            }
        }
        for property in ["Buttons\" type=\"as\"", "Badges\" type=\"a{sa{sv}}\"", "Version\" type=\"u\""] {
            #expect(xml.contains("<property name=\"\(property) access=\"read\">"), "\(property)")
        }
        #expect(xml.contains("<signal name=\"BadgeChanged\"><arg name=\"id\" type=\"s\"/><arg name=\"content\" type=\"a{sv}\"/></signal>"))
        for interface in [DBusFailure.propertiesInterface, DBusFailure.introspectableInterface, DBusFailure.peerInterface] {
            #expect(xml.contains("<interface name=\"\(interface)\">"))
        }
        #expect(xml.hasPrefix("<!DOCTYPE node") && xml.hasSuffix("</node>\n"))
    }

    @Test("Bad calls: the standard error for each", arguments: [
        (Self.path, badges, "Set", [DBusValue.string("nope"), .int64(1)], DBUS_ERROR_INVALID_ARGS, "buttons are bell, mail, chat, updates"),
        (Self.path, badges, "Set", [.string("mail"), .int64(-1)], DBUS_ERROR_INVALID_ARGS, "0 or more"),
        (Self.path, badges, "Increment", [.string("mail"), .int64(Int64.min)], DBUS_ERROR_INVALID_ARGS, "0 or more"),
        (Self.path, badges, "Decrement", [.string("mail"), .int64(-2)], DBUS_ERROR_INVALID_ARGS, "0 or more"),
        (Self.path, badges, "Set", [.string("mail"), .int32(1)], DBUS_ERROR_INVALID_ARGS, "takes (sx), not (si)"),
        (Self.path, badges, "Set", [.string("mail")], DBUS_ERROR_INVALID_ARGS, "takes (sx), not (s)"),
        (Self.path, badges, "ShowDot", [.string("updates"), .string("yes")], DBUS_ERROR_INVALID_ARGS, "takes (sb)"),
        (Self.path, badges, "Clear", [], DBUS_ERROR_INVALID_ARGS, "takes (s)"),
        (Self.path, badges, "SetText", [.string(""), .string("x")], DBUS_ERROR_INVALID_ARGS, "unknown button"),
        (Self.path, badges, "Explode", [], DBUS_ERROR_UNKNOWN_METHOD, "no method Explode"),
        (Self.path, "", "Explode", [], DBUS_ERROR_UNKNOWN_METHOD, "no method Explode"),
        (Self.path, "org.example.Nope", "Set", [.string("mail"), .int64(1)], DBUS_ERROR_UNKNOWN_INTERFACE, "no interface org.example.Nope"),
        ("/elsewhere", badges, "Set", [.string("mail"), .int64(1)], DBUS_ERROR_UNKNOWN_OBJECT, "/elsewhere"),
        (Self.path, DBusFailure.propertiesInterface, "Set", [.string(badges), .string("Badges"), .variant(.string("x"))],
         DBUS_ERROR_PROPERTY_READ_ONLY, "read-only"),
        (Self.path, DBusFailure.propertiesInterface, "Set", [.string(badges), .string("Nope"), .variant(.string("x"))],
         DBUS_ERROR_UNKNOWN_PROPERTY, "no property Nope"),
        (Self.path, DBusFailure.propertiesInterface, "Get", [.string(badges), .string("Nope")], DBUS_ERROR_UNKNOWN_PROPERTY, "Nope"),
        (Self.path, DBusFailure.propertiesInterface, "Get", [.string("org.example.Nope"), .string("Badges")], DBUS_ERROR_UNKNOWN_INTERFACE, "Nope"),
        (Self.path, DBusFailure.propertiesInterface, "Get", [.string(badges)], DBUS_ERROR_INVALID_ARGS, "takes (ss)"),
        (Self.path, DBusFailure.propertiesInterface, "Watch", [], DBUS_ERROR_UNKNOWN_METHOD, "Watch"),
        (Self.path, DBusFailure.introspectableInterface, "Introspect", [.int32(1)], DBUS_ERROR_INVALID_ARGS, "takes ()"),
        (Self.path, DBusFailure.peerInterface, "GetMachineId", [], DBUS_ERROR_NOT_SUPPORTED, "machine"),
    ])
    func badCalls(path: String, interface: String, member: String, arguments: [DBusValue], expected: String, says: String) {
        guard case .failure(let failure) = call(interface, member, arguments, path: path) else {
            Issue.record("no error for \(interface).\(member)\(arguments)")
            return
        }
        #expect(failure.name == expected && failure.message.contains(says), "\(member): \(failure.name) \(failure.message)")
    }

    @Test("Random calls: an error or a well-formed change, never anything else")
    func randomCalls() {
        var random = SystemRandomNumberGenerator()
        let members = BadgeBusInterface.methods.map(\.name) + ["Get", "GetAll", "Set", "Introspect", "Ping", "Nope", ""]
        let interfaces = [Self.badges, "", DBusFailure.propertiesInterface, DBusFailure.introspectableInterface, DBusFailure.peerInterface, "x.y"]
        let values: [DBusValue] = [.string("mail"), .string(""), .string("nope"), .int64(3), .int64(-3), .int32(2), .bool(true),
                                   .uint32(7), .variant(.string("x")), .array(element: "s", [.string("mail")]), .double(1.5)]
        let toolbar = Self.toolbar()
        for _ in 0..<5_000 {
            let arguments = (0..<Int.random(in: 0...3, using: &random)).map { _ in values.randomElement(using: &random) ?? .bool(false) }
            let member = members.randomElement(using: &random) ?? ""
            let reply = call(interfaces.randomElement(using: &random) ?? "", member, arguments, toolbar: toolbar)
            if case .change(let ids, let change) = reply {
                #expect(!ids.isEmpty && ids.allSatisfy { toolbar.button(id: $0) != nil })
                switch change {
                case .set(let n), .increment(let n), .decrement(let n): #expect(n >= 0 && arguments.count == 2 && arguments[1] == .int64(Int64(n)))
                case .clear, .text, .dot, .addItem, .removeItem: break
                }
            }
        }
    }

    @Test("Names: valid bus names and paths, and the paths between objects")
    func names() throws {
        #expect(DBusIntrospection.isValidBusName("io.github.badgekit.BadgeDemo"))
        for bad in ["", "io", "io..x", "io.1x", "io.x.", ".io.x", "io.x y", ":1.5", String(repeating: "a.", count: 200) + "a"] {
            #expect(!DBusIntrospection.isValidBusName(bad), "\(bad)")
        }
        #expect(DBusIntrospection.isValidObjectPath("/") && DBusIntrospection.isValidObjectPath("/io/github/x_1"))
        for bad in ["", "io", "/io/", "//io", "/io-x", "/io/é"] { #expect(!DBusIntrospection.isValidObjectPath(bad), "\(bad)") }

        let objects = [Self.path]
        guard case .success(let root) = DBusIntrospection.answerBetween(objects: objects, .init(path: "/", interface: "", member: "Introspect")) else {
            Issue.record("no answer at /")
            return
        }
        #expect(root.first?.stringValue?.contains("<node name=\"io\"/>") == true)
        #expect(try DBusIntrospection.answerBetween(objects: objects, .init(path: "/io/github", interface: DBusFailure.peerInterface,
                                                                           member: "Ping")).get() == [])
        #expect(DBusIntrospection.answerBetween(objects: objects, .init(path: "/nope", interface: DBusFailure.introspectableInterface,
                                                                        member: "Introspect")) == .failure(.unknownObject("/nope")))
    }
}

/// A caller's id echoed in an error reply is one escaped line (issue 38).
@Suite struct BadgeBusEchoTests {
    @Test("Increment(\"m\\nail\", 1) answers InvalidArgs in one line")
    func idWithLineBreak() {
        let reply = BadgeBusInterface(path: BadgeBusInterfaceTests.path).answer(
            .init(path: BadgeBusInterfaceTests.path, interface: BadgeBusInterface.name, member: "Increment", signature: nil,
                  arguments: [.string("m\nail"), .int64(1)]), buttons: BadgeBusInterfaceTests.toolbar().buttons)
        guard case .failure(let failure) = reply else { Issue.record("not refused: \(reply)"); return }
        #expect(failure.name == DBUS_ERROR_INVALID_ARGS)
        #expect(failure.message.hasPrefix(#"unknown button "m\nail""#))
        #expect(!failure.message.contains("\n"))
    }

    @Test("Every error reply's text is made one line where it is encoded")
    func errorReplyText() throws {
        let call = DBusMessage.call("org.example", path: "/a", interface: "org.example.I", member: "M")
        let reply = DBusMessage.error(to: call, name: DBUS_ERROR_FAILED, text: "x\ny\u{1B}" + String(repeating: "z", count: 5000))
        guard case .string(let text)? = reply.body.first else { Issue.record("no text"); return }
        #expect(!text.unicodeScalars.contains(where: InputEcho.needsEscape))
        #expect(text.unicodeScalars.count <= 1001)
    }
}
