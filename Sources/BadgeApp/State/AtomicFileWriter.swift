import BadgeIO
import Glibc

/// Replaces a small file atomically, so that a crash or `kill -9` at any moment leaves the old file
/// or the new one, never a mix: a temporary file with an unpredictable name in the same folder,
/// created with `O_EXCL | O_NOFOLLOW` (a symlink planted at that name is never followed), written,
/// `fsync`ed, renamed over the file, and the folder `fsync`ed so the rename is on disk too.
///
/// The file at `path` must not be a symlink (``StateFileTarget`` resolves one first): the rename
/// replaces whatever is at that name.
enum AtomicFileWriter {
    /// Writes `bytes` to `path`, keeping the permissions of the file it replaces (0600 for a new one).
    /// `temporaryName` makes the temporary file's name (tests plant symlinks at the names it gives);
    /// a name that exists is skipped for the next one.
    static func replace(_ path: String, with bytes: [UInt8],
                        temporaryName: () -> String = randomTemporaryName) throws(StateWriteError) {
        let folder = StateFileTarget.folder(of: path), name = StateFileTarget.name(of: path)
        let directory = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directory >= 0 else { throw .system("open the folder", folder) }
        defer { close(directory) }
        var mode: mode_t = 0o600
        var existing = stat()
        if fstatat(directory, name, &existing, AT_SYMLINK_NOFOLLOW) == 0, existing.st_mode & S_IFMT == S_IFREG {
            mode = existing.st_mode & 0o7777
        }
        var temporary = "", fd: Int32 = -1
        for _ in 0..<16 {
            temporary = "\(name).tmp-\(temporaryName())"
            fd = openat(directory, temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
            if fd >= 0 || errno != EEXIST { break }
        }
        guard fd >= 0 else { throw .system("create a temporary file in", folder) }
        var closed = false
        func discard() {
            if !closed { close(fd) }
            unlinkat(directory, temporary, 0)
        }
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { write(fd, $0.baseAddress.map { $0 + written }, bytes.count - written) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                let failure = StateWriteError.system(action: "write", path: "\(folder)/\(temporary)", code: count == 0 ? ENOSPC : errno)
                discard()
                throw failure
            }
            written += count
        }
        if mode != 0o600 { fchmod(fd, mode) }
        guard fsync(fd) == 0 else {
            let failure = StateWriteError.system("write", "\(folder)/\(temporary)")
            discard()
            throw failure
        }
        closed = true
        guard close(fd) == 0 || errno == EINTR else {
            let failure = StateWriteError.system("write", "\(folder)/\(temporary)")
            discard()
            throw failure
        }
        guard renameat(directory, temporary, directory, name) == 0 else {
            let failure = StateWriteError.system("replace", path)
            discard()
            throw failure
        }
        _ = fsync(directory)
    }

    /// 24 hex digits from the system's random source (getrandom): 96 bits no one can guess.
    static func randomTemporaryName() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<3).map { _ in
            let word = String(UInt32.random(in: 0...UInt32.max, using: &generator), radix: 16)
            return String(repeating: "0", count: 8 - word.count) + word
        }.joined()
    }

    /// Removes the temporary files a writer killed mid-write left beside `path` (`NAME.tmp-` and
    /// hex digits, or the older `NAME.tmp-PID`). Call it only while holding the file's lock: then no
    /// other writer is using one.
    static func removeLeftovers(of path: String) {
        let folder = StateFileTarget.folder(of: path), prefix = StateFileTarget.name(of: path) + ".tmp-"
        guard let listing = opendir(folder) else { return }
        defer { closedir(listing) }
        let directory = dirfd(listing)
        while let entry = readdir(listing) {
            let entryName = DirectoryEntry.name(of: entry)
            guard entryName.hasPrefix(prefix) else { continue }
            let suffix = entryName.dropFirst(prefix.count)
            guard !suffix.isEmpty, suffix.count <= 24, suffix.allSatisfy(\.isHexDigit) else { continue }
            unlinkat(directory, entryName, 0)  // a symlink planted there goes, its target stays
        }
    }

    /// `mkdir -p` with mode 0700 for the folders it creates.
    static func makeFolders(_ folder: String) throws(StateWriteError) {
        var path = folder.hasPrefix("/") ? "" : "."
        for part in folder.split(separator: "/") {
            path += "/" + part
            if mkdir(path, 0o700) != 0 && errno != EEXIST { throw .system("create the folder", path) }
        }
        var info = stat()
        guard stat(folder, &info) == 0 else { throw .system("look at", folder) }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw .system(action: "use the folder", path: folder, code: ENOTDIR)
        }
    }
}
