/// One response of an IMAP server (RFC 9051 §7), parsed: tagged, untagged or a continuation
/// request. Literals (`{n}` followed by n bytes) are read as strings; the values are bounded by
/// the framer that produced the bytes (``IMAPResponseFramer``).
import BadgeCore

package struct IMAPResponse: Equatable, Sendable {
    /// Who the response answers.
    package enum Kind: Equatable, Sendable {
        /// `* …`: data or a status the server sends when it likes.
        case untagged
        /// `A12 …`: the end of the command tagged so.
        case tagged(String)
        /// `+ …`: the server waits for more of the command (or IDLE has begun).
        case continuation
    }

    /// A status response's condition.
    package enum Status: String, Equatable, Sendable {
        case ok = "OK", no = "NO", bad = "BAD", bye = "BYE", preauth = "PREAUTH"
    }

    /// The tag, `*` or `+`.
    package var kind: Kind
    /// OK, NO, BAD, BYE or PREAUTH for status responses; nil for data (`* 3 EXISTS`).
    package var status: Status?
    /// The response code's words for status responses (`CAPABILITY IMAP4rev1 IDLE`,
    /// `AUTHENTICATIONFAILED`), uppercased as sent; nil when there is none.
    package var code: String?
    /// The human-readable text of a status response or continuation.
    package var text: String
    /// For data responses: the values after the `*` (`["3", "EXISTS"]`, `["SEARCH", "4", "9"]`,
    /// `["STATUS", "INBOX", (UNSEEN 2)]`, `["12", "FETCH", (UID 5 …)]`).
    package var values: [IMAPValue]

    package init(kind: Kind, status: Status? = nil, code: String? = nil, text: String = "", values: [IMAPValue] = []) {
        self.kind = kind
        self.status = status
        self.code = code
        self.text = text
        self.values = values
    }

    /// The data's name, uppercased: "EXISTS" for `* 3 EXISTS`, "SEARCH", "CAPABILITY", "FETCH".
    package var dataName: String? {
        guard status == nil, let first = values.first?.atom else { return nil }
        if first.allSatisfy(\.isNumber), values.count > 1 { return values[1].atom?.uppercased() }
        return first.uppercased()
    }

    /// The number before the name (`3` in `* 3 EXISTS`).
    package var dataNumber: Int? {
        guard status == nil, let first = values.first?.atom, first.allSatisfy(\.isNumber) else { return nil }
        return Int(first)
    }

    /// The capabilities this response announces (a CAPABILITY response or code), uppercased.
    package var capabilities: Set<String>? {
        if let code, code.uppercased().hasPrefix("CAPABILITY ") {
            return Set(code.uppercased().split(separator: " ").dropFirst().map(String.init))
        }
        if dataName == "CAPABILITY" {
            return Set(values.dropFirst().compactMap { $0.atom?.uppercased() })
        }
        return nil
    }

    /// Parses one whole response (its CRLF and literals included, as the framer cut it).
    /// - Throws: ``IMAPProtocolError`` for a line that is no IMAP response.
    package static func parse(_ bytes: [UInt8]) throws(IMAPProtocolError) -> IMAPResponse {
        var reader = IMAPTokenReader(bytes)
        guard let first = reader.word(), !first.isEmpty else { throw IMAPProtocolError("an empty response") }
        if first == "+" {
            reader.skipSpace()
            return IMAPResponse(kind: .continuation, text: reader.restText())
        }
        let kind: Kind = first == "*" ? .untagged : .tagged(first)
        guard reader.skipSpace() else { throw IMAPProtocolError("a response with nothing after its tag \(InputEcho.quoted(first, limit: 20))") }
        let mark = reader.position
        if let word = reader.word(), let status = Status(rawValue: word.uppercased()) {
            reader.skipSpace()
            var code: String?
            if reader.peek == UInt8(ascii: "[") { code = try reader.bracketed() ; reader.skipSpace() }
            return IMAPResponse(kind: kind, status: status, code: code, text: reader.restText())
        }
        guard kind == .untagged else {
            throw IMAPProtocolError("a line that is no IMAP response (\(InputEcho.quoted(String(decoding: bytes.last == 10 ? bytes.dropLast(bytes.dropLast().last == 13 ? 2 : 1) : bytes[...], as: UTF8.self), limit: 48)))")
        }
        reader.position = mark
        return IMAPResponse(kind: kind, values: try reader.values())
    }
}

/// A value in an IMAP data response.
package enum IMAPValue: Equatable, Sendable {
    /// An atom or number (`EXISTS`, `42`, `\Seen`, `BODY[HEADER.FIELDS (FROM)]`).
    case atom(String)
    /// A quoted string or a literal, as bytes.
    case string([UInt8])
    /// A parenthesized list.
    case list([IMAPValue])
    /// NIL.
    case none

    /// The atom's text, if it is one.
    package var atom: String? { if case .atom(let text) = self { text } else { nil } }
    /// The list's values, if it is one.
    package var list: [IMAPValue]? { if case .list(let values) = self { values } else { nil } }
    /// An atom's or a string's text (strings decoded as UTF-8, which IMAP4rev2 and UTF8=ACCEPT allow).
    package var text: String? {
        switch self {
        case .atom(let text): text
        case .string(let bytes): String(decoding: bytes, as: UTF8.self)
        case .list, .none: nil
        }
    }
    /// A string's or atom's bytes.
    package var bytes: [UInt8]? {
        switch self {
        case .atom(let text): Array(text.utf8)
        case .string(let bytes): bytes
        case .list, .none: nil
        }
    }
}

/// A server that speaks no IMAP (or breaks its rules): what was wrong, for the badge's error.
package struct IMAPProtocolError: Error, Equatable, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}
