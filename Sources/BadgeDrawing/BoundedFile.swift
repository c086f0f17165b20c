import BadgeCore
import Glibc

/// The one way the app reads a file it is given (config, saved state, SVG icon): opened without
/// blocking (`O_NONBLOCK | O_CLOEXEC | O_NOCTTY`, so a FIFO or a device cannot stall the open),
/// checked with `fstat` on the opened descriptor to be a regular file (symlinks followed; a FIFO,
/// device, socket or folder is refused before a byte is read), and read up to a size cap that
/// depends on the kind of file (checked against the size before reading and again while reading,
/// for a file that grows).
package enum BoundedFile {
    /// What a file is for, which sets its size cap (stated in the man page).
    package enum Kind: Sendable, CaseIterable {
        /// A toolbar configuration (JSON): at most 1 MiB.
        case config
        /// Saved badge counts (JSON): at most 64 KiB.
        case state
        /// An SVG icon: at most 4 MiB.
        case icon

        /// The largest file of this kind read, in bytes.
        package var maximumBytes: Int {
            switch self {
            case .config: 1 << 20
            case .state: 64 << 10
            case .icon: 4 << 20
            }
        }

        /// ``maximumBytes`` as people write it ("1 MiB").
        package var maximumDescription: String {
            let bytes = maximumBytes
            return bytes >= 1 << 20 && bytes % (1 << 20) == 0 ? "\(bytes >> 20) MiB" : "\(bytes >> 10) KiB"
        }
    }

    /// Why a file could not be read: one line, without the path (the caller names the file).
    package struct Failure: Error, CustomStringConvertible, Sendable, Equatable {
        /// The reason, e.g. "not a regular file but a FIFO".
        package var reason: String { sentence.english }
        /// The reason, to say in the user's language.
        package let sentence: Sentence
        /// True when the file does not exist (ENOENT): not worth a warning for an optional file.
        package var missing = false

        /// Creates a failure with its reason.
        package init(reason: String, missing: Bool = false) {
            self.init(said: Sentence(verbatim: reason), missing: missing)
        }

        /// Creates a failure with its reason said as a sentence.
        package init(said reason: Sentence, missing: Bool = false) {
            sentence = reason
            self.missing = missing
        }

        /// The reason.
        package var description: String { reason }

        fileprivate static func system(_ what: Sentence, _ code: Int32 = errno) -> Failure {
            Failure(said: Sentence("%1$s: %2$s", .sentence(what), .text(String(cString: strerror(code)))))
        }
    }

    /// The bytes of the regular file at `path` (symlinks followed), at most `kind.maximumBytes`.
    package static func read(_ path: String, kind: Kind) throws(Failure) -> [UInt8] {
        try read(path, limit: kind.maximumBytes, limitDescription: kind.maximumDescription)
    }

    /// The bytes of the regular file at `path` (symlinks followed), at most `limit` of them.
    package static func read(_ path: String, limit: Int, limitDescription: String? = nil) throws(Failure) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard fd >= 0 else {
            let code = errno
            if code == ENOENT { throw Failure(said: Sentence("no such file"), missing: true) }
            throw .system(Sentence("cannot open"), code)
        }
        defer { close(fd) }
        return try read(descriptor: fd, limit: limit, limitDescription: limitDescription)
    }

    /// The bytes of the open file `fd` from its current offset, with the same checks as
    /// ``read(_:kind:)`` (for a caller that opened it itself, e.g. to lock it). It stays open.
    package static func read(descriptor fd: Int32, limit: Int, limitDescription: String? = nil) throws(Failure) -> [UInt8] {
        let cap = limitDescription ?? "\(limit) bytes"
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .system(Sentence("cannot read")) }
        let type = info.st_mode & S_IFMT
        guard type == S_IFREG else { throw Failure(said: Sentence("not a regular file but %s", .sentence(describe(type: type)))) }
        guard Int(info.st_size) <= limit else {
            throw Failure(said: sizeDescription(Int(info.st_size), cap: cap))
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Int(info.st_size))
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .system(Sentence("cannot read"))
            }
            if count == 0 { break }
            guard bytes.count + count <= limit else { throw Failure(said: Sentence("grew larger than the %s allowed while read", .text(cap))) }
            bytes += chunk[0..<count]
        }
        return bytes
    }

    /// "a FIFO", "a folder"…: what a file that is not regular is, for the message.
    private static func describe(type: mode_t) -> Sentence {
        switch type {
        case S_IFIFO: Sentence("a FIFO")
        case S_IFCHR: Sentence("a character device")
        case S_IFBLK: Sentence("a block device")
        case S_IFDIR: Sentence("a folder")
        case S_IFSOCK: Sentence("a socket")
        default: Sentence("a special file")
        }
    }

    private static func sizeDescription(_ bytes: Int, cap: String) -> Sentence {
        bytes >= 1 << 20 ? Sentence("at %1$s MiB it is larger than the %2$s allowed", .text(String((bytes + (1 << 19)) >> 20)), .text(cap))
            : Sentence("at %1$s bytes it is larger than the %2$s allowed", .text(String(bytes)), .text(cap))
    }
}
