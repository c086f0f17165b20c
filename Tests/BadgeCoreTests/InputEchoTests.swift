import Testing
@testable import BadgeCore

/// The one escaping of input echoed in messages (issue 38): control characters, separators and
/// bidirectional controls escaped, the backslash too, the length capped.
@Suite struct InputEchoTests {
    @Test("Line breaks, tabs, escapes and the backslash are written as escapes; other text stays")
    func escapes() {
        #expect(InputEcho.quoted("inc\nmail") == #""inc\nmail""#)
        #expect(InputEcho.quoted("a\r\n\tb") == #""a\r\n\tb""#)
        #expect(InputEcho.quoted("\u{1B}[31mred") == #""\u{1B}[31mred""#)
        #expect(InputEcho.quoted("nul\u{0}del\u{7F}c1\u{85}") == #""nul\u{0}del\u{7F}c1\u{85}""#)
        #expect(InputEcho.quoted("a\u{2028}b\u{2029}") == #""a\u{2028}b\u{2029}""#)
        #expect(InputEcho.quoted("abc\u{202E}fed") == #""abc\u{202E}fed""#)
        #expect(InputEcho.quoted(#"say "hi" \n"#) == #""say \"hi\" \\n""#)
        #expect(InputEcho.escaped(#"say "hi""#) == #"say "hi""#)
        #expect(InputEcho.quoted("Grüße 🇩🇪 مرحبا") == "\"Grüße 🇩🇪 مرحبا\"")
    }

    @Test("The length is capped in scalars, with an ellipsis where text was cut")
    func caps() {
        #expect(InputEcho.quoted(String(repeating: "x", count: 40)) == "\"" + String(repeating: "x", count: 40) + "\"")
        #expect(InputEcho.quoted(String(repeating: "x", count: 41)) == "\"" + String(repeating: "x", count: 40) + "…\"")
        #expect(InputEcho.escaped("abcdef", limit: 3) == "abc…")
        // One character of many scalars (a base and 10,000 combining marks) is capped too.
        let heavy = "e" + String(repeating: "\u{301}", count: 10_000)
        #expect(InputEcho.quoted(heavy).unicodeScalars.count == 40 + 3)
    }

    @Test("A whole message is made one line, its backslashes left alone, its length capped")
    func line() {
        #expect(InputEcho.line("plain message") == "plain message")
        #expect(InputEcho.line("two\nlines") == #"two\nlines"#)
        #expect(InputEcho.line(#"a \"quoted\" part"#) == #"a \"quoted\" part"#)
        #expect(InputEcho.line(String(repeating: "y", count: 1200)).unicodeScalars.count == 1001)
        for scalar in InputEcho.line("\u{0}\u{1F}\u{7F}\u{9F}\u{2028}\u{2066}").unicodeScalars {
            #expect(!InputEcho.needsEscape(scalar))
        }
    }
}
