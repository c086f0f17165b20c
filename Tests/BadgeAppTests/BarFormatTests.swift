import TestSupport
import BadgeControl
@testable import BadgeApp
import Testing

/// The bar model (`msg --watch --format …`) pinned without a window: what each event does to the
/// line a bar shows.
@Suite struct BarFormatTests {
    func event(_ text: String) throws -> JSONValue { try JSONValue.parse(Array(text.utf8)) }

    static let state = #"""
        {"event": "state", "urgent": false, "buttons": [
          {"id": "bell", "label": "Notifications", "text": "3", "content": {"kind": "count", "count": 3}, "description": "Notifications, 3 unread"},
          {"id": "mail", "label": "Mail", "text": "", "content": {"kind": "none"}, "description": "Mail"},
          {"id": "up", "label": "Updates", "text": "", "content": {"kind": "dot"}, "description": "Updates, new"}]}
        """#

    @Test("state, change, urgent and config: each line as the bar shows it")
    func events() throws {
        var model = BarFormat.Model()
        #expect(model.apply(try event(Self.state)))
        #expect(BarFormat.polybar.line(model) == "Notifications 3 · Updates •")
        #expect(model.apply(try event(#"{"event": "change", "id": "mail", "text": "7", "content": {"kind": "count", "count": 7}}"#)))
        #expect(BarFormat.polybar.line(model) == "Notifications 3 · Mail 7 · Updates •" && model.total == 10)
        #expect(!model.apply(try event(#"{"event": "change", "id": "nosuch", "text": "1"}"#)), "an unknown button changes nothing")
        #expect(model.apply(try event(#"{"event": "urgent", "urgent": true}"#)))
        #expect(BarFormat.polybar.line(model) == "%{F#E53935}Notifications 3 · Mail 7 · Updates •%{F-}")
        // A reload: the state it carries replaces the buttons (one removed, one added).
        let reload = #"{"event": "config", "cause": "file", "buttons": ["mail", "news"], "state": {"event": "state", "urgent": false, "buttons": [{"id": "mail", "label": "Mail", "text": "7", "content": {"kind": "count", "count": 7}}, {"id": "news", "label": "News", "text": "4", "content": {"kind": "count", "count": 4}}]}}"#
        #expect(model.apply(try event(reload)))
        #expect(BarFormat.polybar.line(model) == "Mail 7 · News 4")
        #expect(BarFormat.i3blocks.line(model)?.contains(#""short_text":"11""#) == true)
        #expect(!model.apply(try event(#"{"event": "config", "cause": "file", "buttons": []}"#)), "an old config event without state")
        #expect(!model.apply(try event(#"{"event": "tooltip"}"#)))
        #expect(BarFormat.json.line(model) == nil)
    }

    @Test func waybarClassesAndEscaping() throws {
        var model = BarFormat.Model()
        _ = model.apply(try event(#"{"event": "state", "buttons": [{"id": "a", "label": "<A&B>", "text": "", "content": {"kind": "none"}, "description": "<A&B>"}]}"#))
        let line = try event(try #require(BarFormat.waybar.line(model)))
        #expect(line["class"]?.array?.compactMap(\.string) == ["empty", "zero"] && line["tooltip"]?.string == "&lt;A&amp;B&gt;")
    }

    /// Mail's count 2 as its source last confirmed it (`confidence`), beside a current bell count.
    func model(mail confidence: String, text: String = "2", urgent: Bool = false) throws -> BarFormat.Model {
        let mailDescription = confidence == "stale" ? "Mail, \(text) unread, not up to date"
            : confidence == "lastSession" ? "Mail, \(text) unread, last session" : "Mail, \(text) unread"
        let state = #"{"event": "state", "urgent": \#(urgent), "buttons": ["#
            + #"{"id": "bell", "label": "Notifications", "text": "3", "content": {"kind": "count", "count": 3}, "description": "Notifications, 3 unread", "confidence": "current"},"#
            + #"{"id": "mail", "label": "Mail", "text": "\#(text)", "content": {"kind": "count", "count": \#(text.isEmpty ? 0 : 2)}, "description": "\#(mailDescription)", "confidence": "\#(confidence)"}]}"#
        var model = BarFormat.Model()
        #expect(model.apply(try event(state)))
        return model
    }

    @Test("polybar: a stale or last-session count is grey and ends in ?, a current one is plain")
    func polybarStale() throws {
        #expect(BarFormat.polybar.line(try model(mail: "current")) == "Notifications 3 · Mail 2")
        #expect(BarFormat.polybar.line(try model(mail: "stale")) == "Notifications 3 · %{F#888888}Mail 2?%{F-}")
        #expect(BarFormat.polybar.line(try model(mail: "lastSession")) == "Notifications 3 · %{F#888888}Mail 2?%{F-}")
        #expect(BarFormat.polybar.line(try model(mail: "pending")) == "Notifications 3 · %{F#888888}Mail 2?%{F-}",
                "a value its source has not answered yet is not current")
        #expect(BarFormat.polybar.line(try model(mail: "pending", text: "")) == "Notifications 3", "nothing shown, as in the window")
        // Nothing could be read: "?", as the window's unknown mark, never "nothing unread".
        #expect(BarFormat.polybar.line(try model(mail: "stale", text: "")) == "Notifications 3 · %{F#888888}Mail ?%{F-}")
        // Urgent: the line is red, the stale part grey, and red again after it.
        #expect(BarFormat.polybar.line(try model(mail: "stale", urgent: true))
                == "%{F#E53935}Notifications 3 · %{F#888888}Mail 2?%{F#E53935}%{F-}")
    }

    @Test("waybar: class stale (beside unread), the tooltip says not up to date; current: the class alone")
    func waybarStale() throws {
        let current = try event(try #require(BarFormat.waybar.line(try model(mail: "current"))))
        #expect(current["class"]?.string == "unread" && current["text"]?.string == "Notifications 3 · Mail 2")
        let stale = try event(try #require(BarFormat.waybar.line(try model(mail: "stale"))))
        #expect(stale["class"]?.array?.compactMap(\.string) == ["unread", "stale"], "\(stale)")
        #expect(stale["alt"]?.string == "unread")
        #expect(stale["text"]?.string == "Notifications 3 · Mail 2?")
        #expect(stale["tooltip"]?.string?.contains("Mail, 2 unread, not up to date") == true, "\(stale)")
        let restored = try event(try #require(BarFormat.waybar.line(try model(mail: "lastSession"))))
        #expect(restored["class"]?.array?.compactMap(\.string) == ["unread", "stale"], "\(restored)")
        #expect(restored["tooltip"]?.string?.contains("last session") == true)
    }

    @Test("i3blocks: a grey color and ? while a count is not confirmed; no color when all are current")
    func i3barStale() throws {
        let current = try event(try #require(BarFormat.i3blocks.line(try model(mail: "current"))))
        #expect(current["color"] == nil && current["full_text"]?.string == "Notifications 3 · Mail 2")
        for confidence in ["stale", "lastSession"] {
            let stale = try event(try #require(BarFormat.i3blocks.line(try model(mail: confidence))))
            #expect(stale["color"]?.string == "#888888", "\(confidence): \(stale)")
            #expect(stale["full_text"]?.string == "Notifications 3 · Mail 2?", "\(confidence): \(stale)")
        }
    }

    @Test("A change event carries the confidence: the bar follows a source going stale and coming back")
    func changeCarriesConfidence() throws {
        var model = try model(mail: "current")
        #expect(model.apply(try event(#"{"event": "change", "id": "mail", "text": "2", "content": {"kind": "count", "count": 2}, "description": "Mail, 2 unread, not up to date", "confidence": "stale"}"#)))
        #expect(BarFormat.polybar.line(model) == "Notifications 3 · %{F#888888}Mail 2?%{F-}")
        #expect(model.apply(try event(#"{"event": "change", "id": "mail", "text": "4", "content": {"kind": "count", "count": 4}, "description": "Mail, 4 unread", "confidence": "current"}"#)))
        #expect(BarFormat.polybar.line(model) == "Notifications 3 · Mail 4")
        #expect(BarFormat.json.line(model) == nil, "json passes the events, confidence included, through")
    }
}

/// The bars' own protocols (issue 36): i3bar's blocks, polybar's and lemonbar's action tags,
/// waybar's classes, and the clicks i3bar sends back.
@Suite struct BarProtocolFormatTests {
    func event(_ text: String) throws -> JSONValue { try JSONValue.parse(Array(text.utf8)) }

    func model(_ only: String? = nil) throws -> BarFormat.Model {
        var model = BarFormat.Model(only: only)
        #expect(model.apply(try event(BarFormatTests.state)))
        return model
    }

    @Test("i3bar: a header asking for clicks, the opening of the endless array, then one array of blocks per update after a comma")
    func i3barProtocol() throws {
        #expect(BarFormat.i3bar.prelude == [#"{"version":1,"click_events":true}"#, "["])
        #expect(BarFormat.i3bar.continuation == "," && BarFormat.i3bar.offlineLine == "[]")
        #expect(BarFormat.polybar.prelude.isEmpty && BarFormat.waybar.continuation.isEmpty)
        let line = try #require(BarFormat.i3bar.line(try model()))
        let blocks = try #require(try event(line).array)
        #expect(blocks.map { $0["instance"]?.string } == ["bell", "up"], "a block per button that shows something")
        #expect(blocks.allSatisfy { $0["name"]?.string == "badge-demo" && $0["markup"]?.string == "none" })
        #expect(blocks[0]["full_text"]?.string == "Notifications 3" && blocks[0]["short_text"]?.string == "3")
        #expect(blocks[1]["full_text"]?.string == "Updates •" && blocks[1]["short_text"]?.string == "•")
        #expect(blocks[0]["separator"]?.bool == true && blocks[0]["separator_block_width"]?.int == 9)
        let bareLine = try #require(BarFormat.i3bar.line(try model(), .init(separator: false)))
        let bare = try #require(try event(bareLine).array)
        #expect(bare[0]["separator"]?.bool == false && bare[0]["separator_block_width"]?.int == 15)
    }

    @Test("i3bar: the block whose count rose is urgent, not the others; a stale one is grey and ends in ?")
    func i3barUrgentAndStale() throws {
        var model = try model()
        // The instance says the window asks for attention just before the change that made it ask.
        #expect(model.apply(try event(#"{"event": "urgent", "urgent": true}"#)))
        #expect(model.apply(try event(#"{"event": "change", "id": "mail", "text": "1", "content": {"kind": "count", "count": 1}, "description": "Mail, 1 unread", "confidence": "stale"}"#)))
        let urgentLine = try #require(BarFormat.i3bar.line(model))
        let blocks = try #require(try event(urgentLine).array)
        #expect(blocks.map { $0["urgent"]?.bool } == [false, true, false], "\(blocks)")
        #expect(blocks[1]["color"]?.string == "#888888" && blocks[1]["full_text"]?.string == "Mail 1?" && blocks[0]["color"] == nil)
        // And after it: a second growth while urgent is urgent too; focus ends it.
        #expect(model.apply(try event(#"{"event": "change", "id": "bell", "text": "4", "content": {"kind": "count", "count": 4}}"#)))
        #expect(model.shown.filter(\.isUrgent).map(\.id) == ["bell", "mail"])
        #expect(model.apply(try event(#"{"event": "urgent", "urgent": false}"#)))
        #expect(model.shown.allSatisfy { !$0.isUrgent })
        // A count that rose while the window had the focus is not why it asks later.
        #expect(model.apply(try event(#"{"event": "change", "id": "bell", "text": "5", "content": {"kind": "count", "count": 5}}"#)))
        #expect(model.apply(try event(#"{"event": "change", "id": "bell", "text": "5", "content": {"kind": "count", "count": 5}, "description": "x"}"#)))
        #expect(model.apply(try event(#"{"event": "urgent", "urgent": true}"#)))
        #expect(model.shown.allSatisfy { !$0.isUrgent })
    }

    @Test("polybar: each button's text inside action tags: left click, middle, right (peek), wheel; colons escaped")
    func polybarActions() throws {
        let actions = BarActions(program: "/usr/bin/badge-demo", socket: "/run/user/1000/badge-demo/a:b sock")
        let line = try #require(BarFormat.polybar.line(try model(), .init(actions: actions)))
        let command = #"/usr/bin/badge-demo msg --socket '/run/user/1000/badge-demo/a\:b sock'"#
        #expect(line.hasPrefix("%{A1:\(command) click bell:}%{A2:\(command) click bell middle:}%{A3:\(command) peek bell:}"
                               + "%{A4:\(command) click bell up:}%{A5:\(command) click bell down:}Notifications 3%{A}%{A}%{A}%{A}%{A} · "), "\(line)")
        #expect(BarText.plain(line) == "Notifications 3 · Updates •")
        #expect(BarFormat.polybar.line(try model()) == "Notifications 3 · Updates •", "no actions, plain text")
    }

    @Test("lemonbar: two areas per button (its default allows 10), % escaped as %%, stale grey, urgent red")
    func lemonbarFormat() throws {
        var model = try model()
        _ = model.apply(try event(#"{"event": "change", "id": "mail", "text": "50%", "content": {"kind": "text"}, "confidence": "stale"}"#))
        let actions = BarActions(program: "/usr/bin/badge-demo", socket: "/tmp/s")
        let line = try #require(BarFormat.lemonbar.line(model, .init(actions: actions)))
        #expect(line.components(of: "%{A1:").count == 4 && line.components(of: "%{A3:").count == 4 && !line.contains("%{A2"), "\(line)")
        #expect(line.contains("%{A1:/usr/bin/badge-demo msg --socket /tmp/s click mail:}%{A3:/usr/bin/badge-demo msg --socket /tmp/s peek mail:}%{F#888888}Mail 50%%?%{F-}%{A}%{A}"), "\(line)")
        _ = model.apply(try event(#"{"event": "urgent", "urgent": true}"#))
        #expect(BarFormat.lemonbar.line(model)?.hasPrefix("%{F#E53935}") == true)
    }

    @Test("A command a tag cannot hold (a } in it) leaves the text without actions rather than a broken tag")
    func unsafeCommands() throws {
        let actions = BarActions(program: "/opt/odd}dir/badge-demo", socket: "/tmp/s")
        #expect(BarFormat.polybar.line(try model(), .init(actions: actions)) == "Notifications 3 · Updates •")
        #expect(BarActions.shellQuoted("it's") == #"'it'\''s'"# && BarActions.shellQuoted("mail") == "mail" && BarActions.shellQuoted("") == "''")
    }

    @Test("waybar: classes urgent/unread/empty, zero when nothing shows, stale; percentage 0 or 100; --button keeps one button")
    func waybarClasses() throws {
        let all = try event(try #require(BarFormat.waybar.line(try model())))
        #expect(all["class"]?.string == "unread" && all["percentage"]?.int == 100)
        let mail = try event(try #require(BarFormat.waybar.line(try model("mail"))))
        #expect(mail["class"]?.array?.compactMap(\.string) == ["empty", "zero"] && mail["percentage"]?.int == 0 && mail["text"]?.string == "")
        #expect(mail["tooltip"]?.string == "Mail")
        let bell = try event(try #require(BarFormat.waybar.line(try model("bell"))))
        #expect(bell["text"]?.string == "Notifications 3" && bell["tooltip"]?.string == "Notifications, 3 unread")
        var missing = try model("nosuch")
        let bellModel = try model("bell")
        #expect(missing.missesItsButton && !bellModel.missesItsButton)
        _ = missing.apply(try event(#"{"event": "urgent", "urgent": true}"#))
        #expect(try event(try #require(BarFormat.waybar.line(missing)))["class"]?.array?.compactMap(\.string) == ["urgent", "zero"])
    }

    @Test("i3bar's click events become the window's clicks: left, middle, wheel, right as the peek next to the block")
    func i3barClicks() throws {
        var reader = I3barClickReader()
        let input = """
            [
            {"name":"badge-demo","instance":"mail","button":1,"x":10,"y":590,"relative_x":4,"relative_y":3,"width":60,"height":18}
            ,{"name":"badge-demo","instance":"mail","button":2}
            ,{"name":"badge-demo","instance":"bell","button":4},
            {"name":"badge-demo","instance":"bell","button":5}
            ,{"name":"badge-demo","instance":"bell","button":3,"x":100,"y":590,"relative_x":5,"relative_y":3,"width":80,"height":18}
            ,{"name":"badge-demo","instance":"bell","button":3,"x":100,"y":590}
            ,{"name":"badge-demo","instance":"bell","button":8}

            """
        let items = Array(input.utf8).withUnsafeBytes { reader.feed($0) }
        #expect(items == [.command("click mail"), .command("click mail middle"), .command("click bell up"), .command("click bell down"),
                          .command("peek bell --at 95,587,80,18"), .command("peek bell --at 100,590")])
        for item in items { if case .command(let line) = item { #expect((try? ControlCommand.parse(line).get()) != nil, "\(line)") } }
    }

    @Test("Bad input from the bar: each bad line one message, an endless line bounded, five messages and then quiet; clicks still work")
    func i3barHostileInput() throws {
        var reader = I3barClickReader()
        func feed(_ text: String) -> [I3barClickReader.Item] { Array(text.utf8).withUnsafeBytes { reader.feed($0) } }
        #expect(feed("not json\n").count == 1)
        #expect(feed(#"{"button":1}"# + "\n") == [.problem(#"ignored a click event without an instance and a button: "{\"button\":1}""#)])
        #expect(feed(#"{"instance":"a b","button":1}"# + "\n").count == 1)
        // A line without end: dropped at the limit with one message, however long it goes on.
        #expect(feed(String(repeating: "x", count: 10_000)).count == 1)
        #expect(feed(String(repeating: "x", count: 100_000)).isEmpty)
        #expect(feed("\n").isEmpty)
        let fifth = feed("\u{1B}[31m\n")
        guard case .problem(let message)? = fifth.first else { Issue.record("\(fifth)"); return }
        #expect(message.contains("more such input is ignored") && !message.contains("\u{1B}"), "\(message)")
        #expect(feed("junk\njunk\n").isEmpty, "quiet after five")
        #expect(feed(#",{"name":"badge-demo","instance":"mail","button":1}"# + "\n") == [.command("click mail")])
    }
}

extension String {
    /// The pieces between the occurrences of `separator`.
    func components(of separator: String) -> [Substring] {
        var pieces: [Substring] = []
        var rest = self[...]
        while let range = rest.firstRange(of: separator) {
            pieces.append(rest[..<range.lowerBound])
            rest = rest[range.upperBound...]
        }
        return pieces + [rest]
    }
}
