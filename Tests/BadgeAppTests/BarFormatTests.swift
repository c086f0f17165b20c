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
        #expect(BarFormat.i3bar.line(model)?.contains(#""short_text":"11""#) == true)
        #expect(!model.apply(try event(#"{"event": "config", "cause": "file", "buttons": []}"#)), "an old config event without state")
        #expect(!model.apply(try event(#"{"event": "tooltip"}"#)))
        #expect(BarFormat.json.line(model) == nil)
    }

    @Test func waybarClassesAndEscaping() throws {
        var model = BarFormat.Model()
        _ = model.apply(try event(#"{"event": "state", "buttons": [{"id": "a", "label": "<A&B>", "text": "", "content": {"kind": "none"}, "description": "<A&B>"}]}"#))
        let line = try event(try #require(BarFormat.waybar.line(model)))
        #expect(line["class"]?.string == "empty" && line["tooltip"]?.string == "&lt;A&amp;B&gt;")
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

    @Test("i3bar: a grey color and ? while a count is not confirmed; no color when all are current")
    func i3barStale() throws {
        let current = try event(try #require(BarFormat.i3bar.line(try model(mail: "current"))))
        #expect(current["color"] == nil && current["full_text"]?.string == "Notifications 3 · Mail 2")
        for confidence in ["stale", "lastSession"] {
            let stale = try event(try #require(BarFormat.i3bar.line(try model(mail: confidence))))
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
