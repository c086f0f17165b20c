import Glibc

/// An exclusive `flock` on `FILE.lock` beside a state file, held while its owner reads the file,
/// merges and replaces it: processes sharing one state file take turns. The lock file is a file of
/// its own because the state file's inode changes with every rename. It is never removed (removing
/// a lock file lets two processes lock different inodes). Released when the object is.
final class StateFileLock {
    /// The lock file's path.
    let path: String
    private let descriptor: Int32

    /// Locks `path` (created, mode 0600; a symlink there is refused), trying for up to `wait`
    /// seconds (0: once). Throws ``StateWriteError/busy(lock:)`` when another process keeps it.
    init(path: String, wait: Double) throws(StateWriteError) {
        self.path = path
        let fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .system("open the lock file", path) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            throw .notAFile(path: path, kind: "a special file")
        }
        var waited = 0.0
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let failure = errno
            if failure == EINTR { continue }
            guard failure == EWOULDBLOCK, waited < wait else {
                close(fd)
                if failure == EWOULDBLOCK { throw .busy(lock: path) }
                throw .system(action: "lock", path: path, code: failure)
            }
            // Only when the app exits (the loop is over): the holder writes a few hundred bytes.
            var pause = timespec(tv_sec: 0, tv_nsec: 10_000_000)
            nanosleep(&pause, nil)
            waited += 0.01
        }
        descriptor = fd
    }

    deinit { close(descriptor) }
}
