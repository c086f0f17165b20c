import BadgeCore
import Glibc
import Testing
import XvfbHarness

/// Huge text costs what short text does: a text badge of tens of thousands of combining marks,
/// restored from the state file or sent on the control channel, is capped before it is shaped.
@Suite("E2E: long text is capped", .endToEnd(minutes: 1))
struct LongTextTests {
    /// Combining marks on one base letter: a single grapheme cluster. 30,000 of them (60 KB) are
    /// within the state file's size cap; before the text was capped such a badge took seconds to
    /// shape, growing faster than the length (100,000 marks: 29 s).
    static let marks = 30_000

    @Test("A 30,000-mark text badge from the state file: the window is up in the usual time and shows a capped badge")
    func restoredMarks() throws {
        let home = try SavedCountsTests.stateHome("longtext")
        #expect(mkdir(home + "/badge-demo", 0o700) == 0)
        let text = "a" + String(repeating: "\u{301}", count: Self.marks)
        let file = #"{"version": 1, "buttons": {"mail": {"kind": "text", "text": ""# + text + #""}}}"# + "\n"
        let fd = open(home + "/badge-demo/state.json", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        #expect(fd >= 0)
        let written = Array(file.utf8).withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        close(fd)
        #expect(written == file.utf8.count)

        // DemoSession waits the usual 10 s for "ready".
        let s = try DemoSession("longtext", environment: ["XDG_STATE_HOME": home])
        let mail = try s.state().button("mail")
        let shown = mail.json["content"]?["text"]?.string ?? ""
        #expect(mail.contentKind == "text")
        #expect(shown == TextBounds.badgeText(text), "stored \(shown.utf8.count) bytes")
        #expect(shown.utf8.count <= TextBounds.maximumBadgeTextBytes && shown.unicodeScalars.first == "a")
        let badge = try #require(mail.badge, "the mail badge is hidden")
        try s.moveAwayAndSync()
        let image = try s.capture()
        let interior = badgeInterior(badge)
        let red = image.count(in: interior, where: isBadgeRed)
        expectPixels(red * 100 >= interior.area * 30, "the mail badge interior is only \(red)/\(interior.area) red",
                     images: ["window": image], test: "longtext")
        #expect(s.app.stderrText.isEmpty, "\(s.app.stderrText)")
    }

    @Test("A 100,000-mark state file (200 KB, over the state cap): one warning, the window up in the usual time, memory bounded")
    func restoredHundredThousandMarks() throws {
        let home = try SavedCountsTests.stateHome("longtext-100k")
        #expect(mkdir(home + "/badge-demo", 0o700) == 0)
        let text = "a" + String(repeating: "\u{301}", count: 100_000)
        let file = #"{"version": 1, "buttons": {"mail": {"kind": "text", "text": ""# + text + #""}}}"# + "\n"
        let fd = open(home + "/badge-demo/state.json", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        _ = Array(file.utf8).withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        close(fd)
        let s = try DemoSession("longtext-100k", environment: ["XDG_STATE_HOME": home])
        #expect(try s.state().button("mail").count == 12, "the defaults, not the refused file")
        try s.sync()
        #expect(s.app.stderrText.contains("state.json") && s.app.stderrText.contains("larger than"), "\(s.app.stderrText)")
        #expect(try s.app.residentKilobytes() < 150_000)
    }

    @Test("`text` with the longest line the channel takes: stored capped, and the app answers at once")
    func controlMarks() throws {
        let s = try DemoSession("longtext-control")
        // 2,000 marks: 4,000 bytes, just under the 4,096-byte line limit.
        let text = "a" + String(repeating: "\u{301}", count: 2_000)
        try s.command("text chat " + text)
        try s.sync()
        let chat = try s.state().button("chat")
        #expect(chat.json["content"]?["text"]?.string == TextBounds.badgeText(text))
        #expect(chat.badge != nil)
    }
}
