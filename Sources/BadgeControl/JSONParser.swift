import BadgeCore

/// Why a JSON text was rejected: the reason and where it was found, as an editor counts
/// (line and column, from 1; the column in characters) and as a byte offset.
package struct JSONParseError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What was wrong ("expected ':' after an object key").
    package var reason: String { reasonSentence.english }
    /// What was wrong, to say in the user's language.
    package let reasonSentence: Sentence
    /// The byte offset in the text.
    package let offset: Int
    /// The line, from 1.
    package var line = 1
    /// The column in characters (Unicode scalars), from 1.
    package var column = 1
    /// The text ended before its value did (empty, or cut anywhere): more text could still make
    /// it valid, as when a file is read while it is being written. False for a mistake before the
    /// end, which no text appended can mend.
    package var ranOut = false

    /// An error at `offset`; `bytes` gives its line and column. `ranOut`: see ``ranOut``.
    package init(reason: String, offset: Int, in bytes: [UInt8] = [], ranOut: Bool = false) {
        self.init(said: Sentence(verbatim: reason), offset: offset, in: bytes, ranOut: ranOut)
    }

    /// An error at `offset` for a reason said as a sentence; `bytes` gives its line and column.
    package init(said reason: Sentence, offset: Int, in bytes: [UInt8] = [], ranOut: Bool = false) {
        reasonSentence = reason
        self.offset = offset
        self.ranOut = ranOut
        let before = bytes.prefix(max(0, min(offset, bytes.count)))
        let lineStart = (before.lastIndex(of: 0x0A).map { $0 + 1 }) ?? 0
        line = before.reduce(1) { $1 == 0x0A ? $0 + 1 : $0 }
        // A column counts characters: continuation bytes (10xxxxxx) are part of the one before.
        column = before[lineStart...].reduce(1) { ($1 & 0xC0) == 0x80 ? $0 : $0 + 1 }
    }

    /// "REASON at line L, column C".
    package var description: String { sentence.english }

    /// "REASON at line L, column C", to say in the user's language.
    package var sentence: Sentence {
        Sentence("%1$s at line %2$s, column %3$s", .sentence(reasonSentence), .number(line), .number(column))
    }
}

extension JSONValue {
    /// Parses a JSON text (RFC 8259) without Foundation, so configuration files cost the demo no extra
    /// libraries. Integers that fit in `Int` become `.int`, other numbers `.double`; object keys keep
    /// their order. Nesting deeper than 64 levels, a duplicate key and trailing text are errors.
    package static func parse(_ bytes: [UInt8]) throws(JSONParseError) -> JSONValue {
        var parser = JSONTextParser(bytes: bytes)
        parser.skipSpace()
        let value = try parser.parseValue(depth: 0)
        parser.skipSpace()
        guard parser.index == bytes.count else { throw parser.error(Sentence("unexpected text after the JSON value")) }
        return value
    }

    /// The member `key` of an object (nil for other values or a missing key).
    package subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.0 == key }?.1
    }
}

private struct JSONTextParser {
    let bytes: [UInt8]
    var index = 0

    /// An error here; the text ran out when it is at its end, unless `ranOut` says otherwise (a
    /// mistake found only once its last byte was read: a leading zero, a duplicate key).
    func error(_ reason: Sentence, ranOut: Bool? = nil) -> JSONParseError {
        JSONParseError(said: reason, offset: index, in: bytes, ranOut: ranOut ?? (index >= bytes.count))
    }

    mutating func skipSpace() {
        while index < bytes.count, [0x20, 0x09, 0x0a, 0x0d].contains(bytes[index]) { index += 1 }
    }

    mutating func parseValue(depth: Int) throws(JSONParseError) -> JSONValue {
        guard depth <= 64 else { throw error(Sentence("nested more than 64 levels deep")) }
        guard index < bytes.count else { throw error(Sentence("unexpected end of the text")) }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject(depth: depth)
        case UInt8(ascii: "["): return try parseArray(depth: depth)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expect("true"); return .bool(true)
        case UInt8(ascii: "f"): try expect("false"); return .bool(false)
        case UInt8(ascii: "n"): try expect("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw error(Sentence("unexpected character %s", .text(InputEcho.quoted(String(Unicode.Scalar(bytes[index]))))))
        }
    }

    mutating func expect(_ word: String) throws(JSONParseError) {
        for byte in word.utf8 {
            guard index < bytes.count, bytes[index] == byte else { throw error(Sentence("expected %s", .text(word))) }
            index += 1
        }
    }

