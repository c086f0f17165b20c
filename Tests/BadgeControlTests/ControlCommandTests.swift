import BadgeControl
import BadgeCore
import Testing

@Suite struct ControlCommandTests {
    @Test(arguments: [
        ("set bell 5", ControlCommand.set(id: "bell", count: 5)),
        ("  inc mail  ", .increment(id: "mail", by: 1)),
        ("inc mail 3", .increment(id: "mail", by: 3)),
        ("dec bell 2", .decrement(id: "bell", by: 2)),
        ("set bell +4", .set(id: "bell", count: 4)),
        ("set bell 0", .set(id: "bell", count: 0)),
        ("text mail 一个信息 and more", .text(id: "mail", text: "一个信息 and more")),
        ("text mail", .text(id: "mail", text: "")),
        ("dot bell", .dot(id: "bell", blink: false)),
        ("dot bell blink", .dot(id: "bell", blink: true)),
        ("clear all", .clear(id: nil)),
        ("clear bell", .clear(id: "bell")),
        ("state", .state),
        ("sync abc-1", .sync(token: "abc-1")),
        ("quit\r", .quit),
        ("click mail", .click(id: "mail", pointer: .primary)),
        ("click mail middle", .click(id: "mail", pointer: .middle)),
        ("click mail 3", .click(id: "mail", pointer: .secondary)),
        ("click mail up", .click(id: "mail", pointer: .wheelUp)),
        ("click mail 5", .click(id: "mail", pointer: .wheelDown)),
        ("peek mail", .peek(id: "mail", anchor: nil)),
        ("peek all", .peek(id: nil, anchor: nil)),
        ("peek mail --at 10,-20", .peek(id: "mail", anchor: PixelRect(x: 10, y: -20, width: 1, height: 1))),
        ("peek bell --at 100,580,80,20", .peek(id: "bell", anchor: PixelRect(x: 100, y: 580, width: 80, height: 20))),
        ("act mail 42 read", .act(id: "mail", key: "42", action: .read)),
        ("act mail all read", .act(id: "mail", key: nil, action: .read)),
    ])
    func parsesValidLines(line: String, expected: ControlCommand) throws {
        #expect(try ControlCommand.parse(line).get() == expected)
    }

    @Test(arguments: ["", "   ", "frobnicate", "set bell", "set bell x", "set bell 99999999999999999999999",
                      "inc", "inc a b c", "dot bell fast", "click", "click mail 6", "click mail sideways",
                      "click mail left extra", "peek", "peek mail --at", "peek mail --at 1", "peek mail --at 1,2,3",
                      "peek mail --at 1,x", "peek mail --at 1,2,-3,4", "act", "act mail 42", "act mail 42 archive", "act mail 42 read now", "peek mail --at 99999,1", "peek mail at 1,2", "clear", "state now", "sync", "sync a b", "quit 1", "text",
                      String(repeating: "x", count: 5000)])
    func rejectsBadLinesWithAReason(line: String) {
        switch ControlCommand.parse(line) {
        case .success(let command): Issue.record("\(line.prefix(30)) parsed as \(command)")
        case .failure(let error): #expect(!error.reason.isEmpty && error.reason.utf8.count < 200)
        }
    }

    @Test("`text` keeps at most TextBounds.maximumBadgeTextBytes bytes of a long line, whole clusters")
    func textIsCapped() throws {
        let marks = "a" + String(repeating: "\u{301}", count: 2_000)
        guard case .text(_, let capped) = try ControlCommand.parse("text mail " + marks).get() else {
            Issue.record("not a text command")
            return
        }
        #expect(capped == TextBounds.badgeText(marks) && capped.utf8.count <= TextBounds.maximumBadgeTextBytes)
        guard case .text(_, let plain) = try ControlCommand.parse("text mail " + String(repeating: "ab", count: 2_000)).get() else {
            Issue.record("not a text command")
            return
        }
        #expect(plain.utf8.count == TextBounds.maximumBadgeTextBytes)
    }

    @Test("Negative numbers are refused, as D-Bus refuses them: `dec mail -3` must not add 3", arguments: [
        ("dec mail -3", "dec: the step must be 0 or more, not -3"),
        ("inc mail -1", "inc: the step must be 0 or more, not -1"),
        ("set mail -1", "set: the count must be 0 or more, not -1"),
        ("set mail -0x", "\"-0x\" is not a whole number"),
    ])
    func negativeNumbersAreRefused(line: String, reason: String) {
        guard case .failure(let error) = ControlCommand.parse(line) else {
            Issue.record("\(line) accepted")
            return
        }
        #expect(error.reason == reason)
    }

    @Test func outOfRangeNumbersSaySo() {
        guard case .failure(let error) = ControlCommand.parse("set bell 99999999999999999999") else {
            Issue.record("accepted")
            return
        }
        #expect(error.reason.contains("out of range"))
    }
}

