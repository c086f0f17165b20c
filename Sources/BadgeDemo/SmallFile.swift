import Glibc

/// Reading the demo's small files (config, saved counts) with plain system calls, bounded. (The
/// saved counts are written by ``AtomicFileWriter``.)
enum SmallFile {
    /// Why a file could not be read or written: one line, without the path.
    struct Failure: Error, CustomStringConvertible {
        /// The reason.
        let reason: String
        /// True when the file does not exist (ENOENT): not worth a warning for an optional file.
        var missing = false
        /// The reason.
        var description: String { reason }

        static func system(_ what: String) -> Failure {
            Failure(reason: "\(what): \(String(cString: strerror(errno)))")
        }
    }

    /// The bytes of the regular file at `path`, at most `limit` of them.
    static func read(_ path: String, limit: Int) throws(Failure) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else {
            if errno == ENOENT { throw Failure(reason: "no such file", missing: true) }
            throw .system("cannot open")
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .system("cannot read") }
        guard info.st_mode & S_IFMT == S_IFREG else { throw Failure(reason: "not a regular file") }
        guard Int(info.st_size) <= limit else { throw Failure(reason: "larger than \(limit) bytes") }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .system("cannot read")
            }
            if count == 0 { break }
            bytes += chunk[0..<count]
            guard bytes.count <= limit else { throw Failure(reason: "larger than \(limit) bytes") }
        }
        return bytes
    }
}
