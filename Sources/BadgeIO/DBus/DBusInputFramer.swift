import Glibc

/// What a bus connection has read, cut into what it holds: the authentication's lines until
/// `BEGIN`, then whole messages. A message over ``DBusMessage/maximumHeldSize`` is handed over as
/// its kept start (``DBusMessage/isTruncated``) and the rest of it is thrown away as it arrives, so
/// it is never held. Not Sendable: the connection's own.
package struct DBusInputFramer {
    /// Why the bytes cannot be D-Bus: the connection is dropped with this reason.
    package struct Failure: Error, Equatable {
        /// One line for the connection's status.
        package let reason: String
    }

    private var input: [UInt8] = []
    /// Where the bytes not yet handed out start.
    private var start = 0
    /// Bytes of an oversized message still to be thrown away.
    private var skipping = 0

    /// True when every byte it lets go of is zeroed first (a connection that receives a secret):
    /// what was handed out, what a compaction moves and the old storage when the buffer grows.
    package var wipes = false

    /// An empty framer.
    package init() {}

    /// Bytes held now (read and not yet handed out or thrown away).
    package var heldBytes: Int { input.count - start }

    /// Appends bytes read from the socket.
    package mutating func append(_ bytes: ArraySlice<UInt8>) {
        if wipes && input.count + bytes.count > input.capacity {
            // Grown by hand: the old storage is zeroed before it is freed.
            var grown: [UInt8] = []
            grown.reserveCapacity(max(input.capacity * 2, input.count + bytes.count, 4096))
            grown += input
            Self.zero(&input)
            input = grown
        }
        input += bytes
    }

    private static func zero(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { if let base = $0.baseAddress { explicit_bzero(base, $0.count) } }
    }

    /// Forgets everything (a new connection).
    package mutating func reset() {
        if wipes { Self.zero(&input) }
        input.removeAll()
        start = 0
        skipping = 0
    }

    /// Gives back the memory of what was handed out.
    package mutating func compact() {
        guard start > 0 else { return }
        if wipes {
            let rest = Array(input[start...])
            Self.zero(&input)
            input = rest
        } else {
            input.removeFirst(start)
        }
        start = 0
    }

    /// The next authentication line (without CR LF), or nil until one is whole.
    /// - Throws: ``Failure`` for a line of more than 4 KB.
    package mutating func nextLine() throws(Failure) -> String? {
        guard let end = input[start...].firstIndex(of: UInt8(ascii: "\n")) else {
            if input.count - start > 4096 { throw Failure(reason: "the bus sent a line of more than 4 KB while authenticating") }
            return nil
        }
        var line = String(decoding: input[start..<end], as: UTF8.self)
        if line.hasSuffix("\r") { line.removeLast() }
        start = end + 1
        return line
    }

    /// The next message, or nil until one is there (or while the rest of an oversized one is
    /// still being thrown away).
    /// - Throws: ``Failure`` for bytes that are not D-Bus or a malformed message.
    package mutating func nextMessage() throws(Failure) -> DBusMessage? {
        guard let (bytes, total) = try nextMessageBytes() else { return nil }
        do {
            return try DBusMessage(decoding: bytes, partOf: total)
        } catch {
            throw Failure(reason: "the bus sent a malformed message (\(error))")
        }
    }

    /// The next message's bytes, undecoded (with its whole length when only its start is kept),
    /// or nil until one is there: for a caller that decodes it itself and then wipes the bytes.
    /// - Throws: ``Failure`` for bytes that are not D-Bus.
    package mutating func nextMessageBytes() throws(Failure) -> (bytes: [UInt8], total: Int?)? {
        if skipping > 0 {
            let dropped = min(skipping, input.count - start)
            start += dropped
            skipping -= dropped
            if skipping > 0 { return nil }
        }
        let length: Int?
        do {
            length = try DBusMessage.length(ofMessageIn: input[start...])
        } catch {
            throw Failure(reason: "the bus sent something that is not D-Bus (\(error))")
        }
        guard let length else { return nil }
        var kept = length
        if length > DBusMessage.maximumHeldSize {
            guard let bodyOffset = DBusMessage.bodyOffset(ofMessageIn: input[start...]), bodyOffset <= 1 << 20 else {
                throw Failure(reason: "the bus sent a message with more than 1 MiB of header fields")
            }
            kept = min(length, bodyOffset + DBusMessage.keptBodyPrefix)
        }
        guard input.count - start >= kept else { return nil }
        let bytes = Array(input[start..<start + kept])
        start += kept
        skipping = length - kept
        return (bytes, kept < length ? length : nil)
    }
}
