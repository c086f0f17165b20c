import Glibc

/// The lock that makes one process the running instance of a profile, as GApplication's bus name
/// does: an exclusive `flock` on a file beside the control socket, held for the process's life.
///
/// The kernel releases it when the process ends in any way (`kill -9` included), so a socket file
/// left behind by a dead instance is known to be stale: whoever takes the lock takes the socket
/// over. Two launches in the same instant cannot both win. The lock file is never removed
/// (removing it would let two processes lock different inodes). Not Sendable.
public final class InstanceLock {
    /// The lock file's path.
    public let path: String
    private let descriptor: Int32

    private init(path: String, descriptor: Int32) {
        self.path = path
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// Takes the lock at `path` (created 0600 if missing; a symlink or a special file there is
    /// refused), or returns nil when another process holds it.
    /// - Throws: ``ControlSocketError/unsafeFile(path:reason:)`` or ``ControlSocketError/system(call:path:errno:)``.
    public static func acquire(path: String) throws(ControlSocketError) -> InstanceLock? {
        let fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            if errno == ELOOP { throw .unsafeFile(path: path, reason: "the instance lock is a symbolic link") }
            throw .system(call: "open", path: path, errno: errno)
        }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_uid == getuid() else {
            close(fd)
            throw .unsafeFile(path: path, reason: "the instance lock is not a regular file of yours")
        }
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            if errno == EINTR { continue }
            let code = errno
            close(fd)
            if code == EWOULDBLOCK { return nil }
            throw .system(call: "flock", path: path, errno: code)
        }
        return InstanceLock(path: path, descriptor: fd)
    }
}
