import BadgeCore

/// A notification body's markup (the Desktop Notifications spec's small XML subset: `<b>`, `<i>`,
/// `<u>`, `<a href>`, `<img src alt>`) as one line of plain text, as dunst's `markup.c` strips it:
/// tags removed, an image kept as its `alt` text, the five XML entities and numeric character
/// references unescaped, and text that is not well-formed left as it came.
enum NotificationMarkup {
    /// The plain text of `body`, on one line (see the type).
    static func plainText(_ body: String) -> String {
        var output = ""
        var index = body.startIndex
        while index < body.endIndex {
            let character = body[index]
            let next = body.index(after: index) < body.endIndex ? body[body.index(after: index)] : " "
            if character == "<", next.isLetter || next == "/" || next == "!", let close = body[index...].firstIndex(of: ">") {
                let tag = body[body.index(after: index)..<close]
                if tag.lowercased().hasPrefix("img"), let alt = attribute("alt", in: tag) { output += unescaped(alt) }
                index = body.index(after: close)
                continue
            }
            if character == "&", let end = body[index...].prefix(12).firstIndex(of: ";"),
               let decoded = entity(body[body.index(after: index)..<end]) {
                output.append(decoded)
                index = body.index(after: end)
                continue
            }
            output.append(character)
            index = body.index(after: index)
        }
        return BadgeItem.cleaned(output, limit: BadgeItem.maximumTextBytes)
    }

    private static func unescaped(_ text: Substring) -> String { plainText(String(text)) }

    /// The value of `name="…"` (or '…') in a tag's text.
    private static func attribute(_ name: String, in tag: Substring) -> Substring? {
        let needle = Array((name + "=").utf8)
        let bytes = Array(tag.utf8)
        guard bytes.count >= needle.count,
              let offset = (0...(bytes.count - needle.count)).first(where: { Array(bytes[$0..<$0 + needle.count]) == needle }),
              let start = tag.utf8.index(tag.startIndex, offsetBy: offset + needle.count, limitedBy: tag.endIndex) else { return nil }
        let rest = tag[start...]
        guard let quote = rest.first, quote == "\"" || quote == "'" else { return nil }
        let value = rest.dropFirst()
        guard let end = value.firstIndex(of: quote) else { return nil }
        return value[..<end]
    }

    /// `amp`, `lt`, `gt`, `quot`, `apos`, `#NN`, `#xNN`.
    private static func entity(_ name: Substring) -> Character? {
        switch name {
        case "amp": return "&"
        case "lt": return "<"
        case "gt": return ">"
        case "quot": return "\""
        case "apos": return "'"
        default:
            guard name.hasPrefix("#") else { return nil }
            let digits = name.dropFirst()
            let number = digits.first == "x" || digits.first == "X" ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits)
            return number.flatMap(Unicode.Scalar.init).map(Character.init)
        }
    }
}
