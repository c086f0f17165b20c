import CGlibcExtras
import Glibc

/// One non-blocking inotify descriptor and its watches. Not Sendable: the loop thread owns it.
package final class Inotify {
    /// The descriptor to poll, or -1 when inotify could not be set up (see ``failure``).
    package private(set) var descriptor: Int32 = -1
    /// Why there is no descriptor, in words a user can act on.
    package private(set) var failure: String?

    /// Opens a descriptor (non-blocking, close-on-exec).
    package init() {
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        if fd >= 0 {
            descriptor = fd
        } else {
            failure = "cannot watch files: inotify_init1 failed (\(errorText(errno)); raise fs.inotify.max_user_instances)"
        }
    }

    deinit { close() }

    /// Closes the descriptor (its watches go with it).
    package func close() {
        if descriptor >= 0 { _ = Glibc.close(descriptor) }
        descriptor = -1
    }

    /// Watches `path` for `mask`; the watch number (the same for two paths of one folder), or the
    /// reason it failed.
    package func watch(_ path: String, mask: UInt32) -> Result<Int32, WatchFailure> {
        guard descriptor >= 0 else { return .failure(WatchFailure(path: path, reason: failure ?? "inotify is closed")) }
        let wd = inotify_add_watch(descriptor, path, mask)
        if wd >= 0 { return .success(wd) }
        let code = errno
        let hint = code == ENOSPC ? " (raise fs.inotify.max_user_watches)" : ""
        return .failure(WatchFailure(path: path, reason: errorText(code) + hint, code: code))
    }

    /// Removes a watch (an IN_IGNORED event follows for it).
    package func unwatch(_ watch: Int32) {
        if descriptor >= 0 { _ = inotify_rm_watch(descriptor, watch) }
    }

    /// Every event queued now, in order; empty when none (never blocks).
    package func readEvents() -> [InotifyEvent] {
        guard descriptor >= 0 else { return [] }
        var events: [InotifyEvent] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        let headerSize = MemoryLayout<inotify_event>.size
        while true {
            let got = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else { break }
            buffer.withUnsafeBytes { raw in
                var at = 0
                while at + headerSize <= got {
                    let header = raw.loadUnaligned(fromByteOffset: at, as: inotify_event.self)
                    let nameBytes = raw[(at + headerSize)..<min(got, at + headerSize + Int(header.len))]
                    let name = String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
                    events.append(InotifyEvent(watch: header.wd, mask: header.mask, name: name))
                    at += headerSize + Int(header.len)
                }
            }
        }
        return events
    }
}

/// A folder that could not be watched, and why.
package struct WatchFailure: Error, Equatable, Sendable {
    /// The folder.
    package var path: String
    /// strerror's words, with a hint for a limit.
    package var reason: String
    /// The errno value (0 when not from the kernel).
    package var code: Int32 = 0
}

/// strerror(code) as a String.
package func errorText(_ code: Int32) -> String {
    strerror(code).map { String(cString: $0) } ?? "error \(code)"
}
