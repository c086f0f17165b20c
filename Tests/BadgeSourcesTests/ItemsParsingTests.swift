import BadgeCore
import Testing
@testable import BadgeSources

/// What a command's `"items"` and a notification's body become.
@Suite struct ItemsParsingTests {
    @Test("A command's items: the count is their number, a larger count lists the rest as unlisted")
    func commandItems() throws {
        let listed = try CommandOutput.parse(Array("""
            {"items": [{"key": "1", "title": "Build 12 failed", "detail": "unit tests", "time": 1767225600,
                        "command": ["xdg-open", "https://ci.example.org/12"]},
                       {"key": 2, "title": "Build 13 failed"}, {"key": "1", "title": "Build 12 failed again"}]}
            """.utf8)).get()
        #expect(listed.content == .count(2))
        #expect(listed.items?.items.map(\.title) == ["Build 12 failed again", "Build 13 failed"])
        #expect(listed.items?.item(forKey: "1")?.action == nil)
        #expect(listed.items?.item(forKey: "2")?.key == "2")

        let counted = try CommandOutput.parse(Array(#"{"count": 5, "items": [{"key": "a", "title": "A", "command": ["true"]}]}"#.utf8)).get()
        #expect(counted.content == .count(5))
        #expect(counted.items?.unlisted == 4)
        #expect(counted.items?.item(forKey: "a")?.action == .run(["true"]))
    }

    @Test("Bad items are named", arguments: [
        (#"{"items": 3}"#, "\"items\" must be a list"),
        (#"{"items": [{"title": "x"}]}"#, "needs a \"key\""),
        (#"{"items": [{"key": "k"}]}"#, "needs a \"title\""),
        (#"{"items": [{"key": "k", "title": "t", "time": -1}]}"#, "\"time\" must be seconds"),
        (#"{"items": [{"key": "k", "title": "t", "command": "rm -rf /"}]}"#, "\"command\" must be a list of strings"),
    ])
    func badItems(output: String, reason: String) {
        guard case .failure(let error) = CommandOutput.parse(Array(output.utf8)) else {
            Issue.record("\(output) was taken")
            return
        }
        #expect(error.reason.contains(reason), "\(error.reason)")
    }

    @Test("Notification markup becomes one line of text", arguments: [
        ("<b>Alice</b>: lunch?", "Alice: lunch?"),
        ("Tom &amp; Jerry &lt;3 &#233;&#x263A;", "Tom & Jerry <3 é☺"),
        ("line one\nline two", "line one line two"),
        (#"<a href="https://x.org">link</a> <img src="a.png" alt="[cat]"/>"#, "link [cat]"),
        ("a < b and c > d", "a < b and c > d"),
        ("&bogus; stays", "&bogus; stays"),
    ])
    func markup(body: String, plain: String) {
        #expect(NotificationMarkup.plainText(body) == plain)
    }
}
