import BadgeCore
import BadgeX11

/// How the app says its sentences (errors, warnings, `explain`, `msg`'s messages): from its own
/// catalogue (``BadgeApplication/domain``) in the locale the process adopted.
enum AppWords {
    /// The catalogue's words; the look-up happens when a sentence is said.
    static let words = DesktopLocale.sentenceWords(domain: BadgeApplication.domain)
}

extension Sentence {
    /// The sentence in the user's language.
    var localized: String { rendered(by: AppWords.words) }
}

extension Sentence {
    /// Parts joined into one sentence by the language's list separator ("a, b, c").
    static func list(_ parts: [Sentence]) -> Sentence {
        guard var joined = parts.first else { return Sentence(verbatim: "") }
        for part in parts.dropFirst() { joined = Sentence("%1$s, %2$s", .sentence(joined), .sentence(part)) }
        return joined
    }
}
