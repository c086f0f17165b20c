/// The commands polybar and lemonbar run when a button's text in the bar is clicked: the same
/// program's `msg` on the same instance's socket, `click ID` for the left button (the button's
/// click action, as on the window), `peek ID` for the right one (the peek at the pointer), and on
/// polybar also the middle button and the wheel (`click ID middle|up|down`). Both bars hand the
/// command to `sh` (lemonbar prints it for a `| sh` after it), so each word is quoted for it.
struct BarActions: Equatable {
    /// The words every command starts with, the program and its `msg` options, quoted for `sh`
    /// once (each line of a polybar stream holds twenty commands; quoting the long paths for
    /// each was a third of the line's cost).
    private let quotedPrefix: String

    /// The commands of the program at `program` (an absolute path: a bar's PATH may not hold
    /// it) talking to the socket at `socket`.
    init(program: String, socket: String) {
        quotedPrefix = [program, "msg", "--socket", socket].map(Self.shellQuoted).joined(separator: " ")
    }

    /// The shell command for `words` after the prefix.
    func command(_ words: [String]) -> String {
        quotedPrefix + " " + words.map(Self.shellQuoted).joined(separator: " ")
    }

    /// `text` inside the action tags for button `id` in `format`; just `text` when a tag cannot
    /// hold the command (a `}` or a control character in it: the bars end a tag at the first `}`).
    func wrap(_ text: String, for id: String, in format: BarFormat) -> String {
        let buttons: [(tag: String, words: [String])] = format == .lemonbar
            // lemonbar keeps 10 clickable areas unless started with -a: two per button.
            ? [("A1", ["click", id]), ("A3", ["peek", id])]
            : [("A1", ["click", id]), ("A2", ["click", id, "middle"]), ("A3", ["peek", id]),
               ("A4", ["click", id, "up"]), ("A5", ["click", id, "down"])]
        guard Self.fitsInATag(quotedPrefix), Self.fitsInATag(id) else { return text }
        // Both bars end the command at a ':' unless it is written "\:".
        let prefix = quotedPrefix.replacingAll(":", with: "\\:")
        var opening = ""
        for (tag, words) in buttons {
            opening += "%{\(tag):\(prefix) \(words.map(Self.shellQuoted).joined(separator: " ").replacingAll(":", with: "\\:")):}"
        }
        return opening + text + String(repeating: "%{A}", count: buttons.count)
    }

    /// Whether `text` can stand in an action tag: no `}` (the bars end a tag there) and no
    /// control character.
    private static func fitsInATag(_ text: String) -> Bool {
        !text.contains(where: { $0 == "}" || $0.isNewline || ($0.asciiValue ?? 32) < 32 })
    }

    /// `word` as one word for `sh`: as it is when it holds only safe characters, else in single
    /// quotes (a quote inside written `'\''`).
    static func shellQuoted(_ word: String) -> String {
        let safe = !word.isEmpty && word.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "/._-=,+@%".unicodeScalars.contains(scalar))
        }
        return safe ? word : "'" + word.replacingAll("'", with: #"'\''"#) + "'"
    }
}
