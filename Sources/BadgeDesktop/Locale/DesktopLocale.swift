import BadgeIO
import BadgeCore
import CGlibcExtras
import Glibc

/// The user's locale, as a desktop program adopts it: `setlocale(LC_ALL, "")` from `LANG`,
/// `LC_ALL` and `LC_MESSAGES`; gettext catalogues for BadgeKit's words (the domain ``domain``);
/// the locale's digit grouping; its writing direction; and its language for text shaping.
public struct DesktopLocale: Sendable {
    /// BadgeKit's own gettext domain (the accessible descriptions and tooltips).
    public static let domain = "badgekit"
    /// The locale in effect (`LC_MESSAGES`), such as "de_DE.UTF-8"; "C" when none is set.
    public let name: String
    /// The locale asked for when it is not installed (the C locale is used then), else nil.
    public let unavailable: String?
    /// The language code ("de", "ar"), or nil in the C locale.
    public let language: String?
    /// The separator between groups of three digits ("." in German), or "" for none.
    public let groupingSeparator: String
    /// Right to left for Arabic, Hebrew, Persian, Urdu and the other right-to-left languages.
    public let direction: LayoutDirection
    /// Where the catalogues are looked for (`<dir>/<lang>/LC_MESSAGES/<domain>.mo`), or nil.
    public let localeDirectory: String?

    /// The languages written right to left.
    static let rightToLeftLanguages: Set<String> = ["ar", "he", "fa", "ur", "yi", "ps", "sd", "ug", "dv", "ckb", "syr"]

    /// Adopts the environment's locale for the whole process (call once, early, before other
    /// threads start) and binds ``domain`` to the catalogues in `localeDirectory` (nil: the
    /// `BADGEKIT_LOCALEDIR` variable, else `share/locale` beside the executable's `bin`).
    public static func adopt(localeDirectory: String? = nil) -> DesktopLocale {
        var unavailable: String?
        if setlocale(LC_ALL, "") == nil {
            let names = ["LC_ALL", "LC_MESSAGES", "LANG"]
            unavailable = names.lazy.compactMap(Environment.value).first
            setlocale(LC_ALL, "C")
        }
        let messages = setlocale(LC_MESSAGES, nil).map { String(cString: $0) } ?? "C"
        let directory = localeDirectory ?? defaultLocaleDirectory()
        if let directory { bind(domain, to: directory) }
        var separator = ""
        if let conventions = localeconv(), let thousands = conventions.pointee.thousands_sep {
            separator = String(cString: thousands)
        }
        let language = Self.language(of: messages)
        return DesktopLocale(name: messages, unavailable: unavailable, language: language, groupingSeparator: separator,
                             direction: language.map { rightToLeftLanguages.contains($0) } == true ? .rightToLeft : .leftToRight,
                             localeDirectory: directory)
    }

    /// Binds a gettext `domain` (an application's own) to the catalogues in `directory`, in UTF-8.
    public static func bind(_ domain: String, to directory: String) {
        bindtextdomain(domain, directory)
        bind_textdomain_codeset(domain, "UTF-8")
    }

    /// `msgid` translated in `domain` (the msgid itself when there is no translation).
    public func translate(_ msgid: String, domain: String) -> String {
        Self.lookUp(msgid, domain: domain)
    }

    /// gettext's translation of `msgid` (or its plural form `plural` for `count`). The strings stay
    /// alive while it is copied: gettext answers a pointer to the msgid itself when it has no
    /// translation.
    static func lookUp(_ msgid: String, plural: String? = nil, count: Int = 1, domain: String) -> String {
        domain.withCString { domainName in
            msgid.withCString { singular in
                guard let plural else { return String(cString: dgettext(domainName, singular)) }
                return plural.withCString { pluralForm in
                    String(cString: dngettext(domainName, singular, pluralForm, UInt(clamping: count)))
                }
            }
        }
    }

