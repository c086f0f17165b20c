import Glibc

/// Splits a non-blocking byte stream (the control channel on stdin) into lines, with bounded memory:
/// a line longer than `maximumLineLength` is reported as too long and its bytes are dropped.
struct LineReader {
    /// One item read from the stream.
    enum Item: Equatable {
        /// A complete line, decoded as UTF-8 (invalid bytes become U+FFFD), without its newline.
        case line(String, valid: Bool)
        /// A line that exceeded the limit; its content is dropped.
        case tooLong
    }

    /// The longest line kept, in bytes.
    let maximumLineLength: Int
    private var buffer: [UInt8] = []
    private var discarding = false

    /// Creates a reader that keeps lines of up to `maximumLineLength` bytes.
    init(maximumLineLength: Int) {
        self.maximumLineLength = maximumLineLength
    }

    /// Feeds bytes and returns the items they complete.
    mutating func feed(_ bytes: UnsafeRawBufferPointer) -> [Item] {
        var items: [Item] = []
        for byte in bytes {
            if byte == UInt8(ascii: "\n") {
                if discarding {
                    items.append(.tooLong)
                    discarding = false
                } else {
                    if let line = String(validating: buffer, as: UTF8.self) {
                        items.append(.line(line, valid: true))
                    } else {
                        items.append(.line(String(decoding: buffer, as: UTF8.self), valid: false))
                    }
                }
                buffer.removeAll(keepingCapacity: buffer.count < 65_536)
            } else if !discarding {
                if buffer.count >= maximumLineLength {
                    discarding = true
                    buffer.removeAll()
                } else {
                    buffer.append(byte)
                }
            }
        }
        return items
    }
}