@Suite struct JSONValueTests {
    @Test func serializesCompactlyAndEscapes() {
        let value = JSONValue.object([("event", .string("change")), ("n", .int(-3)), ("ok", .bool(true)),
                                      ("x", .double(1.5)), ("whole", .double(2)), ("nan", .double(.nan)),
                                      ("list", .array([.null, .string("a\"b\\c\n\u{1}")]))])
        #expect(value.serialized == #"{"event":"change","n":-3,"ok":true,"x":1.5,"whole":2,"nan":null,"list":[null,"a\"b\\c\n\u0001"]}"#)
        #expect(JSONValue.string("一个信息 🇫🇷").serialized == "\"一个信息 🇫🇷\"")
    }
}

@Suite struct JSONKeySchemaTests {
    @Test("The nearest key: one edit, a swap, or two in a long key; nothing for a word far off", arguments: [
        ("sorce", "source"), ("lable", "label"), ("icn", "icon"), ("Theme", "theme"), ("thme", "theme"),
        ("backgorund", "background"), ("colour", nil), ("x", nil), ("banana", nil),
    ] as [(String, String?)])
    func nearest(typed: String, expected: String?) {
        #expect(JSONKeySchema.nearest(to: typed, among: ["source", "label", "icon", "theme", "background", "id"]) == expected)
    }

    @Test func arraysAndFreeFormValues() throws {
        let schema = JSONKeySchema.object(["list": .array(of: .object(["a": .anything])), "free": .anything])
        let value = try JSONValue.parse(Array(#"{"list": [{"a": 1}, {"b": 2}, 3], "free": {"any": {"thing": 1}}, "lst": []}"#.utf8))
        #expect(schema.unknownKeys(in: value).map(\.description) == [
            #"list[1].b: unknown key; did you mean "a"?"#, #"lst: unknown key; did you mean "list"?"#,
        ])
    }
}

/// The item commands: a title with spaces, a detail after a tab, the JSON form, and their errors.
@Suite struct ItemCommandTests {
    @Test func addWithTitleAndDetail() throws {
        guard case .addItem(let id, let item) = try ControlCommand.parse("add mail m1 Alice Smith\tLunch at noon?").get() else {
            Issue.record("not an add")
            return
        }
        #expect(id == "mail")
        #expect(item.key == "m1")
        #expect(item.title == "Alice Smith")
        #expect(item.detail == "Lunch at noon?")
        #expect(item.action == .producer)
        #expect(item.isDismissable)
    }

    @Test func addJSON() throws {
        let line = #"add ci {"key": "b12", "title": "Build 12 failed", "origin": "CI", "description": "Build 12 of main failed"}"#
        guard case .addItem(_, let item) = try ControlCommand.parse(line).get() else {
            Issue.record("not an add")
            return
        }
        #expect(item.origin == "CI")
        #expect(item.spokenDescription == "Build 12 of main failed")
    }

    @Test("Bad item commands say why", arguments: [
        ("add mail", "usage: add"), ("add mail k1", "usage: add"), ("add mail {\"key\": 1", "not valid JSON"),
        ("add mail {\"title\": \"x\"}", "needs a \"key\""), ("remove mail", "usage: remove"), ("items", "usage: items"),
    ])
    func errors(line: String, reason: String) {
        guard case .failure(let error) = ControlCommand.parse(line) else {
            Issue.record("\(line) was taken")
            return
        }
        #expect(error.reason.contains(reason), "\(error.reason)")
    }

    @Test func removeAndItems() throws {
        #expect(try ControlCommand.parse("remove mail m1").get() == .removeItem(id: "mail", key: "m1"))
        #expect(try ControlCommand.parse("items mail").get() == .items(id: "mail"))
    }
}

/// Input echoed in the control protocol's errors is one bounded line (issue 38).
@Suite struct ControlCommandEchoTests {
    @Test("A command with a line break in it is named in one line, escaped")
    func unknownCommand() throws {
        guard case .failure(let error) = ControlCommand.parse("inc\nmail") else { Issue.record("accepted"); return }
        #expect(!error.reason.contains("\n"))
        #expect(error.reason.hasPrefix(#"unknown command "inc\nmail""#))
    }

    @Test("Numbers, buttons, places, JSON errors and items echo input escaped and capped")
    func otherErrors() {
        for line in ["set mail 1\u{1B}2", "click mail \u{7}left", "peek mail --at 1,\r2", "set mail " + String(repeating: "9", count: 500),
                     "add mail {\"k\u{0}\":1}", "add mail {\"title\":1,\"\u{2028}\":2}", "items mail [{\"title\u{85}\":1}]"] {
            guard case .failure(let error) = ControlCommand.parse(line) else { continue }
            #expect(!error.reason.unicodeScalars.contains(where: InputEcho.needsEscape), "\(error.reason.debugDescription)")
            #expect(error.reason.count < 400)
        }
    }

    @Test("The JSON reader names an unexpected control character escaped")
    func jsonCharacter() {
        #expect(throws: JSONParseError.self) { try JSONValue.parse([0x5B, 0x1B]) }
        do { _ = try JSONValue.parse([0x5B, 0x1B]) } catch {
            #expect(error.reason == #"unexpected character "\u{1B}""#)
        }
    }
}
