import BadgeCore
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

    var description: String { sentence.english }

    /// The message, to say in the user's language.
    var sentence: Sentence {
        switch self {
        case .notAFile(let path, let kind):
            return Sentence("%1$s is %2$s, not a regular file; give --state the path of a file (or /dev/null to save nothing)",
                            .text(path), .sentence(Self.kindSentence(kind)))
        case .notAStateFile(let path, let reason):
            return Sentence("%1$s is not a badge-demo state file (%2$s); it is left alone: move it away, or point --state elsewhere, to have the counts saved",
                            .text(path), .text(reason))
        case .tooManyLinks(let path):
            return Sentence("too many symbolic links from %s (a loop?); point --state at a file", .text(path))
        case .busy(let lock):
            return Sentence("another process holds the lock %s (another badge-demo saving the same file)", .text(lock))
        case .system(let action, let path, let code):
            return Sentence("%1$s: %2$s%3$s", .sentence(Self.actionSentence(action, path)), .text(String(cString: strerror(code))),
                            .sentence(Self.hint(code)))
        }
    }

    /// "cannot write PATH" for each action the writer names.
    private static func actionSentence(_ action: String, _ path: String) -> Sentence {
        switch action {
        case "write": return Sentence("cannot write %s", .text(path))
        case "replace": return Sentence("cannot replace %s", .text(path))
        case "lock": return Sentence("cannot lock %s", .text(path))
        case "look at": return Sentence("cannot look at %s", .text(path))
        case "open the folder": return Sentence("cannot open the folder %s", .text(path))
        case "open the lock file": return Sentence("cannot open the lock file %s", .text(path))
        case "read the link": return Sentence("cannot read the link %s", .text(path))
        case "use the folder": return Sentence("cannot use the folder %s", .text(path))
        case "create the folder": return Sentence("cannot create the folder %s", .text(path))
        case "create a temporary file in": return Sentence("cannot create a temporary file in %s", .text(path))
        default: return Sentence(verbatim: "cannot \(action) \(path)")
        }
    }

    /// What a path is, as the resolver names it ("a folder", "a FIFO" …).
    private static func kindSentence(_ kind: String) -> Sentence {
        switch kind {
        case "a folder": return Sentence("a folder")
        case "a FIFO": return Sentence("a FIFO")
        case "a socket": return Sentence("a socket")
        case "a character device": return Sentence("a character device")
        case "a block device": return Sentence("a block device")
        case "a special file": return Sentence("a special file")
        default: return Sentence(verbatim: kind)
        }
    }

    /// What the user can do about an errno.
    private static func hint(_ code: Int32) -> Sentence {
        switch code {
        case ENOSPC, EDQUOT: return Sentence(" (free some space; the app keeps trying)")
        case ENOTDIR: return Sentence(" (a folder on the way is a file; the app keeps trying)")
        case EACCES, EPERM: return Sentence(" (no permission; the app keeps trying)")
        case EROFS: return Sentence(" (read-only file system; the app keeps trying)")
        default: return Sentence(verbatim: "")
        }
    }
}
