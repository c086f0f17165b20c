import Glibc
import Testing

/// Every sentence the sources say is in every language's catalogue, translated and not fuzzy:
/// the msgids are the string literals of `Sentence("…")` and `Sentence(one: "…", other: "…", …)`
/// (the app's domain, badge-demo) and of `locale.translate("…", domain: Self.domain)`, read from
/// the sources as xgettext would read them (xgettext has no Swift parser).
@Suite struct CatalogueCoverageTests {
    static let root: String = {
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)
        return parts.joined(separator: "/")
    }()
    static let languages = ["de", "fr", "ja", "zh_CN", "ar"]

    /// One msgid (with its plural msgid) and where it was found.
    struct Msgid: Hashable, CustomStringConvertible {
        let singular: String
        let plural: String?
        var description: String { plural.map { "\"\(singular)\" / \"\($0)\"" } ?? "\"\(singular)\"" }
    }

    @Test("Every msgid of the sources is translated in each language's badge-demo catalogue")
    func everySentenceIsTranslated() throws {
        let msgids = Self.sourceMsgids()
        #expect(msgids.count > 150, "the scan found \(msgids.count) msgids")
        #expect(msgids.contains(Msgid(singular: "unknown option \"%s\"", plural: nil)))
        #expect(msgids.contains(Msgid(singular: "%s min ago", plural: "%s min ago")))
        for language in Self.languages {
            let catalogue = try Self.catalogue(Self.root + "/po/badge-demo/\(language).po")
            for msgid in msgids.sorted(by: { $0.singular < $1.singular }) {
                guard let entry = catalogue[msgid.singular] else {
                    Issue.record("\(language).po lacks \(msgid)")
                    continue
                }
                #expect(entry.plural == msgid.plural, "\(language).po: \(msgid) has plural \(entry.plural ?? "none")")
                #expect(!entry.fuzzy, "\(language).po: \(msgid) is fuzzy")
                #expect(!entry.translations.isEmpty && entry.translations.allSatisfy { !$0.isEmpty },
                        "\(language).po: \(msgid) is not translated")
                #expect(Self.placeholders(entry.translations.last ?? "") == Self.placeholders(msgid.plural ?? msgid.singular),
                        "\(language).po: \(msgid) keeps its placeholders")
            }
        }
    }

    @Test("The scan reads literals as Swift writes them: escapes, multi-line calls, plurals; comments are not msgids")
    func scannerReadsSwiftLiterals() {
        let source = #"""
            /// `Sentence("not this")` in a comment
            throw fail(at, Sentence(
                "expected \"tls\" (port 993)\tor none"))
            Sentence(one: "%s item", other: "%s items", count: n, .number(n))
            locale.translate("Read again", domain: Self.domain)
            """#
        #expect(Self.msgids(in: source) == [Msgid(singular: "expected \"tls\" (port 993)\tor none", plural: nil),
                                            Msgid(singular: "%s item", plural: "%s items"),
                                            Msgid(singular: "Read again", plural: nil)])
    }

    // MARK: The sources

    static func sourceMsgids() -> Set<Msgid> {
        var found = Set<Msgid>()
        for file in swiftFiles(in: root + "/Sources") {
            guard let text = read(file) else { continue }
            found.formUnion(msgids(in: text))
        }
        return found
    }

    /// The msgids in Swift source `text`, in order (lines that are comments left out).
    static func msgids(in text: String) -> [Msgid] {
        let code = text.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.drop(while: { $0 == " " }).hasPrefix("//") }.joined(separator: "\n")
        let characters = Array(code)
        var result: [Msgid] = []
        var index = 0
        func skipSpaces() { while index < characters.count, characters[index].isWhitespace { index += 1 } }
        func literal() -> String? {
            skipSpaces()
            guard index < characters.count, characters[index] == "\"" else { return nil }
            index += 1
            var value = ""
            while index < characters.count, characters[index] != "\"" {
                if characters[index] == "\\", index + 1 < characters.count {
                    switch characters[index + 1] {
                    case "n": value.append("\n")
                    case "t": value.append("\t")
                    case "(": return nil  // interpolation: not a msgid
                    default: value.append(characters[index + 1])
                    }
                    index += 2
                } else {
                    value.append(characters[index])
                    index += 1
                }
            }
            index += 1
            return value
        }
        func word(_ text: String, skippingSpaces: Bool = true) -> Bool {
            if skippingSpaces { skipSpaces() }
            let wanted = Array(text)
            guard index + wanted.count <= characters.count, Array(characters[index..<index + wanted.count]) == wanted else { return false }
            index += wanted.count
            return true
        }
        while index < characters.count {
            let start = index
            let previous = start == 0 ? " " : characters[start - 1]
            guard !(previous.isLetter || previous.isNumber || previous == "_" || previous == ".") else {
                index += 1
                continue
            }
            if word("Sentence(", skippingSpaces: false) {
                if word("one:"), let one = literal(), word(","), word("other:"), let other = literal() {
                    result.append(Msgid(singular: one, plural: other))
                } else if let single = literal() {
                    result.append(Msgid(singular: single, plural: nil))
                }
            } else if word("locale.translate(", skippingSpaces: false), let single = literal(), word(","), word("domain:"), word("Self.domain") {
                result.append(Msgid(singular: single, plural: nil))
            } else {
                index = start + 1
            }
        }
        return result
    }

    static func swiftFiles(in folder: String) -> [String] {
        guard let listing = opendir(folder) else { return [] }
        defer { closedir(listing) }
        var files: [String] = []
        while let entry = readdir(listing) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
            guard name != ".", name != ".." else { continue }
            let path = folder + "/" + name
            if entry.pointee.d_type == UInt8(DT_DIR) { files += swiftFiles(in: path) } else if name.hasSuffix(".swift") { files.append(path) }
        }
        return files
    }

    static func read(_ path: String) -> String? {
        guard let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = fread(&buffer, 1, buffer.count, file)
            if count <= 0 { break }
            bytes += buffer[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    // MARK: The catalogues

    struct Entry {
        var plural: String?
        var translations: [String] = []
        var fuzzy = false
    }

    /// A .po file's entries by msgid (the header left out).
    static func catalogue(_ path: String) throws -> [String: Entry] {
        let text = try #require(read(path), "cannot read \(path)")
        var entries: [String: Entry] = [:]
        var msgid: String?
        var entry = Entry()
        var field = ""
        var fuzzy = false
        func finish() {
            if let msgid, !msgid.isEmpty { entries[msgid] = entry }
            msgid = nil
            entry = Entry()
        }
        func unquote(_ line: Substring) -> String {
            guard let first = line.firstIndex(of: "\""), let last = line.lastIndex(of: "\""), first < last else { return "" }
            var value = ""
            var escaped = false
            for character in line[line.index(after: first)..<last] {
                if escaped {
                    value.append(character == "n" ? "\n" : character == "t" ? "\t" : character)
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else {
                    value.append(character)
                }
            }
            return value
        }
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("#,") {
                fuzzy = line.contains("fuzzy")
            } else if line.hasPrefix("msgid_plural ") {
                entry.plural = unquote(line)
                field = "plural"
            } else if line.hasPrefix("msgid ") {
                finish()
                msgid = unquote(line)
                entry.fuzzy = fuzzy
                fuzzy = false
                field = "msgid"
            } else if line.hasPrefix("msgstr") {
                entry.translations.append(unquote(line))
                field = "msgstr"
            } else if line.hasPrefix("\"") {
                switch field {
                case "msgid": msgid = (msgid ?? "") + unquote(line)
                case "plural": entry.plural = (entry.plural ?? "") + unquote(line)
                case "msgstr": if !entry.translations.isEmpty { entry.translations[entry.translations.count - 1] += unquote(line) }
                default: break
                }
            }
        }
        finish()
        return entries
    }

    /// The set of a format's placeholders ("%s" counted, "%1$s" … by number).
    static func placeholders(_ format: String) -> [String] {
        var found: [String] = []
        let characters = Array(format)
        var index = 0
        while index + 1 < characters.count {
            if characters[index] == "%" {
                if characters[index + 1] == "%" { index += 2; continue }
                var end = index + 1
                while end < characters.count, characters[end] != "s" { end += 1 }
                found.append(String(characters[index...min(end, characters.count - 1)]))
                index = end + 1
            } else {
                index += 1
            }
        }
        return Array(Set(found)).sorted() + (found.filter { $0 == "%s" }.count > 1 ? ["%s×\(found.filter { $0 == "%s" }.count)"] : [])
    }
}
