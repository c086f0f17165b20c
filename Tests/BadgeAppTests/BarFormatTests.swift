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
}
