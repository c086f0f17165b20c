import Glibc

/// Bytes waiting to be written to a non-blocking descriptor (a bus socket, a control channel's
/// output): appended at the end, written from the front as the descriptor takes them, and never a
/// reason to block. Not Sendable: owned by whoever owns the descriptor.
package struct OutputQueue {
    /// How a write ended.
    package enum Outcome: Equatable, Sendable {
        /// Everything queued was written.
        case drained
        /// The descriptor takes no more now (EAGAIN): wait until it is writable.
        case wouldBlock
        /// The write failed with this errno (EPIPE: the reader is gone); the queue is left as it was.
        case failed(Int32)
    }

    private var bytes: [UInt8] = []
    private var start = 0

    /// An empty queue.
    package init() {}

    /// Bytes waiting.
    package var count: Int { bytes.count - start }

    /// True when nothing waits.
    package var isEmpty: Bool { start == bytes.count }

    /// Queues `more` behind what waits.
    package mutating func append<Bytes: Sequence<UInt8>>(_ more: Bytes) {
        bytes.append(contentsOf: more)
    }

    /// Forgets everything queued.
    package mutating func removeAll() {
        bytes.removeAll()
        start = 0
    }

    /// Forgets what waits after the first line end (`terminator`): the line being written, which
    /// the reader may have had a part of already, is finished, and nothing after it is sent.
    /// Everything is forgotten when no terminator waits (the last line was written whole).
    package mutating func keepFirstLine(terminator: UInt8 = UInt8(ascii: "\n")) {
        guard let end = bytes[start...].firstIndex(of: terminator) else { return removeAll() }
        // A new array: the memory of what is forgotten is given back at once.
        bytes = Array(bytes[start...end])
        start = 0
    }

    /// Writes what `descriptor` takes now with `write(2)`, or `send(2)` with MSG_NOSIGNAL for a
    /// socket (a peer that went away is an error, not a SIGPIPE).
    package mutating func write(to descriptor: Int32, socket: Bool = false) -> Outcome {
        defer { compact() }
        while start < bytes.count {
            let written = bytes.withUnsafeBytes { raw in
                let pointer = raw.baseAddress.map { $0 + start }
                return socket ? Glibc.send(descriptor, pointer, raw.count - start, Int32(MSG_NOSIGNAL))
                              : Glibc.write(descriptor, pointer, raw.count - start)
            }
            if written > 0 {
                start += written
            } else if written < 0 && errno == EINTR {
                continue
            } else if written < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                return .wouldBlock
            } else {
                return .failed(written == 0 ? EIO : errno)
            }
        }
        return .drained
    }

    /// Gives back the memory of what was written: at once when everything was, else once it is large.
    private mutating func compact() {
        if start == bytes.count {
            bytes.removeAll(keepingCapacity: bytes.count < 65_536)
            start = 0
        } else if start > 65_536 {
            bytes.removeFirst(start)
            start = 0
        }
    }
}
