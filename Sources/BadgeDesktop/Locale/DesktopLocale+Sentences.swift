import BadgeCore
import BadgeIO
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

extension DesktopLocale {
    /// The file gettext would read `domain`'s words from in this locale, when it is missing (nil
    /// when it is there, and in English or the C locale): where a program that stays in English
    /// says it looked, once. The languages tried are gettext's: `LANGUAGE`'s list, then the
    /// locale's name without its codeset ("de_DE"), then its language ("de").
    package func missingCatalogue(domain: String, isFile: (String) -> Bool = DesktopLocale.isReadableFile) -> String? {
        guard let language, language != "en", let localeDirectory else { return nil }
        let base = String(name.prefix { $0 != "." && $0 != "@" })
        let listed = (Environment.value("LANGUAGE") ?? "").split(separator: ":").map(String.init)
        let candidates = listed.filter { $0 != "C" && !$0.hasPrefix("en") } + [base, language]
        let file = { (candidate: String) in "\(localeDirectory)/\(candidate)/LC_MESSAGES/\(domain).mo" }
        guard !candidates.contains(where: { isFile(file($0)) }) else { return nil }
        return file(language)
    }

    /// Whether `path` is a file this process can read.
    package static func isReadableFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG && access(path, R_OK) == 0
    }
}
