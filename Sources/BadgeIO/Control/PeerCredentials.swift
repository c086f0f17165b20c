import Glibc

/// The process at the other end of a connected Unix socket, as the kernel recorded it when the
/// connection was made (`SO_PEERCRED`): `struct ucred`, which Swift's Glibc module does not declare.
package struct PeerCredentials {
    /// The peer's process id at connect time.
    package var pid: pid_t = 0
    /// The peer's user id.
    package var uid: uid_t = 0
    /// The peer's group id.
    package var gid: gid_t = 0

    /// Reads the credentials of `descriptor`'s peer; nil when the kernel does not say (errno is set).
    package init?(of descriptor: Int32) {
        var length = socklen_t(MemoryLayout<PeerCredentials>.size)
        guard getsockopt(descriptor, SOL_SOCKET, SO_PEERCRED, &self, &length) == 0,
              length == socklen_t(MemoryLayout<PeerCredentials>.size) else { return nil }
    }
}
