// Shared by every fuzz target (compiled into each one by Scripts/fuzz.sh, never into the
// shipped binary): how the fuzzer's bytes become the readers' input.

import Glibc

/// The fuzzer's bytes, and ways to take them apart.
struct FuzzInput {
    let bytes: [UInt8]

    init(_ data: UnsafeRawPointer?, _ count: Int) {
        guard let data, count > 0 else { bytes = []; return }
        bytes = Array(UnsafeRawBufferPointer(start: data, count: count))
    }

    /// The bytes as the readers' stream would deliver them: cut into pieces at places the first
    /// byte chooses (a server's reads split anywhere), the rest being the stream.
    var chunks: [ArraySlice<UInt8>] {
        guard let seed = bytes.first else { return [] }
        let stream = bytes[1...]
        var state = UInt32(seed) &* 2_654_435_761 | 1
        var pieces: [ArraySlice<UInt8>] = []
        var start = stream.startIndex
        while start < stream.endIndex {
            state ^= state << 13; state ^= state >> 17; state ^= state << 5
            // Mostly small reads, now and then a large one: 1...16, or up to 4096.
            let length = state % 8 == 0 ? Int(state >> 20) % 4096 + 1 : Int(state % 16) + 1
            let end = min(stream.endIndex, start + length)
            pieces.append(stream[start..<end])
            start = end
        }
        return pieces
    }
}

/// Stops the fuzzer with a message (a broken property of a reader, not a crash in it).
func fuzzFailure(_ message: String) -> Never {
    fatalError("fuzz property broken: \(message)")
}

/// A message that says something about input must be one line of bounded length: no control
/// character (a forged second line in a log), at most `limit` characters.
func checkMessage(_ message: String, limit: Int = 600, _ what: @autoclosure () -> String = "a message") {
    for scalar in message.unicodeScalars where scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar.value == 0x2028 || scalar.value == 0x2029 {
        fuzzFailure("\(what()) holds U+\(String(scalar.value, radix: 16)): \(message.debugDescription.prefix(300))")
    }
    guard message.count <= limit else { fuzzFailure("\(what()) is \(message.count) characters long: \(message.prefix(200))") }
}

/// With FUZZ_VERDICTS=FILE (Scripts/fuzz-differential.py), a target appends one line per input
/// to FILE saying what its reader made of it, for comparison with a second reader.
nonisolated(unsafe) let verdictFile: UnsafeMutablePointer<FILE>? = getenv("FUZZ_VERDICTS").flatMap { fopen($0, "a") }

/// Appends `line` (made one line) to the verdict file, when there is one.
func verdict(_ line: @autoclosure () -> String) {
    guard let verdictFile else { return }
    var text = line().replacingNewlines()
    text += "\n"
    fputs(text, verdictFile)
    fflush(verdictFile)
}

extension String {
    func replacingNewlines() -> String { String(map { $0 == "\n" || $0 == "\r\n" || $0 == "\r" ? " " : $0 }) }
}
