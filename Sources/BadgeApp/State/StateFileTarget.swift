import Glibc

/// Where saving to a state path really writes: the path's symlinks are followed to their target
/// (a dotfiles link stays a link and its target is updated), the null device means "save nothing",
/// and anything else that is not a regular file is refused.
enum StateFileTarget: Equatable {
    /// A regular file, or nothing yet, at this path (no symlink in its last component).
    case file(String)
    /// The null device (`/dev/null`, or a path that leads to it): nothing is saved.
    case discard

    /// The most symlinks followed, as the kernel allows (ELOOP after 40).
    static let maximumLinks = 40

    /// Resolves `path`'s last component through its symlinks, relative ones against the folder
    /// of the link. Throws for a folder, FIFO, socket or other device, and for a link loop.
    static func resolve(_ path: String) throws(StateWriteError) -> StateFileTarget {
        var current = path
        for _ in 0...maximumLinks {
            var info = stat()
            guard lstat(current, &info) == 0 else {
                if errno == ENOENT { return .file(current) }  // created by the write (a dangling link's target too)
                throw .system("look at", current)
            }
            switch info.st_mode & S_IFMT {
            case S_IFREG:
                return .file(current)
            case S_IFLNK:
                current = try linkTarget(current)
            case S_IFCHR where isNullDevice(info):
                return .discard
            default:
                throw .notAFile(path: current, kind: kindName(info.st_mode))
            }
        }
        throw .tooManyLinks(path: path)
    }

    /// The folder part of `path` ("." for a bare name).
    static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// The last component of `path`.
    static func name(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }

    /// Where the link at `link` points, as a path usable from here.
    private static func linkTarget(_ link: String) throws(StateWriteError) -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink(link, &buffer, buffer.count - 1)
        guard length > 0 else { throw .system("read the link", link) }
        let target = String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if target.hasPrefix("/") { return target }
        return folder(of: link) + "/" + target
    }

    /// True for the character device /dev/null is (whatever the path's name).
    private static func isNullDevice(_ info: stat) -> Bool {
        var null = stat()
        return stat("/dev/null", &null) == 0 && null.st_mode & S_IFMT == S_IFCHR && null.st_rdev == info.st_rdev
    }

    /// "a folder", "a FIFO", … for a message.
    private static func kindName(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFDIR: return "a folder"
        case S_IFIFO: return "a FIFO"
        case S_IFSOCK: return "a socket"
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        default: return "not a file"
        }
    }
}
