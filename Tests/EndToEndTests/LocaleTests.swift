import BadgeCore
import Glibc
import Testing
import XvfbHarness

/// The user's locale (LANG), as GTK and Qt programs follow it: translated descriptions, tooltips,
/// labels and title (gettext catalogues from po/), digits grouped the locale's way, and the
/// layout direction of right-to-left languages; `--ltr` and `--rtl` override it.
@Suite("E2E: locale", .endToEnd(minutes: 1))
struct LocaleTests {
    /// The catalogues `make locale` builds (make test does first).
    static var catalogues: String {
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)
        return parts.joined(separator: "/") + "/.build/locale"
    }

    static func session(_ name: String, lang: String, arguments: [String] = []) throws -> DemoSession {
        #expect(access(catalogues + "/de/LC_MESSAGES/badgekit.mo", R_OK) == 0, "run `make locale` first (make test does)")
        return try DemoSession(name, arguments: arguments,
                               environment: ["LANG": lang, "LC_ALL": lang, "LANGUAGE": "", "BADGEKIT_LOCALEDIR": catalogues])
    }

    @Test("German: translated descriptions, labels and title, and digits grouped with a dot")
    func german() throws {
        let config = try Artifacts.path(for: "locale-de-\(getpid()).json")
        defer { unlink(config) }
        let fd = open(config, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let text = #"{"buttons": [{"id": "mail", "icon": "mail", "label": "Post", "style": {"maximumCount": 99999}}]}"#
        _ = Array(text.utf8).withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)

        let s = try Self.session("locale-de", lang: "de_DE.UTF-8")
        let state = try s.state()
        #expect(try state.button("mail").description == "E-Mail, 12 ungelesen")
        #expect(try state.button("updates").description == "Aktualisierungen, neu")
        #expect(state.title == "(15) Abzeichen")
        #expect(s.app.stderrText.isEmpty, "\(s.app.stderrText)")

        let grouped = try Self.session("locale-de-grouped", lang: "de_DE.UTF-8", arguments: ["--config", config])
        try grouped.command("set mail 12345")
        #expect(try grouped.state().button("mail").description == "Post, 12.345 ungelesen")
        try grouped.command("set mail 123456")
        #expect(try grouped.state().button("mail").description == "Post, mehr als 99.999 ungelesen")
        // explain in one language: the demo's sample, then a value set by hand.
        try s.command("explain mail")
        let sample = try s.app.readEvent(named: "explain", timeout: 10)["text"]?.string ?? ""
        #expect(sample == "E-Mail, 12 ungelesen, Beispielwert der Demo (keine Quelle)", "\(sample)")
        try s.command("set mail 4")
        try s.command("explain mail")
        let byHand = try s.app.readEvent(named: "explain", timeout: 10)["text"]?.string ?? ""
        #expect(byHand == "E-Mail, 4 ungelesen, von Hand gesetzt (keine Quelle)", "\(byHand)")
        // The peek in German: a count set by hand, then items with their times.
        try s.click(MouseButton.right, on: "mail")
        _ = try s.peekEvent("opened")
        #expect(try s.peekTitles() == ["E-Mail, 4 ungelesen", "+1", "−1", "Leeren"])
        for key in 0..<14 { try s.command("add mail k\(key) Absender \(key)") }
        try s.sync()
        let rows = try s.peek()?["rows"]?.array ?? []
        #expect(rows.first?["time"]?.string == "gerade eben", "\(rows.first ?? .null)")
        #expect(rows.last?["title"]?.string == "und 2 weitere", "\(rows.last ?? .null)")
    }

    @Test("Arabic: right to left, Arabic plural forms and comma; --ltr overrides the direction")
    func arabic() throws {
        let s = try Self.session("locale-ar", lang: "ar_EG.UTF-8")
        let state = try s.state()
        let bell = try state.button("bell"), mail = try state.button("mail")
        #expect(bell.button.x > mail.button.x, "right to left: the first button is on the right")
        #expect(bell.description == "الإشعارات، 3 عناصر غير مقروءة")
        #expect(mail.description == "البريد، 12 عنصرًا غير مقروء")
        let badge = try #require(bell.badge)
        #expect(badge.x < bell.button.x + bell.button.width / 2, "the badge moves to the icon's top-left corner")

        let ltr = try Self.session("locale-ar-ltr", lang: "ar_EG.UTF-8", arguments: ["--ltr"])
        let flipped = try ltr.state()
        #expect(try flipped.button("bell").button.x < flipped.button("mail").button.x)
        #expect(try flipped.button("bell").description == "الإشعارات، 3 عناصر غير مقروءة", "still Arabic words")
    }

    @Test("A locale that is not installed: one warning, English, and the app works")
    func missingLocale() throws {
        let s = try Self.session("locale-missing", lang: "xx_YY.UTF-8")
        #expect(try s.state().button("mail").description == "Mail, 12 unread")
        let lines = s.app.stderrText.split(separator: "\n")
        #expect(lines.count == 1 && lines.first?.contains("xx_YY.UTF-8") == true, "stderr: \(s.app.stderrText)")
        try s.click(MouseButton.left, on: "mail")
        #expect(try s.nextChange()["text"]?.string == "13")
    }
}
