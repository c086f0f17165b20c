@testable import BadgeCore
import Testing

@Suite struct SentenceTests {
    /// A catalogue of two entries, with German's two plural forms and its digit grouping.
    static let german = SentenceWords(translate: { msgid, plural, count in
        switch msgid {
        case "unknown button %s": return "unbekannte Schaltfläche %s"
        case "%s s ago": return count == 1 ? "vor %s Sekunde" : "vor %s Sekunden"
        case "%1$s: %2$s": return "%2$s ← %1$s"
        default: return count == 1 ? msgid : plural ?? msgid
        }
    }, number: { $0 >= 1000 ? "\($0 / 1000).\(String($0 % 1000).count < 3 ? String(repeating: "0", count: 3 - String($0 % 1000).count) : "")\($0 % 1000)" : String($0) })

    @Test("English is the msgid with its values; the plural msgid for any count but 1")
    func english() {
        #expect(Sentence("unknown button %s", .text("mial")).english == "unknown button mial")
        #expect(Sentence(one: "%s s ago", other: "%s s ago", count: 1, .number(1)).english == "1 s ago")
        #expect(Sentence(one: "%s item", other: "%s items", count: 2, .number(2)).english == "2 items")
        #expect("\(Sentence("%1$s: %2$s", .text("a"), .text("b")))" == "a: b", "interpolation says English")
    }

    @Test("Translated: the plural form chosen by the count, numbers grouped, nested sentences said in the same language")
    func translated() {
        #expect(Sentence(one: "%s s ago", other: "%s s ago", count: 1, .number(1)).rendered(by: Self.german) == "vor 1 Sekunde")
        #expect(Sentence(one: "%s s ago", other: "%s s ago", count: 1234, .number(1234)).rendered(by: Self.german) == "vor 1.234 Sekunden")
        let nested = Sentence("%1$s: %2$s", .text("cfg.json"), .sentence(Sentence("unknown button %s", .text("x"))))
        #expect(nested.rendered(by: Self.german) == "unbekannte Schaltfläche x ← cfg.json", "reordered by position")
        #expect(Sentence(verbatim: "100% %s").rendered(by: Self.german) == "100% %s", "verbatim text is neither looked up nor filled")
    }

    @Test("A bad translation never crashes nor reads past the values")
    func badTranslation() {
        let words = SentenceWords(translate: { _, _, _ in "%s %s %n %9$s 100%%" }, number: { String($0) })
        #expect(Sentence("x %s", .text("v")).rendered(by: words) == "v  %n  100%")
    }
}
