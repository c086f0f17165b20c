import Glibc

/// Why the saved counts could not be written: one line that names the file and says what to do.
enum StateWriteError: Error, Equatable, CustomStringConvertible {
    /// The path (after its symlinks) is a folder, FIFO, socket or device other than /dev/null.
    case notAFile(path: String, kind: String)
    /// The file there is not a state file (the app refused to read it): it is never written over.
    case notAStateFile(path: String, reason: String)
    /// The symlinks from the path lead round in a loop or are too many.
    case tooManyLinks(path: String)
    /// Another process holds the lock beside the file (it is writing the same file).
    case busy(lock: String)
    /// A system call failed with `code` (errno).
    case system(action: String, path: String, code: Int32)

    /// The failure of `action` on `path` with the current errno.
    static func system(_ action: String, _ path: String) -> StateWriteError {
        .system(action: action, path: path, code: errno)
    }

    var description: String {
        switch self {
        case .notAFile(let path, let kind):
            return "\(path) is \(kind), not a regular file; give --state the path of a file (or /dev/null to save nothing)"
        case .notAStateFile(let path, let reason):
            return "\(path) is not a badge-demo state file (\(reason)); it is left alone: move it away, or point --state elsewhere, to have the counts saved"
        case .tooManyLinks(let path):
            return "too many symbolic links from \(path) (a loop?); point --state at a file"
        case .busy(let lock):
            return "another process holds the lock \(lock) (another badge-demo saving the same file)"
        case .system(let action, let path, let code):
            return "cannot \(action) \(path): \(String(cString: strerror(code)))\(Self.hint(code))"
        }
    }

    /// What the user can do about an errno.
    private static func hint(_ code: Int32) -> String {
        switch code {
        case ENOSPC, EDQUOT: return " (free some space; the app keeps trying)"
        case ENOTDIR: return " (a folder on the way is a file; the app keeps trying)"
        case EACCES, EPERM: return " (no permission; the app keeps trying)"
        case EROFS: return " (read-only file system; the app keeps trying)"
        default: return ""
        }
    }
}
