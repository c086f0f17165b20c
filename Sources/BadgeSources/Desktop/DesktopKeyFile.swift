import BadgeCore

/// The `[Desktop Entry]` group of a desktop file, as the Desktop Entry specification (1.5) reads
/// it: `Key=value` and `Key[locale]=value` lines, comments and blank lines skipped, spaces around
/// `=` ignored, every other group ignored. Values are kept raw; ``string(_:)`` applies the
/// string escapes and ``localized(_:locale:)`` the locale matching.
package struct DesktopKeyFile: Sendable {
    /// The group's entries: key → (locale or "" for none) → raw value. The first of duplicates wins.
    private var values: [String: [String: String]] = [:]

    /// Parses `text`; throws a one-line reason for a file that is not a desktop file.
    package init(parsing text: String) throws(ReasonError) {
        var inEntryGroup = false
        var sawEntryGroup = false
        var number = 0
        // "\r\n" is one Character in Swift: both line ends are separators.
        for line in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            number += 1
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            if trimmed.hasPrefix("[") {
                guard trimmed.hasSuffix("]") else { throw ReasonError("line \(number) opens a group without closing it") }
                let name = trimmed.dropFirst().dropLast()
                // Only the first [Desktop Entry] counts; a repeated one is another group.
                inEntryGroup = name == "Desktop Entry" && !sawEntryGroup
                sawEntryGroup = sawEntryGroup || inEntryGroup
                continue
            }
            guard inEntryGroup else { continue }
            guard let equals = line.firstIndex(of: "=") else {
                throw ReasonError("line \(number) is neither a group nor Key=value")
            }
            var key = line[..<equals]
            while key.last == " " || key.last == "\t" { key = key.dropLast() }
            let value = line[line.index(after: equals)...].drop { $0 == " " || $0 == "\t" }
            var locale = ""
            if key.hasSuffix("]"), let open = key.firstIndex(of: "[") {
                locale = String(key[key.index(after: open)..<key.index(before: key.endIndex)])
                key = key[..<open]
            }
            guard !key.isEmpty, key.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }) else {
                throw ReasonError("line \(number) has an invalid key \(InputEcho.quoted(key))")
            }
            if values[String(key), default: [:]][locale] == nil {
                values[String(key), default: [:]][locale] = String(value)
            }
        }
        guard sawEntryGroup else { throw ReasonError("it has no [Desktop Entry] group") }
    }

    /// The value of `key` without a locale, unescaped; nil when absent.
    package func string(_ key: String) -> String? {
        values[key]?[""].map(Self.unescape)
    }

    /// The value of `key` for `locale` (an `LC_MESSAGES` value such as "de_DE.UTF-8@euro"), by the
    /// specification's order: `lang_COUNTRY@MODIFIER`, `lang_COUNTRY`, `lang@MODIFIER`, `lang`,
    /// then the value without a locale. Unescaped; nil when absent.
    package func localized(_ key: String, locale: String?) -> String? {
        guard let variants = values[key] else { return nil }
        for candidate in Self.localeCandidates(locale) {
            if let value = variants[candidate] { return Self.unescape(value) }
        }
        return variants[""].map(Self.unescape)
    }

    /// `key` as a boolean (`true`/`false`, and the old `1`/`0`); nil when absent, a reason when
    /// it is something else.
    package func boolean(_ key: String) throws(ReasonError) -> Bool? {
        guard let value = string(key) else { return nil }
        switch value {
        case "true", "1": return true
        case "false", "0": return false
        default: throw ReasonError("\(key) is \(InputEcho.quoted(value)), not true or false")
        }
    }

    /// The locale names to look for, best first ("de_DE@euro", "de_DE", "de@euro", "de"); none
    /// for nil, "C" and "POSIX".
    package static func localeCandidates(_ locale: String?) -> [String] {
        guard let locale, case var rest = Substring(locale), !rest.isEmpty, rest != "C", rest != "POSIX" else { return [] }
        var modifier: Substring?
        if let at = rest.firstIndex(of: "@") {
            modifier = rest[rest.index(after: at)...]
            rest = rest[..<at]
        }
        if let dot = rest.firstIndex(of: ".") { rest = rest[..<dot] }  // the encoding plays no part
        var country: Substring?
        if let underscore = rest.firstIndex(of: "_") {
            country = rest[rest.index(after: underscore)...]
            rest = rest[..<underscore]
        }
        let language = String(rest)
        guard !language.isEmpty else { return [] }
        var candidates: [String] = []
        if let country, let modifier { candidates.append("\(language)_\(country)@\(modifier)") }
        if let country { candidates.append("\(language)_\(country)") }
        if let modifier { candidates.append("\(language)@\(modifier)") }
        candidates.append(language)
        return candidates
    }

    /// The string escapes: `\s` space, `\n` newline, `\t` tab, `\r` carriage return, `\\`
    /// backslash. Any other backslash is kept with what follows it (so an `Exec` line's quoting
    /// escapes, `\"` and `\$`, reach its own rules).
    package static func unescape(_ raw: String) -> String {
        guard raw.contains("\\") else { return raw }
        var result = ""
        var escaped = false
        for character in raw {
            if escaped {
                escaped = false
                switch character {
                case "s": result.append(" ")
                case "n": result.append("\n")
                case "t": result.append("\t")
                case "r": result.append("\r")
                case "\\": result.append("\\")
                default: result.append("\\"); result.append(character)
                }
            } else if character == "\\" {
                escaped = true
            } else {
                result.append(character)
            }
        }
        if escaped { result.append("\\") }
        return result
    }
}
