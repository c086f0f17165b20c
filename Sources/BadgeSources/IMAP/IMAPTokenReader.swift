/// Reads IMAP's tokens from one framed response: atoms (with `[…]` sections inside, as in
/// `BODY[HEADER.FIELDS (FROM)]`), quoted strings with `\"` and `\\`, literals `{n}` / `{n+}` with
/// their bytes, parenthesized lists and NIL. Never traps: a malformed response throws.
struct IMAPTokenReader {
    private let bytes: [UInt8]
    var position = 0
    /// How deep lists may nest (a hostile server's `((((…` is refused, not recursed into).
    private static let maximumDepth = 32

    init(_ bytes: [UInt8]) {
        var end = bytes.count
        if end >= 2, bytes[end - 2] == 13, bytes[end - 1] == 10 { end -= 2 } else if end >= 1, bytes[end - 1] == 10 { end -= 1 }
        self.bytes = Array(bytes[0..<end])
    }

    var peek: UInt8? { position < bytes.count ? bytes[position] : nil }

    /// Skips one or more spaces; false when there was none.
    @discardableResult
    mutating func skipSpace() -> Bool {
        let start = position
        while peek == 32 { position += 1 }
        return position > start
    }

    /// The next run of bytes up to a space (the tag, the status word).
    mutating func word() -> String? {
        let start = position
        while let byte = peek, byte != 32 { position += 1 }
        return position > start ? String(decoding: bytes[start..<position], as: UTF8.self) : nil
    }

    /// The rest as text (a status response's human part).
    mutating func restText() -> String {
        defer { position = bytes.count }
        return String(decoding: bytes[min(position, bytes.count)...], as: UTF8.self)
    }

    /// A response code `[…]` (brackets nest not), without its brackets.
    mutating func bracketed() throws(IMAPProtocolError) -> String {
        position += 1
        let start = position
        while let byte = peek, byte != UInt8(ascii: "]") { position += 1 }
        guard peek == UInt8(ascii: "]") else { throw IMAPProtocolError("a response code without its closing bracket") }
        defer { position += 1 }
        return String(decoding: bytes[start..<position], as: UTF8.self)
    }

    /// Every value up to the end.
    mutating func values() throws(IMAPProtocolError) -> [IMAPValue] {
        var out: [IMAPValue] = []
        while true {
            skipSpace()
            guard peek != nil else { return out }
            out.append(try value(depth: 0))
        }
    }

    private mutating func value(depth: Int) throws(IMAPProtocolError) -> IMAPValue {
        guard let byte = peek else { throw IMAPProtocolError("a response that ends inside a value") }
        switch byte {
        case UInt8(ascii: "("):
            guard depth < Self.maximumDepth else { throw IMAPProtocolError("lists nested more than \(Self.maximumDepth) deep") }
            position += 1
            var items: [IMAPValue] = []
            while true {
                skipSpace()
                guard let next = peek else { throw IMAPProtocolError("a list without its closing parenthesis") }
                if next == UInt8(ascii: ")") { position += 1; return .list(items) }
                items.append(try value(depth: depth + 1))
            }
        case UInt8(ascii: "\""):
            position += 1
            var text: [UInt8] = []
            while let next = peek {
                position += 1
                if next == UInt8(ascii: "\"") { return .string(text) }
                if next == UInt8(ascii: "\\") {
                    guard let escaped = peek else { break }
                    position += 1
                    text.append(escaped)
                } else {
                    text.append(next)
                }
            }
            throw IMAPProtocolError("a quoted string without its closing quote")
        case UInt8(ascii: "{"):
            let start = position + 1
            var end = start
            while end < bytes.count, bytes[end] != UInt8(ascii: "}") { end += 1 }
            var digits = String(decoding: bytes[start..<min(end, bytes.count)], as: UTF8.self)
            if digits.hasSuffix("+") { digits.removeLast() }
            guard end < bytes.count, let count = Int(digits), count >= 0 else { throw IMAPProtocolError("a malformed literal") }
            // "}" CRLF, then the bytes.
            let body = end + 3
            guard body + count <= bytes.count else { throw IMAPProtocolError("a literal longer than its response") }
            position = body + count
            return .string(Array(bytes[body..<(body + count)]))
        case UInt8(ascii: ")"):
            throw IMAPProtocolError("a closing parenthesis without its opening one")
        default:
            let start = position
            var section = 0
            while let next = peek {
                if next == UInt8(ascii: "[") { section += 1 } else if next == UInt8(ascii: "]") { section = max(0, section - 1) }
                if section == 0, next == 32 || next == UInt8(ascii: "(") || next == UInt8(ascii: ")") { break }
                position += 1
            }
            let text = String(decoding: bytes[start..<position], as: UTF8.self)
            return text.uppercased() == "NIL" ? .none : .atom(text)
        }
    }
}
