import Glibc

/// Reads a small file a source is pointed at (a desktop file), as BadgeDrawing's `BoundedFile`
/// does for the app's own files (this library has no drawing layer to share it with): opened
/// without blocking on a FIFO or device, accepted only when `fstat` on the open descriptor says
/// regular file, and never more than `limit` bytes, also when the file grows while it is read.
package enum BoundedRead {
    /// The reason a file was not read (one line, without the path), and whether it is missing.
    package struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// What went wrong, e.g. "is a FIFO, not a regular file".
        package var description: String
        /// True for ENOENT.
        package var missing: Bool
    }

    /// The bytes of the regular file at `path`, at most `limit` of them.
    package static func bytes(of path: String, limit: Int) throws(Failure) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        if fd < 0 {
            let code = errno
            throw Failure(description: errorText(code), missing: code == ENOENT)
        }
        defer { close(fd) }
        var info = stat()
        if fstat(fd, &info) != 0 { throw Failure(description: errorText(errno), missing: false) }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw Failure(description: "is not a regular file", missing: false)
        }
        let tooLarge = Failure(description: "is larger than \(limit >> 10) KiB", missing: false)
        if Int(info.st_size) > limit { throw tooLarge }
        // One byte more than the limit is asked for, so a file that grew is noticed.
        var buffer = [UInt8](repeating: 0, count: limit + 1)
        var filled = 0
        while filled < buffer.count {
            let got = buffer.withUnsafeMutableBytes { raw in read(fd, raw.baseAddress.map { $0 + filled }, raw.count - filled) }
            if got == 0 { break }
            if got > 0 {
                filled += got
            } else if errno != EINTR {
                throw Failure(description: errorText(errno), missing: false)
            }
        }
        if filled > limit { throw tooLarge }
        return Array(buffer[..<filled])
    }

    /// The first bytes of the regular file at `path`, at most `limit` (a larger file is not an
    /// error: its start is what is wanted, as for a message's headers).
    package static func prefix(of path: String, limit: Int) throws(Failure) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        if fd < 0 {
            let code = errno
            throw Failure(description: errorText(code), missing: code == ENOENT)
        }
        defer { close(fd) }
        var info = stat()
        if fstat(fd, &info) != 0 { throw Failure(description: errorText(errno), missing: false) }
        guard info.st_mode & S_IFMT == S_IFREG else { throw Failure(description: "is not a regular file", missing: false) }
        var buffer = [UInt8](repeating: 0, count: max(0, limit))
        var filled = 0
        while filled < buffer.count {
            let got = buffer.withUnsafeMutableBytes { raw in read(fd, raw.baseAddress.map { $0 + filled }, raw.count - filled) }
            if got == 0 { break }
            if got > 0 {
                filled += got
            } else if errno != EINTR {
                throw Failure(description: errorText(errno), missing: false)
            }
        }
        return Array(buffer[..<filled])
    }
}
