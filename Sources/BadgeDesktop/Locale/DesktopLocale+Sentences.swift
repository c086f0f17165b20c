import BadgeCore
import Glibc

extension DesktopLocale {
    /// How an application's sentences (errors, warnings, `explain`) are said: from the catalogue
    /// of `domain` in the locale the process adopted (``adopt(localeDirectory:)``; in English
    /// before that), with digits grouped as that locale groups them. The look-up happens when a
    /// sentence is said, so these words can be made before the locale is adopted.
    package static func sentenceWords(domain: String) -> SentenceWords {
        SentenceWords(translate: { msgid, plural, count in
            lookUp(msgid, plural: plural, count: count, domain: domain)
        }, number: { number in
            var separator = ""
            if let conventions = localeconv(), let thousands = conventions.pointee.thousands_sep {
                separator = String(cString: thousands)
            }
            return group(number, separator: separator)
        })
    }

    /// `sentence` in this locale's words from `domain`'s catalogue.
    package func say(_ sentence: Sentence, domain: String) -> String {
        sentence.rendered(by: Self.sentenceWords(domain: domain))
    }
}
