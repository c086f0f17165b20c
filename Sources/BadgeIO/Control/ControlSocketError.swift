import Glibc

/// Why a control socket could not be offered. Each message says what to do about it.
public enum ControlSocketError: Error, CustomStringConvertible, Equatable {
    /// `XDG_RUNTIME_DIR` is unset or empty; there is no `/tmp` fallback.
    case noRuntimeDirectory
    /// The runtime folder exists but is unsafe (a symlink, another user's, or open to others).
    case unsafeFolder(path: String, reason: String)
    /// A file the instance keeps in the runtime folder (its lock, its socket) is something else:
    /// a symbolic link, another user's file, or not a socket.
    case unsafeFile(path: String, reason: String)
    /// The socket path does not fit in `sockaddr_un`.
    case pathTooLong(String)
    /// Another process is listening on the socket already.
    case alreadyRunning(path: String)
    /// A system call failed.
    case system(call: String, path: String, errno: Int32)

    /// A one-line message for the user.
    public var description: String {
        switch self {
        case .noRuntimeDirectory:
            return "XDG_RUNTIME_DIR is not set: running without a control socket (set it to a private folder such as /run/user/$(id -u))"
        case .unsafeFolder(let path, let reason):
            return "refusing the control socket folder \(path): \(reason); remove or fix it (it must be a real folder of yours with mode 0700)"
        case .unsafeFile(let path, let reason):
            return "refusing \(path): \(reason); remove it (badge-demo makes it again, as a file of yours)"
        case .pathTooLong(let path):
            return "control socket path \(path) is longer than a Unix socket address allows; use a shorter XDG_RUNTIME_DIR"
        case .alreadyRunning(let path):
            return "another instance is listening on \(path): running without a control socket"
        case .system(let call, let path, let code):
            return "control socket \(path): \(call) failed: \(String(cString: strerror(code)))"
        }
    }
}
