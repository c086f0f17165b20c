import BadgeCore

/// An `Exec` value split into an argument vector, for starting the program without a shell, by
/// the Desktop Entry specification's rules: arguments are separated by spaces; an argument in
/// double quotes may hold spaces and the reserved characters, and inside it `\"`, `` \` ``, `\$`
/// and `\\` stand for the character after the backslash (this applies after the string escapes,
/// so a file writes a literal backslash in quotes as four). Field codes are then expanded with no
/// files or URLs to open: `%f %F %u %U` drop out (an argument that is only one of them is removed),
/// `%i` becomes `--icon ICON` (nothing without an icon), `%c` the translated name, `%k` the desktop
/// file's path, `%%` a `%`; the deprecated `%d %D %n %N %v %m` drop out.
package enum ExecLine {
    /// What the field codes stand for.
    package struct Context: Sendable {
        /// `Icon`, for `%i`.
        package var icon: String?
        /// The translated `Name`, for `%c`.
        package var name: String
        /// The desktop file's path, for `%k`.
        package var path: String

        /// Creates the values.
        package init(icon: String?, name: String, path: String) {
            self.icon = icon
            self.name = name
            self.path = path
        }
    }

    /// The argument vector of `exec` (already string-unescaped); a reason for an unterminated
    /// quote, an unknown field code, or nothing to run.
    package static func arguments(_ exec: String, context: Context) throws(ReasonError) -> [String] {
        var expanded: [String] = []
        for word in try split(exec) {
            expanded += try expand(word, context: context)
        }
        guard let program = expanded.first, !program.isEmpty else { throw ReasonError("Exec names no program") }
        return expanded
    }

    /// The quoting rules alone: the words of `exec`.
    package static func split(_ exec: String) throws(ReasonError) -> [String] {
        var words: [String] = []
        var word = ""
        var inWord = false, quoted = false, escaped = false
        for character in exec {
            if quoted {
                if escaped {
                    if !"\"`$\\".contains(character) { word.append("\\") }
                    word.append(character)
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else if character == "\"" {
                    quoted = false
                } else {
                    word.append(character)
                }
            } else if character == " " || character == "\t" || character == "\n" {
                if inWord { words.append(word) }
                word = ""
                inWord = false
            } else if character == "\"" {
                quoted = true
                inWord = true
            } else {
                word.append(character)
                inWord = true
            }
        }
        guard !quoted else { throw ReasonError("Exec has a quote that is not closed: \(InputEcho.quoted(exec, limit: 80))") }
        if inWord { words.append(word) }
        return words
    }

    /// The field codes of one word expanded: zero, one or two arguments.
    private static func expand(_ word: String, context: Context) throws(ReasonError) -> [String] {
        guard word.contains("%") else { return [word] }
        if word == "%i" { return context.icon.map { ["--icon", $0] } ?? [] }
        var result = ""
        var percent = false
        var onlyDroppedCodes = true  // a word such as %U, or %f%u: no argument at all
        for character in word {
            if !percent {
                if character == "%" { percent = true } else { result.append(character); onlyDroppedCodes = false }
                continue
            }
            percent = false
            switch character {
            case "f", "F", "u", "U", "i", "d", "D", "n", "N", "v", "m": continue
            case "%": result.append("%")
            case "c": result += context.name
            case "k": result += context.path
            default: throw ReasonError("Exec has an unknown field code \(InputEcho.quoted("%" + String(character)))")
            }
            onlyDroppedCodes = false
        }
        guard !percent else { throw ReasonError("Exec ends in a lone %") }
        return onlyDroppedCodes ? [] : [result]
    }
}
