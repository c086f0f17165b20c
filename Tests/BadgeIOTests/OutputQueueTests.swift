@testable import BadgeIO
import Glibc
import Testing

/// The output queue's cut to one line (a subscriber dropped for reading too slowly): the line the
/// reader has a part of is finished, nothing after it is written.
@Suite("Output queue")
struct OutputQueueTests {
    @Test("keepFirstLine finishes the line being written and forgets the rest")
    func keepFirstLine() throws {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        defer { close(ends[0]); close(ends[1]) }
        // A 4 KiB pipe that nobody reads yet: the second line is written in part. F_SETPIPE_SZ and
        // F_GETPIPE_SZ (F_LINUX_SPECIFIC_BASE + 7 and + 8) are not in Swift's Glibc module.
        let setPipeSize: Int32 = 1031, getPipeSize: Int32 = 1032
        try #require(fcntl(ends[1], setPipeSize, 4096) >= 4096 && fcntl(ends[1], F_SETFL, O_NONBLOCK) == 0)
        let capacity = Int(fcntl(ends[1], getPipeSize))
        try #require(capacity > 1000 && capacity < 8192, "pipe of \(capacity) bytes")
        let first = [UInt8](repeating: UInt8(ascii: "a"), count: capacity - 1000) + [10]
        let second = [UInt8](repeating: UInt8(ascii: "b"), count: 3000) + [10]
        var queue = OutputQueue()
        queue.append(first)
        queue.append(second)
        queue.append(Array("never sent\n".utf8))
        #expect(queue.write(to: ends[1]) == .wouldBlock)
        queue.keepFirstLine()
        #expect(queue.count == first.count + second.count - capacity, "the rest of the second line only")
        queue.append(Array("last\n".utf8))
        var read: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        try #require(fcntl(ends[0], F_SETFL, O_NONBLOCK) == 0)
        let expected = first.count + second.count + 5
        // Read and write in turns until it is all through (a few turns; bounded, never waiting).
        for _ in 0..<100 where read.count < expected {
            _ = queue.write(to: ends[1])
            let count = chunk.withUnsafeMutableBytes { Glibc.read(ends[0], $0.baseAddress, $0.count) }
            if count > 0 { read += chunk[0..<count] }
        }
        #expect(read == first + second + Array("last\n".utf8))
        // Nothing to finish: everything is forgotten.
        var empty = OutputQueue()
        empty.append(Array("no end".utf8))
        empty.keepFirstLine()
        #expect(empty.isEmpty)
    }
}
