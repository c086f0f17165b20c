/// Cuts a server's byte stream into whole responses: a line up to CRLF, and when the line ends
/// with a literal's announcement (`{n}`), those n bytes and the rest of the line after them, as
/// often as it takes. Bounded: a response longer than ``maximumResponse`` bytes (an endless line,
/// a literal of a gigabyte) is a protocol error, never an allocation the server chooses.
package struct IMAPResponseFramer {
    /// The longest response taken (a header block of 64 KiB and its FETCH around it fit).
    package static let maximumResponse = 256 * 1024
    private var buffer: [UInt8] = []
    /// Where the scan for the current response's end goes on from.
    private var scanned = 0

    package init() {}

    /// Takes bytes that arrived and returns the responses they complete.
    /// - Throws: ``IMAPProtocolError`` when a response passes the bound.
    package mutating func append(_ bytes: some Collection<UInt8>) throws(IMAPProtocolError) -> [[UInt8]] {
        buffer.append(contentsOf: bytes)
        var out: [[UInt8]] = []
        while let end = try responseEnd() {
            out.append(Array(buffer[0..<end]))
            buffer.removeFirst(end)
            scanned = 0
        }
        if buffer.count > Self.maximumResponse {
            throw IMAPProtocolError("a response longer than \(Self.maximumResponse / 1024) KiB")
        }
        return out
    }

    /// The end (exclusive) of the first whole response in the buffer, or nil while it is partial.
    private mutating func responseEnd() throws(IMAPProtocolError) -> Int? {
        var index = scanned
        while index + 1 < buffer.count {
            if buffer[index] == 13, buffer[index + 1] == 10 {
                if let count = literalCount(endingAt: index) {
                    guard count <= Self.maximumResponse else {
                        throw IMAPProtocolError("a literal of \(count) bytes, more than \(Self.maximumResponse / 1024) KiB")
                    }
                    let next = index + 2 + count
                    guard next <= buffer.count else { scanned = index; return nil }
                    index = next
                    continue
                }
                return index + 2
            }
            index += 1
        }
        scanned = max(0, index)
        return nil
    }

    /// The n of a `{n}` or `{n+}` just before `crlf`, if the line ends with one.
    private func literalCount(endingAt crlf: Int) -> Int? {
        guard crlf > 0, buffer[crlf - 1] == UInt8(ascii: "}") else { return nil }
        var start = crlf - 2
        var digits = 0
        while start >= 0, (buffer[start] >= 48 && buffer[start] <= 57) || buffer[start] == UInt8(ascii: "+") {
            if buffer[start] != UInt8(ascii: "+") { digits += 1 }
            if digits > 18 { return Int.max }
            start -= 1
        }
        guard start >= 0, buffer[start] == UInt8(ascii: "{"), digits > 0 else { return nil }
        var text = String(decoding: buffer[(start + 1)..<(crlf - 1)], as: UTF8.self)
        if text.hasSuffix("+") { text.removeLast() }
        return Int(text)
    }
}