    mutating func parseObject(depth: Int) throws(JSONParseError) -> JSONValue {
        index += 1
        var members: [(String, JSONValue)] = []
        var keys = Set<String>()
        skipSpace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
        while true {
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw error(Sentence("expected a string key")) }
            let key = try parseString()
            guard keys.insert(key).inserted else { throw error(Sentence("duplicate key \"%s\"", .text(InputEcho.escaped(key, quote: true))), ranOut: false) }
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error(Sentence("expected ':' after an object key")) }
            index += 1
            skipSpace()
            members.append((key, try parseValue(depth: depth + 1)))
            skipSpace()
            guard index < bytes.count else { throw error(Sentence("unexpected end of the text in an object")) }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
            throw error(Sentence("expected ',' or '}' in an object"))
        }
    }

    mutating func parseArray(depth: Int) throws(JSONParseError) -> JSONValue {
        index += 1
        var items: [JSONValue] = []
        skipSpace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") { index += 1; return .array(items) }
        while true {
            skipSpace()
            items.append(try parseValue(depth: depth + 1))
            skipSpace()
            guard index < bytes.count else { throw error(Sentence("unexpected end of the text in an array")) }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "]") { index += 1; return .array(items) }
            throw error(Sentence("expected ',' or ']' in an array"))
        }
    }

    mutating func parseString() throws(JSONParseError) -> String {
        index += 1
        var scalars = String.UnicodeScalarView()
        var raw: [UInt8] = []
        func flush() throws(JSONParseError) {
            guard !raw.isEmpty else { return }
            guard let text = String(validating: raw, as: UTF8.self) else { throw error(Sentence("a string is not valid UTF-8")) }
            scalars.append(contentsOf: text.unicodeScalars)
            raw.removeAll(keepingCapacity: true)
        }
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                try flush()
                return String(scalars)
            case UInt8(ascii: "\\"):
                try flush()
                index += 1
                guard index < bytes.count else { break }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""): scalars.append("\"")
                case UInt8(ascii: "\\"): scalars.append("\\")
                case UInt8(ascii: "/"): scalars.append("/")
                case UInt8(ascii: "b"): scalars.append("\u{8}")
                case UInt8(ascii: "f"): scalars.append("\u{c}")
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "u"):
                    var code = try parseHex4()
                    if (0xD800...0xDBFF).contains(code) {
                        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                            throw error(Sentence("a lone UTF-16 surrogate in a string"))
                        }
                        index += 2
                        let low = try parseHex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw error(Sentence("a lone UTF-16 surrogate in a string")) }
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let scalar = Unicode.Scalar(code) else { throw error(Sentence("a lone UTF-16 surrogate in a string")) }
                    scalars.append(scalar)
                default: throw error(Sentence("unknown escape in a string"))
                }
            case 0..<0x20:
                throw error(Sentence("a control character in a string"))
            default:
                raw.append(byte)
                index += 1
            }
        }
        throw error(Sentence("a string is not closed"))
    }

    mutating func parseHex4() throws(JSONParseError) -> UInt32 {
        guard index + 4 <= bytes.count else {
            // `\u00` at the end of the text is a cut, not a mistake, when what is there is hex.
            let hex = bytes[index...].allSatisfy { (0x30...0x39).contains($0) || (0x41...0x46).contains($0) || (0x61...0x66).contains($0) }
            throw error(Sentence("expected four hex digits after \\u"), ranOut: hex)
        }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw error(Sentence("expected four hex digits after \\u"))
            }
            value = value * 16 + digit
            index += 1
        }
        return value
    }

    mutating func parseNumber() throws(JSONParseError) -> JSONValue {
        let start = index
        var isInteger = true
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        func digits() -> Int {
            let first = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            return index - first
        }
        let integerDigits = digits()
        guard integerDigits > 0 else { throw error(Sentence("expected digits in a number")) }
        if integerDigits > 1, bytes[index - integerDigits] == UInt8(ascii: "0") { throw error(Sentence("a number with a leading zero"), ranOut: false) }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard digits() > 0 else { throw error(Sentence("expected digits after the decimal point")) }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { throw error(Sentence("expected digits in an exponent")) }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if isInteger, let value = Int(text) { return .int(value) }
        guard let value = Double(text), value.isFinite else { throw JSONParseError(reason: "number \(text.prefix(40)) is out of range", offset: start, in: bytes) }
        return .double(value)
    }
}

extension JSONValue {
    /// Parses one JSON text.
    package init(parsing text: String) throws(JSONParseError) {
        self = try JSONValue.parse(Array(text.utf8))
    }

    /// The element at `index` of an array, or nil.
    package subscript(index: Int) -> JSONValue? {
        if case .array(let elements) = self, elements.indices.contains(index) { return elements[index] }
        return nil
    }

    /// The string, if this is a string.
    package var string: String? { if case .string(let s) = self { return s }; return nil }
    /// The number (whole numbers too), if this is a number.
    package var double: Double? {
        switch self {
        case .int(let number): return Double(number)
        case .double(let number): return number
        default: return nil
        }
    }
    /// The number as an integer, if this is a number with no fractional part.
    package var int: Int? {
        switch self {
        case .int(let number): return number
        case .double(let number) where number.rounded() == number && abs(number) < 9e15: return Int(number)
        default: return nil
        }
    }
    /// The boolean, if this is a boolean.
    package var bool: Bool? { if case .bool(let b) = self { return b }; return nil }
    /// The elements, if this is an array.
    package var array: [JSONValue]? { if case .array(let a) = self { return a }; return nil }
    /// The members by key, if this is an object (a repeated key keeps its first value).
    package var object: [String: JSONValue]? {
        guard case .object(let members) = self else { return nil }
        return Dictionary(members, uniquingKeysWith: { first, _ in first })
    }
    /// Whether this is JSON `null`.
    package var isNull: Bool { if case .null = self { return true }; return false }
}

extension JSONValue: CustomStringConvertible {
    /// The compact JSON text.
    package var description: String { serialized }
}
