/// Splits a non-blocking byte stream (the control channel on stdin, a control socket's client)
/// into lines, with bounded memory: a line longer than `maximumLineLength` is reported as too long
/// as soon as it passes the limit, and its bytes up to the next newline are dropped.
package struct LineReader {
    /// One item read from the stream.
    package enum Item: Equatable, Sendable {
        /// A complete line, decoded as UTF-8 (invalid bytes become U+FFFD), without its newline;
        /// `valid` is false for invalid UTF-8.
        case line(String, valid: Bool)
        /// A line that passed the limit; its content is dropped.
        case tooLong
    }

    /// The longest line kept, in bytes.
    package let maximumLineLength: Int
    private var buffer: [UInt8] = []
    private var discarding = false

    /// Creates a reader that keeps lines of up to `maximumLineLength` bytes.
    package init(maximumLineLength: Int) {
        self.maximumLineLength = maximumLineLength
    }

    /// Bytes of a line not yet ended by a newline (0 while a too-long line is being dropped).
    package var partialLength: Int { buffer.count }

    /// Forgets the part line held (the stream ended in the middle of it).
    package mutating func dropPartialLine() {
        buffer.removeAll()
        discarding = false
    }

    /// Feeds bytes and returns the items they complete.
    package mutating func feed(_ bytes: UnsafeRawBufferPointer) -> [Item] {
        var items: [Item] = []
        for byte in bytes {
            if byte == UInt8(ascii: "\n") {
                if discarding {
                    discarding = false
                } else if let line = String(validating: buffer, as: UTF8.self) {
                    items.append(.line(line, valid: true))
                } else {
                    items.append(.line(String(decoding: buffer, as: UTF8.self), valid: false))
                }
                buffer.removeAll(keepingCapacity: buffer.count < 65_536)
            } else if !discarding {
                if buffer.count >= maximumLineLength {
                    discarding = true
                    buffer.removeAll()
                    items.append(.tooLong)
                } else {
                    buffer.append(byte)
                }
            }
        }
        return items
    }
}
