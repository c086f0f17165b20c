import BadgeCore
import Glibc
import Testing
import XvfbHarness
import BadgeControl

/// The real `busctl`, `gdbus` and `dbus-send` against badge-demo on a session bus of the test's own.
struct BusClients {
    /// What a client printed and how it ended.
    struct Result {
        let succeeded: Bool
        let output: String
        let errors: String
    }

    static let name = "io.github.badgekit.BadgeDemo"
    static let path = "/io/github/badgekit/BadgeDemo"
    static let interface = "io.github.badgekit.Badges1"
    static var available: Bool { ["busctl", "gdbus", "dbus-send", "dbus-daemon"].allSatisfy { findOnPath($0) != nil } }

    let address: String

    /// Starts `tool` with `arguments` (the bus address first), without waiting for it.
    func start(_ tool: String, _ arguments: [String], as user: UInt32? = nil) throws -> ChildProcess {
        let addressed: [String]
        switch tool {
        case "busctl": addressed = ["--address=\(address)", "--timeout=10"] + arguments
        case "gdbus": addressed = [arguments[0], "--address", address] + arguments.dropFirst()
        default: addressed = ["--bus=\(address)"] + arguments
        }
        // Line-buffered: `gdbus monitor` prints as signals come.
        guard let user else { return try ChildProcess(executable: "stdbuf", arguments: ["-oL", tool] + addressed, stdin: .null) }
        return try ChildProcess(executable: "setpriv", arguments: ["--reuid=\(user)", "--regid=\(user)", "--clear-groups", tool] + addressed,
                                environment: .inherited(adding: ["HOME": "/"]), stdin: .null)
    }

    /// The output and exit of a started client (15 s at most).
    static func finish(_ child: ChildProcess) throws -> Result {
        var lines: [String] = []
        while let line = try child.readLine(timeout: 15) { lines.append(line) }
        let status = child.waitForExit(timeout: 15)
        return Result(succeeded: status == .exited(0), output: lines.joined(separator: "\n"), errors: child.stderrText)
    }

    func run(_ tool: String, _ arguments: [String], as user: UInt32? = nil) throws -> Result {
        try Self.finish(start(tool, arguments, as: user))
    }

    /// `busctl call` on the demo's object.
    func call(_ member: String, _ signature: String = "", _ arguments: String...) throws -> Result {
        try run("busctl", ["--", "call", Self.name, Self.path, Self.interface, member] + (signature.isEmpty ? [] : [signature] + arguments))
    }

    /// `gdbus call` of `method` (interface.member) at `path`.
    func gdbusCall(_ method: String, _ arguments: [String] = [], path: String = path, as user: UInt32? = nil) throws -> Result {
        try run("gdbus", ["call", "--dest", Self.name, "--object-path", path, "--method", method] + arguments, as: user)
    }

    /// A property's value, read with `busctl --json=short get-property`.
    func property(_ name: String) throws -> JSONValue {
        let result = try run("busctl", ["--json=short", "get-property", Self.name, Self.path, Self.interface, name])
        guard result.succeeded, let value = try? JSONValue(parsing: result.output), let data = value["data"] else {
            throw HarnessError("get-property \(name): \(result.output) \(result.errors)")
        }
        return data
    }
}

/// The session-bus interface (issue 20): a well-known name, methods that change badges, read-only
/// properties, signals on every change, introspection, the standard errors, fuzzing that changes
/// nothing it should not, a second instance, and an idle app that stays asleep.
@Suite("E2E: the D-Bus interface", .endToEnd(minutes: 1),
       .enabled(if: BusClients.available, "needs busctl (systemd), gdbus (libglib2.0-bin), dbus-send and dbus-daemon"))
struct DBusInterfaceTests {
    /// The demo on `bus`, once it owns its name and knows it (the bus's answer may come after input
    /// on the control channel: changes from then on are signalled).
    static func start(_ name: String, bus: SessionBus, arguments: [String] = ["--no-state"],
                      environment: [String: String] = [:]) throws -> DemoSession {
        let s = try DemoSession(name, arguments: arguments,
                                environment: environment.merging(["DBUS_SESSION_BUS_ADDRESS": bus.address]) { $1 })
        try bus.waitForOwner(of: BusClients.name)
        let dbus = try dbusState(s) { $0["status"]?.string == "owned" }
        guard dbus["status"]?.string == "owned" else { throw HarnessError("the app does not own its name: \(dbus)") }
        return s
    }

