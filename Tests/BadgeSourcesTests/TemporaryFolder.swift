import Glibc

/// A folder under /tmp for one test, removed with everything in it when the test lets go of it.
final class TemporaryFolder {
    /// Its absolute path.
    let path: String

    init() throws {
        var template = Array("/tmp/badgesources-test-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress.flatMap { mkdtemp($0) }.map { String(cString: $0) }
        }
        guard let made else { throw TestFailure("mkdtemp failed: errno \(errno)") }
        path = made
    }

    deinit { Self.remove(path) }

    /// `path/relative`.
    func callAsFunction(_ relative: String) -> String { path + "/" + relative }

    /// Writes `text` to `relative` (created or truncated).
    func write(_ text: String, to relative: String) throws {
        let fd = open(self(relative), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw TestFailure("cannot create \(relative): errno \(errno)") }
        defer { close(fd) }
        let bytes = Array(text.utf8)
        guard bytes.withUnsafeBytes({ Glibc.write(fd, $0.baseAddress, $0.count) }) == bytes.count else {
            throw TestFailure("short write to \(relative)")
        }
    }

    /// Removes `path` and everything below it (`rm -rf`, which does not follow links).
    static func remove(_ path: String) {
        _ = try? runToEnd(["rm", "-rf", "--", path])
    }
}

/// A test's own failure, with a message.
struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
