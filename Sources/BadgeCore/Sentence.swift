/// A sentence for people (an error's reason, a warning, `explain`'s words), kept as its English
/// gettext format and its values so that the layer that knows the user's language can say it in
/// that language: the core and the control protocol make sentences, the app renders them with
/// its catalogues (`DesktopLocale`), and `english` is the text when there is none.
///
/// Formats are C formats with `%s` or `%1$s` … only (numbers arrive as text, already grouped);
/// every format literal written `Sentence("…")` or `Sentence(one: "…", other: "…", …)` is a msgid
/// of the app's catalogue, which a test checks.
package struct Sentence: Sendable, Hashable, CustomStringConvertible {
    /// A value put into a format: text shown as it is (a path, an id), a number (grouped as the
    /// locale groups digits) or another sentence (said in the same language).
    package indirect enum Value: Sendable, Hashable {
        case text(String)
        case number(Int)
        case sentence(Sentence)
    }

    /// The format, which is the msgid: "unknown button %s".
    package let format: String
    /// The plural msgid (`msgid_plural`), or nil for a sentence without plural forms.
    package let plural: String?
    /// The number choosing the plural form.
    package let count: Int
    /// The values, in the order of the format's `%s` (or numbered by `%1$s` …).
    package let values: [Value]

    /// A sentence from its format (a string literal) and values.
    package init(_ format: String, _ values: Value...) {
        self.format = format
        plural = nil
        count = 1
        self.values = values
    }

    /// A sentence with plural forms: `one` and `other` are the English forms, `count` chooses.
    package init(one: String, other: String, count: Int, _ values: Value...) {
        format = one
        plural = other
        self.count = count
        self.values = values
    }

    /// Text that is not translated (what a library, the system or a server said), as a sentence.
    package init(verbatim text: String) {
        self.init("%s", .text(text))
    }

    /// The sentence in English.
    package var english: String { rendered(by: .english) }

    /// The sentence in English, as string interpolation and `"\(error)"` show it.
    package var description: String { english }

    /// The sentence in the language of `words`.
    package func rendered(by words: SentenceWords) -> String {
        let shown = values.map { value -> String in
            switch value {
            case .text(let text): return text
            case .number(let number): return words.number(number)
            case .sentence(let sentence): return sentence.rendered(by: words)
            }
        }
        let translated = format == "%s" && plural == nil ? format : words.translate(format, plural, count)
        return Self.substitute(translated, shown)
    }

    /// Replaces `%s` (in order) and `%1$s`, `%2$s` … in a format with `values`; `%%` is a percent
    /// sign. Never formats with C's printf, so a bad translation cannot crash or read past the values.
    package static func substitute(_ format: String, _ values: [String]) -> String {
        var result = ""
        var next = 0
        let characters = Array(format)
        var index = 0
        while index < characters.count {
            let character = characters[index]
            guard character == "%", index + 1 < characters.count else {
                result.append(character)
                index += 1
                continue
            }
            if characters[index + 1] == "%" {
                result.append("%")
                index += 2
            } else if characters[index + 1] == "s" {
                result += next < values.count ? values[next] : ""
                next += 1
                index += 2
            } else if let digit = characters[index + 1].wholeNumberValue, index + 3 < characters.count,
                      characters[index + 2] == "$", characters[index + 3] == "s" {
                result += digit >= 1 && digit <= values.count ? values[digit - 1] : ""
                index += 4
            } else {
                result.append(character)
                index += 1
            }
        }
        return result
    }
}

/// How sentences are said: the catalogue's look-up and the locale's digits. English by default.
package struct SentenceWords: Sendable {
    /// The translation of a msgid (with its plural msgid and the count choosing the form).
    package var translate: @Sendable (_ msgid: String, _ plural: String?, _ count: Int) -> String
    /// A number written as the locale writes it.
    package var number: @Sendable (Int) -> String

    /// Words from a look-up and a number format.
    package init(translate: @escaping @Sendable (String, String?, Int) -> String, number: @escaping @Sendable (Int) -> String) {
        self.translate = translate
        self.number = number
    }

    /// English: the msgid, or the plural msgid for any count but 1; plain digits.
    package static let english = SentenceWords(translate: { msgid, plural, count in
        count == 1 ? msgid : plural ?? msgid
    }, number: { String($0) })
}
