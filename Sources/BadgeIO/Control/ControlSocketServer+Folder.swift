import Glibc

/// Where a control socket lives and how it is bound: the runtime folder checked before anything is
/// made in it, the socket bound 0600 from birth, and a socket file told apart as live or stale.
extension ControlSocketServer {
    /// `$XDG_RUNTIME_DIR/app`, the folder of an application's sockets.
    /// - Throws: ``ControlSocketError/noRuntimeDirectory`` when `XDG_RUNTIME_DIR` is unset, empty or relative.
    public static func folder(app: String) throws(ControlSocketError) -> String {
        guard let runtime = Environment.value("XDG_RUNTIME_DIR"), runtime.hasPrefix("/") else { throw .noRuntimeDirectory }
        return runtime + "/" + app
    }

    static func bind(_ descriptor: Int32, _ address: inout sockaddr_un) -> Int32 {
        // 0600 from birth: no moment where the socket is open to others.
        let old = umask(0o177)
        defer { umask(old) }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
    }

    static func isLive(_ address: inout sockaddr_un) -> Bool {
        // Non-blocking: a listener with a full backlog answers EAGAIN (live) instead of making us wait.
        let probe = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard probe >= 0 else { return false }
        defer { close(probe) }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(probe, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        // Anything but "refused"/"no such file" is treated as live: never take over a socket in use.
        return result == 0 || (errno != ECONNREFUSED && errno != ENOENT)
    }

    /// Creates `folder` 0700 if it is missing, and checks with `lstat` that it is a real folder of
    /// this uid that no one else may enter (a symlink, another owner, or group or other
    /// permissions are refused).
    /// - Throws: ``ControlSocketError/unsafeFolder(path:reason:)`` or ``ControlSocketError/system(call:path:errno:)``.
    public static func prepareFolder(_ folder: String) throws(ControlSocketError) {
        let uid = getuid()
        if mkdir(folder, 0o700) != 0 && errno != EEXIST {
            throw ControlSocketError.system(call: "mkdir", path: folder, errno: errno)
        }
        var info = stat()
        guard lstat(folder, &info) == 0 else { throw ControlSocketError.system(call: "lstat", path: folder, errno: errno) }
        if info.st_mode & S_IFMT == S_IFLNK {
            throw ControlSocketError.unsafeFolder(path: folder, reason: "it is a symbolic link")
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw ControlSocketError.unsafeFolder(path: folder, reason: "it is not a folder")
        }
        guard info.st_uid == uid else {
            throw ControlSocketError.unsafeFolder(path: folder, reason: "it belongs to uid \(info.st_uid), not \(uid)")
        }
        guard info.st_mode & 0o077 == 0 else {
            throw ControlSocketError.unsafeFolder(path: folder, reason: "its mode is 0\(String(info.st_mode & 0o777, radix: 8)), open to group or others")
        }
    }

    /// The `sockaddr_un` of `path`; nil when the path does not fit in one.
    static func address(of path: String) -> sockaddr_un? {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        guard path.utf8.count < MemoryLayout.size(ofValue: address.sun_path) else { return nil }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
            raw[path.utf8.count] = 0
        }
        return address
    }
}