    /// The language tag for text shaping ("de-de", "ar-eg"), as Pango takes it, or nil.
    public var languageTag: String? {
        guard language != nil else { return nil }
        let base = name.split(separator: ".").first.map(String.init) ?? name
        return base.replacingUnderscores().lowercased()
    }

    /// `number` with its digits grouped as the locale groups them.
    public func format(_ number: Int) -> String {
        Self.group(number, separator: groupingSeparator)
    }

    /// The accessible descriptions' words from BadgeKit's catalogue for this locale.
    public var badgeStrings: BadgeStrings {
        let domain = Self.domain, separator = groupingSeparator
        return BadgeStrings(
            new: { Self.lookUp("new", domain: domain) },
            unread: { count, number in
                Self.substitute(Self.lookUp("%s unread", plural: "%s unread", count: count, domain: domain), [number])
            },
            moreThan: { number in Self.substitute(Self.lookUp("more than %s unread", domain: domain), [number]) },
            join: { label, detail in Self.substitute(Self.lookUp("%1$s, %2$s", domain: domain), [label, detail]) },
            number: { Self.group($0, separator: separator) },
            from: { source in Self.substitute(Self.lookUp("from %s", domain: domain), [source]) },
            notUpToDate: { Self.lookUp("not up to date", domain: domain) },
            lastSession: { Self.lookUp("last session", domain: domain) },
            waiting: { Self.lookUp("waiting for its source", domain: domain) })
    }

    /// The words of the buttons' actions for screen readers, from BadgeKit's catalogue for this locale.
    public var accessibilityStrings: AccessibilityStrings {
        let english = AccessibilityStrings.english, domain = Self.domain
        return AccessibilityStrings(increment: Self.lookUp(english.increment, domain: domain),
                                    decrement: Self.lookUp(english.decrement, domain: domain),
                                    clear: Self.lookUp(english.clear, domain: domain))
    }

    /// Replaces `%s` (in order) and `%1$s`, `%2$s` … in a translated format with `values`; `%%`
    /// is a percent sign. Never formats with C's printf, so a bad translation cannot crash.
    package static func substitute(_ format: String, _ values: [String]) -> String {
        Sentence.substitute(format, values)
    }

    static func group(_ number: Int, separator: String) -> String {
        let digits = String(number.magnitude)
        guard !separator.isEmpty, digits.count > 3 else { return number < 0 ? "-" + digits : digits }
        var result = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { result += separator }
            result.append(digit)
        }
        return number < 0 ? "-" + result : result
    }

    static func language(of locale: String) -> String? {
        guard locale != "C", locale != "POSIX", !locale.hasPrefix("C.") else { return nil }
        let code = locale.prefix { $0.isLetter }
        return code.isEmpty ? nil : String(code).lowercased()
    }

    /// `BADGEKIT_LOCALEDIR`, else `share/locale` beside the executable's `bin` folder (installed),
    /// else, for a binary still in a package's `.build` folder, the `.build/locale` that `make`
    /// fills (an uninstalled release binary ran in English without a word).
    static func defaultLocaleDirectory() -> String? {
        if let directory = Environment.value("BADGEKIT_LOCALEDIR") { return directory }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        let executable = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return localeDirectory(forExecutable: executable, isFolder: { path in
            var info = stat()
            return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
        })
    }

    /// Where the catalogues of the program at `executable` are: see ``defaultLocaleDirectory()``.
    static func localeDirectory(forExecutable executable: String, isFolder: (String) -> Bool) -> String? {
        var parts = executable.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count >= 3 else { return nil }
        let build = parts.lastIndex(of: ".build").map { parts[...$0].joined(separator: "/") + "/locale" }
        parts.removeLast(2)
        let installed = parts.joined(separator: "/") + "/share/locale"
        if !isFolder(installed), let build, isFolder(build) { return build }
        return installed
    }
}

extension String {
    /// "de_DE" → "de-DE".
    fileprivate func replacingUnderscores() -> String {
        String(map { $0 == "_" ? "-" : $0 })
    }
}