    /// `state`'s dbus field, asked until `condition` holds or 10 s pass.
    static func dbusState(_ s: DemoSession, until condition: (JSONValue) -> Bool = { _ in true }) throws -> JSONValue {
        let deadline = Deadline(seconds: 10)
        while true {
            try s.command("state")
            let field = try #require(try s.app.readEvent(named: "state")["dbus"])
            if condition(field) || deadline.hasPassed { return field }
            try s.sync()
        }
    }

    /// The count of `id`'s badge in `state` (nil when it is not a count).
    static func count(_ s: DemoSession, _ id: String) throws -> Int? {
        try s.state().button(id).count
    }

    @Test("Set, Increment, Decrement, Clear, SetText and ShowDot change the badge on screen; state says the name is owned")
    func methodsChangeBadges() throws {
        let bus = try SessionBus()
        let s = try Self.start("dbus-methods", bus: bus)
        let clients = BusClients(address: bus.address)
        let dbus = try Self.dbusState(s)
        #expect(dbus["status"]?.string == "owned" && dbus["name"]?.string == BusClients.name && dbus["path"]?.string == BusClients.path,
                "\(dbus)")

        func expectChange(_ id: String, _ check: (JSONValue) -> Bool, sourceLocation: SourceLocation = #_sourceLocation) throws {
            let change = try s.nextChange()
            #expect(change["id"]?.string == id && change["cause"]?.string == "control" && check(change), "\(change)",
                    sourceLocation: sourceLocation)
        }
        var result = try clients.call("Set", "sx", "mail", "5")
        #expect(result.succeeded && result.output.isEmpty, "\(result)")
        try expectChange("mail") { $0["content"]?["count"]?.int == 5 }
        _ = try clients.call("Increment", "sx", "mail", "3")
        try expectChange("mail") { $0["content"]?["count"]?.int == 8 }
        _ = try clients.call("Decrement", "sx", "mail", "10")
        try expectChange("mail") { $0["content"]?["count"]?.int == 0 }
        result = try clients.gdbusCall("\(BusClients.interface).SetText", ["chat", "Hi"])
        #expect(result.succeeded && result.output == "()", "\(result)")
        try expectChange("chat") { $0["content"]?["text"]?.string == "Hi" }
        _ = try clients.gdbusCall("\(BusClients.interface).ShowDot", ["updates", "true"])
        try expectChange("updates") { $0["content"]?["kind"]?.string == "dot" }
        _ = try clients.call("Clear", "s", "")
        let cleared = try (0..<4).map { _ in try s.nextChange() }
        #expect(cleared.compactMap { $0["id"]?.string } == ["bell", "mail", "chat", "updates"])
        #expect(cleared.allSatisfy { $0["content"]?["count"]?.int == 0 }, "\(cleared)")

        // A text longer than any badge shows is capped as a control command's is.
        _ = try clients.call("SetText", "ss", "chat", String(repeating: "long text ", count: 1000))
        try expectChange("chat") { ($0["content"]?["text"]?.string?.utf8.count ?? .max) <= TextBounds.maximumBadgeTextBytes }

        // On screen: no badge on bell after Clear, a red one after Set.
        try s.sync()
        #expect(try s.state().button("bell").badge == nil)
        _ = try gdbusSet(clients, "bell", 7)
        try expectChange("bell") { $0["text"]?.string == "7" }
        try s.sync()
        let badge = try #require(try s.state().button("bell").badge, "no badge rectangle for bell")
        let image = try s.capture()
        let interior = badgeInterior(badge)
        let red = image.count(in: interior, where: isBadgeRed)
        expectPixels(red * 2 > interior.width * interior.height, "the badge set over D-Bus is not drawn (\(red) red pixels)",
                     images: ["window": image], test: "dbus-methods")
    }

    func gdbusSet(_ clients: BusClients, _ id: String, _ count: Int) throws -> BusClients.Result {
        let result = try clients.gdbusCall("\(BusClients.interface).Set", [id, String(count)])
        #expect(result.succeeded, "\(result)")
        return result
    }

    @Test("MarkRead and MarkAllRead with busctl: a Maildir message renamed to :2,S, the count down at once; a button without such a source is InvalidArgs")
    func markRead() throws {
        let bus = try SessionBus()
        let f = try SourceBindingTests.Folder("dbus-mark")
        try f.mailbox("Mail", "for i in range(3): m.add('From: s%d@example.org\\nSubject: %d\\n\\nbody' % (i, i))")
        f.write("config.json", #"{"buttons": [{"id": "mail", "icon": "mail", "label": "Mail", "source": {"maildir": "\#(f.path)/Mail"}}, {"id": "bell", "icon": "bell"}]}"#)
        let s = try Self.start("dbus-mark", bus: bus, arguments: ["--config", f.path + "/config.json", "--no-state"])
        let clients = BusClients(address: bus.address)
        _ = try SourceBindingTests.waitFor(s, "three") { try $0.button("mail").count == 3 }
        try s.command("items mail")
        let keys = (try s.app.readEvent(named: "items", timeout: 10)["items"]?.array ?? []).compactMap { $0["key"]?.string }
        let key = try #require(keys.first)
        var result = try clients.call("MarkRead", "sas", "mail", "1", key)
        #expect(result.succeeded, "\(result)")
        #expect(try s.app.readEvent(named: "read", timeout: 10) { $0["state"]?.string == "marked" }["keys"]?.array?.first?.string == key)
        _ = try SourceBindingTests.waitFor(s, "two") { try $0.button("mail").count == 2 }
        let seen = try ChildProcess(executable: "/bin/sh", arguments: ["-c", "ls \"$0\"/Mail/cur", f.path], stdin: .null)
        #expect(try seen.readLine(timeout: 10) == key + ":2,S")
        result = try clients.call("MarkAllRead", "s", "mail")
        #expect(result.succeeded, "\(result)")
        _ = try SourceBindingTests.waitFor(s, "none") { try $0.button("mail").contentKind == "none" }
        result = try clients.call("MarkAllRead", "s", "bell")
        #expect(!result.succeeded && result.errors.contains("bell has no source to mark anything read"), "\(result)")
        result = try clients.call("MarkRead", "sas", "mail", "1", "no-such-key")
        #expect(!result.succeeded && result.errors.contains("mail has no item"), "\(result)")
    }

    @Test("Properties: Buttons, Badges and Version, read with busctl and gdbus; Set is refused")
    func properties() throws {
        let bus = try SessionBus()
        let s = try Self.start("dbus-properties", bus: bus, arguments: ["--no-state", "--count", "mail=42"])
        let clients = BusClients(address: bus.address)
        #expect(try clients.property("Buttons").array?.compactMap(\.string) == ["bell", "mail", "chat", "updates"])
        #expect(try clients.property("Version").int == 1)
        let badges = try clients.property("Badges")
        #expect(badges["mail"]?["kind"]?["data"]?.string == "count" && badges["mail"]?["count"]?["data"]?.int == 42, "\(badges)")
        #expect(badges["mail"]?["text"]?["data"]?.string == "42")
        #expect(badges["chat"]?["kind"]?["data"]?.string == "text" && badges["chat"]?["text"]?["data"]?.string == "New", "\(badges)")
        #expect(badges["updates"]?["kind"]?["data"]?.string == "dot" && badges["updates"]?["blink"]?["data"]?.bool == false, "\(badges)")

        // A change made elsewhere (the control channel, a click) shows in the property.
        try s.command("set bell 9")
        _ = try s.nextChange()
        try s.click(MouseButton.left, on: "mail")
        _ = try s.nextChange()
        let after = try clients.property("Badges")
        #expect(after["bell"]?["count"]?["data"]?.int == 9 && after["mail"]?["count"]?["data"]?.int == 43, "\(after)")

        let all = try clients.gdbusCall("org.freedesktop.DBus.Properties.GetAll", [BusClients.interface])
        #expect(all.succeeded && all.output.contains("'Buttons': <['bell', 'mail', 'chat', 'updates']>")
                && all.output.contains("'Version': <uint32 1>"), "\(all)")
        let set = try clients.gdbusCall("org.freedesktop.DBus.Properties.Set", [BusClients.interface, "Version", "<uint32 2>"])
        #expect(!set.succeeded && set.errors.contains("org.freedesktop.DBus.Error.PropertyReadOnly"), "\(set)")
        #expect(try clients.property("Version").int == 1)
    }

    @Test("Introspection: busctl and gdbus list every method with its arguments, the properties and the signal; busctl tree finds the object")
    func introspection() throws {
        let bus = try SessionBus()
        let s = try Self.start("dbus-introspect", bus: bus)
        let clients = BusClients(address: bus.address)
        let table = try clients.run("busctl", ["introspect", BusClients.name, BusClients.path])
        #expect(table.succeeded, "\(table)")
        let rows = table.output.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true).map(String.init) }
        func row(_ name: String) -> [String]? { rows.first { $0.first == name } }
        for (member, signature) in [(".Set", "sx"), (".Increment", "sx"), (".Decrement", "sx"), (".Clear", "s"), (".SetText", "ss"), (".ShowDot", "sb")] {
            #expect(row(member)?.dropFirst().prefix(2) == ["method", signature], "\(member): \(row(member) ?? [])")
        }
        #expect(row(".Buttons")?.prefix(3) == [".Buttons", "property", "as"] && row(".Buttons")?.last == "emits-change")
        #expect(row(".Badges")?.prefix(3) == [".Badges", "property", "a{sa{sv}}"])
        #expect(row(".Version")?.prefix(4) == [".Version", "property", "u", "1"] && row(".Version")?.last == "const")
        #expect(row(".BadgeChanged")?.prefix(3) == [".BadgeChanged", "signal", "sa{sv}"])
        for interface in ["org.freedesktop.DBus.Properties", "org.freedesktop.DBus.Introspectable", "org.freedesktop.DBus.Peer"] {
            #expect(row(interface)?.dropFirst().first == "interface", "\(interface)")
        }

        let xml = try clients.run("gdbus", ["introspect", "--dest", BusClients.name, "--object-path", BusClients.path])
        #expect(xml.succeeded, "\(xml)")
        for line in ["Set(in  s id,", "in  x count);", "Increment(in  s id,", "in  x step);", "ShowDot(in  s id,", "in  b blink);",
                     "Clear(in  s id);", "SetText(in  s id,", "in  s text);", "readonly as Buttons", "readonly a{sa{sv}} Badges",
                     "readonly u Version", "BadgeChanged(s id,", "a{sv} content);"] {
            #expect(xml.output.contains(line), "gdbus introspect lacks \(line)")
        }
        let tree = try clients.run("busctl", ["tree", BusClients.name])
        #expect(tree.succeeded && tree.output.contains(BusClients.path), "\(tree)")
        let ping = try clients.gdbusCall("org.freedesktop.DBus.Peer.Ping", path: "/")
        #expect(ping.succeeded && ping.output == "()", "\(ping)")
        _ = s
    }

    @Test("BadgeChanged and PropertiesChanged for every change, whatever its cause, seen by gdbus monitor")
    func signals() throws {
        let bus = try SessionBus()
        let s = try Self.start("dbus-signals", bus: bus)
        let clients = BusClients(address: bus.address)
        let monitor = try clients.start("gdbus", ["monitor", "--dest", BusClients.name])
        defer { monitor.kill(SIGTERM) }
        // gdbus learns who owns the name on its own, after it says so: until it hears a first signal,
        // it may drop them. Bell is set to what it shows until one is heard.
        let primed = Deadline(seconds: 10)
        var heard = false
        while !heard, !primed.hasPassed {
            try s.command("set bell 3")
            _ = try s.nextChange()
            while !heard, let line = try? monitor.readLine(timeout: 0.5) { heard = line.contains(".BadgeChanged ('bell'") }
        }
        try #require(heard, "gdbus monitor heard no BadgeChanged")
        let priming = "('bell', {'kind': <'count'>, 'count': <int64 3>"

        try s.command("inc bell")                              // the control channel
        try s.click(MouseButton.left, on: "mail")              // a click
        _ = try clients.call("SetText", "ss", "chat", "Yo")    // the bus
        try s.command("clear all")                             // four at once
        var seen: [String] = []
        let deadline = Deadline(seconds: 10)
        while seen.filter({ $0.contains(".BadgeChanged") }).count < 7, !deadline.hasPassed {
            guard let line = try? monitor.readLine(timeout: Double(deadline.remainingMilliseconds) / 1000) else { break }
            if line.contains("BadgeChanged") && !line.contains(priming) || line.contains("PropertiesChanged") { seen.append(line) }
        }
        let changes = seen.filter { $0.contains("\(BusClients.interface).BadgeChanged") }
        #expect(changes.count == 7, "\(seen)")
        #expect(changes.first?.contains("('bell', {'kind': <'count'>, 'count': <int64 4>, 'text': <'4'>})") == true, "\(changes)")
        #expect(changes.dropFirst().first?.contains("('mail', {'kind': <'count'>, 'count': <int64 13>") == true, "\(changes)")
        #expect(changes.dropFirst(2).first?.contains("('chat', {'kind': <'text'>, 'text': <'Yo'>})") == true, "\(changes)")
        let properties = seen.filter { $0.contains("org.freedesktop.DBus.Properties.PropertiesChanged") }
        #expect(properties.count >= 4 && properties.allSatisfy { $0.contains("'Badges': <{'bell'") }, "\(properties)")
        #expect(properties.last?.contains("'chat': {'kind': <'count'>, 'count': <int64 0>") == true, "\(properties)")
    }

    @Test("Bad calls get the standard errors, and change nothing")
    func standardErrors() throws {
        let bus = try SessionBus()
        let s = try Self.start("dbus-errors", bus: bus)
        let clients = BusClients(address: bus.address)
        let i = BusClients.interface
        let cases: [(String, [String], String, String, String)] = [
            ("\(i).Set", ["nope", "1"], BusClients.path, "InvalidArgs", "buttons are bell, mail, chat, updates"),
            ("\(i).Set", ["mail", "-- -4"], BusClients.path, "InvalidArgs", "0 or more"),
            ("\(i).Increment", ["mail", "-- -1"], BusClients.path, "InvalidArgs", "0 or more"),
            ("\(i).Explode", [], BusClients.path, "UnknownMethod", "no method Explode"),
            ("org.example.Nope.Set", ["mail", "1"], BusClients.path, "UnknownInterface", "no interface org.example.Nope"),
            ("\(i).Set", ["mail", "1"], "/io/github/badgekit/Elsewhere", "UnknownObject", "/io/github/badgekit/Elsewhere"),
            ("org.freedesktop.DBus.Properties.Get", [i, "Nope"], BusClients.path, "UnknownProperty", "Nope"),
            ("org.freedesktop.DBus.Properties.Set", [i, "Badges", "<'x'>"], BusClients.path, "PropertyReadOnly", "read-only"),
        ]
        for (method, rawArguments, path, error, says) in cases {
            let arguments = rawArguments.flatMap { $0.hasPrefix("-- ") ? ["--", String($0.dropFirst(3))] : [$0] }
            let result = try clients.gdbusCall(method, arguments, path: path)
            #expect(!result.succeeded && result.errors.contains("org.freedesktop.DBus.Error.\(error)") && result.errors.contains(says),
                    "\(method) at \(path): \(result)")
        }
        // Wrong signatures: busctl and dbus-send send what they are told.
        let wrong = try clients.call("Set", "ss", "mail", "5")
        #expect(!wrong.succeeded && wrong.errors.contains("Set takes (sx), not (ss)"), "\(wrong)")
        let sent = try clients.run("dbus-send", ["--print-reply", "--dest=\(BusClients.name)", BusClients.path, "\(i).Set", "string:mail", "int32:5"])
        #expect(!sent.succeeded && (sent.output + sent.errors).contains("org.freedesktop.DBus.Error.InvalidArgs"), "\(sent)")
        let none = try clients.call("ShowDot")
        #expect(!none.succeeded && none.errors.contains("ShowDot takes (sb), not ()"), "\(none)")
        // A caller's id echoed in the error is escaped: one line, whatever it held (issue 38).
        let forged = try clients.call("Increment", "sx", "m\nail", "1")
        #expect(!forged.succeeded && forged.errors.contains(#"unknown button "m\nail""#), "\(forged)")
        #expect(!forged.errors.contains("\nail"), "the id's newline reached the error: \(forged)")
        try s.sync()
        #expect(s.unconsumedChanges().isEmpty, "a bad call changed a badge")
        #expect(try Self.count(s, "mail") == 12)
    }

    @Test("Fuzz: wrong signatures, unknown members, interfaces and paths, random bodies: 0 crashes, the counts stay exact")
    func fuzz() throws {
        let bus = try SessionBus()
        let s = try Self.start("dbus-fuzz", bus: bus)
        let clients = BusClients(address: bus.address)
        var random = SystemRandomNumberGenerator()
        func word() -> String { String((0..<Int.random(in: 1...12, using: &random)).map { _ in "abcxyzQ_09-é!".randomElement(using: &random) ?? "a" }) }
        func body(depth: Int = 0) -> (signature: String, arguments: [String]) {
            switch Int.random(in: 0..<(depth > 1 ? 10 : 14), using: &random) {
            case 0: return ("y", [String(Int.random(in: 0...255, using: &random))])
            case 1: return ("b", [Bool.random(using: &random) ? "true" : "false"])
            case 2: return ("n", [String(Int16.random(in: .min ... .max, using: &random))])
            case 3: return ("q", [String(UInt16.random(in: .min ... .max, using: &random))])
            case 4: return ("i", [String(Int32.random(in: .min ... .max, using: &random))])
            case 5: return ("u", [String(UInt32.random(in: .min ... .max, using: &random))])
            case 6: return ("x", [String(Int64.random(in: .min ... .max, using: &random))])
            case 7: return ("t", [String(UInt64.random(in: .min ... .max, using: &random))])
            case 8: return ("d", ["2.5"])
            case 9: return ("s", [word()])
            case 10: return ("o", ["/a/b"])
            case 11:
                let items = (0..<Int.random(in: 0...3, using: &random)).map { _ in word() }
                return ("as", [String(items.count)] + items)
            case 12:
                let inner = body(depth: depth + 1)
                return ("v", [inner.signature] + inner.arguments)
            default:
                let key = word(), inner = body(depth: depth + 1)
                return ("a{sv}", ["1", key, inner.signature] + inner.arguments)
            }
        }
        let members = ["Set", "Increment", "Decrement", "Clear", "SetText", "ShowDot", "Explode", "set", "Get", "Watch"]
        let interfaces = [BusClients.interface, BusClients.interface, "io.github.badgekit.Badges2", "org.example.Nope",
                          "org.freedesktop.DBus.Properties"]
        let paths = [BusClients.path, BusClients.path, BusClients.path, "/", "/io/github/badgekit/BadgeDemo/x", "/io"]
        let expected = ["Set": "sx", "Increment": "sx", "Decrement": "sx", "Clear": "s", "SetText": "ss", "ShowDot": "sb"]
        // Each bad call: its arguments, never one that a method takes (a random id is no button).
        var calls: [(arguments: [String], good: Bool)] = []
        for _ in 0..<160 {
            let member = members.randomElement(using: &random) ?? "Explode"
            let interface = interfaces.randomElement(using: &random) ?? BusClients.interface
            let parts = (0..<Int.random(in: 0...3, using: &random)).map { _ in body() }
            var signature = parts.map(\.signature).joined()
            var arguments = parts.flatMap(\.arguments)
            if interface == BusClients.interface, let wanted = expected[member], signature == wanted {
                arguments[0] = "no-such-" + word()
            }
            if interface == "org.freedesktop.DBus.Properties", member == "Get", signature == "ss" { arguments[1] = "No" + word() }
            if signature.isEmpty, Bool.random(using: &random) { signature = "" }
            let path = paths.randomElement(using: &random) ?? "/"
            calls.append((["--", "call", BusClients.name, path, interface, member] + (signature.isEmpty ? [] : [signature] + arguments), false))
        }
        // Mixed in: 40 good increments of bell, one each.
        for _ in 0..<40 { calls.append((["--", "call", BusClients.name, BusClients.path, BusClients.interface, "Increment", "sx", "bell", "1"], true)) }
        calls.shuffle(using: &random)

        // Eight clients at a time.
        var failures: [String] = []
        for batch in stride(from: 0, to: calls.count, by: 8) {
            let running = try calls[batch..<min(batch + 8, calls.count)].map { call in (call, try clients.start("busctl", call.arguments)) }
            for (call, child) in running {
                let result = try BusClients.finish(child)
                if result.succeeded != call.good { failures.append("\(call.arguments.dropFirst(3).joined(separator: " ")): \(result)") }
                if !call.good, !result.errors.contains("Call failed") { failures.append("no error reply: \(call.arguments) \(result)") }
            }
        }
        #expect(failures.isEmpty, "\(failures.prefix(5))")
        try s.sync()
        #expect(s.app.waitForExit(timeout: 0) == nil, "the app died: \(s.app.stderrText)")
        let state = try s.state()
        let bell = try state.button("bell"), mail = try state.button("mail"), chat = try state.button("chat")
        #expect(bell.count == 3 + 40, "bell: \(bell.json)")
        #expect(try mail.count == 12 && chat.text == "New" && state.button("updates").contentKind == "dot")
        // Still answering, with the name.
        #expect(try clients.property("Version").int == 1)
        #expect(try Self.dbusState(s)["status"]?.string == "owned")
    }

    @Test("A second instance finds the name taken, says so and works on; it takes the name over when the first quits")
    func secondInstance() throws {
        let bus = try SessionBus()
        let first = try Self.start("dbus-first", bus: bus)
        let clients = BusClients(address: bus.address)
        let second = try DemoSession("dbus-second", arguments: ["--no-state"], environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        let taken = try Self.dbusState(second) { $0["status"]?.string != "waiting" }
        #expect(taken["status"]?.string == "taken", "\(taken)")
        #expect(second.app.stderrText.contains("another program owns \(BusClients.name)"), "stderr: \(second.app.stderrText)")
        // It works on: its own input, and calls to its unique name are not the first's business.
        try second.command("inc bell")
        #expect(try second.nextChange()["text"]?.string == "4")
        // Calls to the name reach the first only.
        _ = try clients.call("Set", "sx", "mail", "30")
        #expect(try first.nextChange()["text"]?.string == "30")
        try second.sync()
        #expect(second.unconsumedChanges().isEmpty)
        #expect(try Self.count(second, "mail") == 12)

        try first.command("quit")
        #expect(first.app.waitForExit(timeout: 10) == .exited(0))
        let owned = try Self.dbusState(second) { $0["status"]?.string == "owned" }
        #expect(owned["status"]?.string == "owned", "the second did not take the name over: \(owned)")
        _ = try clients.call("Set", "sx", "mail", "31")
        #expect(try second.nextChange()["text"]?.string == "31")
    }

    @Test("Idle with the name owned: no CPU and no wakeups")
    func idle() throws {
        let bus = try SessionBus()
        // Without the screen-reader bridge, whose registry (activated on this bus) starts at its own pace.
        let s = try Self.start("dbus-idle", bus: bus, environment: ["NO_AT_BRIDGE": "1"])
        let clients = BusClients(address: bus.address)
        _ = try clients.call("Increment", "sx", "bell", "1")
        _ = try s.nextChange()
        #expect(try clients.property("Version").int == 1)
        try s.sync()
        #expect(try s.app.waitUntilIdle(timeout: 10, quiet: 60), "the loop keeps a deadline within a minute")
        let ticks = try s.app.cpuTicks(), switches = try s.app.contextSwitches()
        measureInterval(seconds: 1)
        #expect(try s.app.cpuTicks() - ticks == 0, "the idle app used CPU")
        #expect(try s.app.contextSwitches() - switches == 0, "the idle app woke up")
    }

    @Test("Without a session bus, state says off")
    func noBus() throws {
        let s = try DemoSession("dbus-none", arguments: ["--no-state"], environment: ["DBUS_SESSION_BUS_ADDRESS": ""])
        let dbus = try Self.dbusState(s) { $0["status"]?.string != "waiting" }
        #expect(dbus["status"]?.string == "off" && dbus["reason"]?.string?.contains("no session bus") == true, "\(dbus)")
        try s.command("inc bell")
        #expect(try s.nextChange()["text"]?.string == "4")
    }

    @Test("Other users' calls are refused with AccessDenied (a bus that lets every user in)",
          .enabled(if: getuid() == 0 && findOnPath("setpriv") != nil, "needs root and setpriv to call as another user"))
    func otherUsersRefused() throws {
        let bus = try RestrictedBus("every-user")
        let s = try DemoSession("dbus-users", arguments: ["--no-state"], environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        let clients = BusClients(address: bus.address)
        _ = try Self.dbusState(s) { $0["status"]?.string == "owned" }
        let nobody = try clients.gdbusCall("\(BusClients.interface).Set", ["mail", "1"], as: 65534)
        #expect(!nobody.succeeded && nobody.errors.contains("org.freedesktop.DBus.Error.AccessDenied")
                && nobody.errors.contains("user 65534 may not call"), "\(nobody)")
        let ping = try clients.gdbusCall("org.freedesktop.DBus.Peer.Ping", as: 65534)
        #expect(!ping.succeeded && ping.errors.contains("AccessDenied"), "\(ping)")
        // The user's own calls go through.
        let own = try clients.gdbusCall("\(BusClients.interface).Set", ["mail", "2"])
        #expect(own.succeeded, "\(own)")
        #expect(try s.nextChange()["text"]?.string == "2")
        try s.sync()
        #expect(s.unconsumedChanges().isEmpty)
        #expect(try Self.count(s, "mail") == 2)
    }
}
