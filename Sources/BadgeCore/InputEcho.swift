/// Text from outside (a command line, an id, a key, a path, a peer's or a server's words) made fit
/// to stand inside a message: every message that echoes input (standard error, `msg`'s errors,
/// D-Bus error replies, the event stream's reasons, config and source errors) goes through here,
/// so a newline in input can never forge a second line in a log, an escape sequence never reaches
/// a terminal, and no input makes a message long.
///
/// Escaped are the C0 and C1 controls and DEL (as `\n`, `\r`, `\t` or `\u{1B}`), the line and
/// paragraph separators U+2028 and U+2029, the bidirectional controls (U+200E, U+200F,
/// U+202A–U+202E, U+2066–U+2069: they reorder what follows on the line), and the backslash itself
/// (`\\`), so the escaped text says unambiguously what was given. The length is capped in Unicode
/// scalars written (a character may be made of many; an escape counts as what it writes), with
/// `…` where text was cut.
package enum InputEcho {
    /// How many scalars of input a message shows by default.
    package static let defaultLimit = 40

    /// `text` escaped and capped at `limit` scalars of output, in double quotes (a quote in it escaped too):
    /// `"inc\nmail"`.
    package static func quoted(_ text: some StringProtocol, limit: Int = defaultLimit) -> String {
        "\"" + escaped(text, limit: limit, quote: true) + "\""
    }

    /// `text` escaped and capped at `limit` scalars, without quotes (for a name in a path or a
    /// field, say).
    package static func escaped(_ text: some StringProtocol, limit: Int = defaultLimit, quote: Bool = false) -> String {
        written(text, limit: limit) { scalar in
            switch scalar {
            case "\\": return "\\\\"
            case "\"" where quote: return "\\\""
            default: return nil
            }
        }
    }

    /// A whole message made one line of at most `limit` scalars: what the outputs (standard error,
    /// D-Bus error replies) do last, so a message built from input that was not escaped still
    /// cannot span lines. Unlike ``escaped(_:limit:quote:)`` it leaves backslashes alone (the
    /// message's echoed parts were escaped already).
    package static func line(_ message: some StringProtocol, limit: Int = 1000) -> String {
        guard message.unicodeScalars.contains(where: needsEscape) || message.unicodeScalars.count > limit else {
            return String(message)
        }
        return written(message, limit: limit) { _ in nil }
    }

    /// `text` with every scalar that ``needsEscape(_:)`` escaped (and those `extra` names written
    /// as it says), cut with `…` before the output would pass `limit` scalars.
    private static func written(_ text: some StringProtocol, limit: Int, extra: (Unicode.Scalar) -> String?) -> String {
        var out = ""
        var length = 0
        for scalar in text.unicodeScalars {
            let piece: String?
            switch scalar {
            case "\n": piece = "\\n"
            case "\r": piece = "\\r"
            case "\t": piece = "\\t"
            case _ where needsEscape(scalar): piece = "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            default: piece = extra(scalar)
            }
            let size = piece?.unicodeScalars.count ?? 1
            guard length + size <= max(0, limit) else { out += "…"; break }
            length += size
            if let piece { out += piece } else { out.unicodeScalars.append(scalar) }
        }
        return out
    }

    /// Whether `scalar` may not stand as itself in a one-line message.
    package static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }
}
