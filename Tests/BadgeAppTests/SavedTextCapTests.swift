import BadgeCore
@testable import BadgeApp
import Testing

/// A saved text badge is capped as it is read, before the toolbar or the shaper sees it.
@Suite struct SavedTextCapTests {
    @Test("A state file's 100,000-mark text is decoded capped to TextBounds.maximumBadgeTextBytes")
    func restoredTextIsCapped() throws {
        let marks = "a" + String(repeating: "\u{301}", count: 100_000)
        let file = #"{"version": 1, "buttons": {"mail": {"kind": "text", "text": ""# + marks + #""}, "bell": {"kind": "count", "count": 3}}}"#
        let contents = try SavedCounts.decode(Array(file.utf8))
        guard case .text(let text)? = contents["mail"] else {
            Issue.record("mail is \(String(describing: contents["mail"]))")
            return
        }
        #expect(text == TextBounds.badgeText(marks))
        #expect(text.utf8.count <= TextBounds.maximumBadgeTextBytes && text.unicodeScalars.first == "a")
        #expect(contents["bell"] == .count(3))
    }
}
