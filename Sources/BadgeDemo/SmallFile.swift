import Glibc

/// Writing the demo's small files (saved counts) with plain system calls: writes are atomic (a
/// temporary file in the same folder, fsync, rename, and fsync of the folder), so a crash or
/// `kill -9` at any moment leaves the old file or the new one. Every read goes through
/// BadgeDrawing's `BoundedFile`, which the config and the icons share.
enum SmallFile {
    /// Why a file could not be written: one line, without the path.
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

    /// Replaces the file at `path` with `bytes` atomically, creating its folder (mode 0700) first.
    static func writeAtomically(_ bytes: [UInt8], to path: String) throws(Failure) {
        let folder = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        if !folder.isEmpty { try makeFolders(folder) }
        let temporary = "\(path).tmp-\(getpid())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .system("cannot create \(temporary)") }
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { write(fd, $0.baseAddress.map { $0 + written }, bytes.count - written) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                let failure = Failure.system("cannot write \(temporary)")
                close(fd)
                unlink(temporary)
                throw failure
            }
            written += count
        }
        guard fsync(fd) == 0 else {
            let failure = Failure.system("cannot sync \(temporary)")
            close(fd)
            unlink(temporary)
            throw failure
        }
        close(fd)
        guard rename(temporary, path) == 0 else {
            let failure = Failure.system("cannot rename \(temporary) to \(path)")
            unlink(temporary)
            throw failure
        }
        // The rename itself reaches the disk with the folder.
        let directory = open(folder.isEmpty ? "." : folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directory >= 0 {
            _ = fsync(directory)
            close(directory)
        }
    }

    /// `mkdir -p` with mode 0700 for the folders it creates.
    private static func makeFolders(_ folder: String) throws(Failure) {
        var path = folder.hasPrefix("/") ? "" : "."
        for part in folder.split(separator: "/") {
            path += "/" + part
            if mkdir(path, 0o700) != 0 && errno != EEXIST { throw .system("cannot create the folder \(path)") }
        }
        var info = stat()
        guard stat(folder, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            throw Failure(reason: "\(folder) is not a folder")
        }
    }
}
