import BadgeX11
import Glibc

/// The control channel's standard output: JSON lines queued and written without blocking the event
/// loop, so a script that stops reading never freezes the window (it keeps repainting and counting
/// clicks; the events wait in the queue).
///
/// While more than `backlogLimit` bytes wait, the app stops reading commands (back-pressure) rather
/// than let the queue grow. Not Sendable: event-loop thread only.
final class EventOutput {
    /// The descriptor written to (1).
    let descriptor: Int32
    /// Above this many queued bytes the app stops reading commands until the reader catches up.
    static let backlogLimit = 1 << 20

    private var pending = OutputQueue()
    private var readerGone = false
    private let originalFlags: Int32?

    /// Takes over `descriptor`. A pipe or socket is made non-blocking (restored by `finish`); a
    /// terminal or file is left alone, because its file description is shared with the shell and
    /// writes to it do not stall for long.
    init(descriptor: Int32 = 1) {
        self.descriptor = descriptor
        var info = stat()
        let kind = fstat(descriptor, &info) == 0 ? info.st_mode & S_IFMT : 0
        if kind == S_IFIFO || kind == S_IFSOCK {
            let flags = fcntl(descriptor, F_GETFL)
            if flags >= 0, fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) == 0 {
                originalFlags = flags
                return
            }
        }
        originalFlags = nil
    }

    /// Queues one line (a newline is added) and writes as much as the reader takes now.
    func send(_ line: String) {
        guard !readerGone else { return }
        pending.append(line.utf8)
        pending.append(CollectionOfOne(UInt8(ascii: "\n")))
        flush()
    }

    /// Bytes waiting for the reader.
    var backlog: Int { pending.count }

    /// True while lines wait: poll the descriptor for POLLOUT and call `flush` when it is writable.
    var hasBacklog: Bool { backlog > 0 }

    /// True while the reader is too far behind for the app to take more commands.
    var isBackedUp: Bool { backlog > Self.backlogLimit }

    /// Writes what the reader takes without blocking; a closed reader (EPIPE) drops the queue.
    func flush() {
        // EPIPE or another error: nobody will read these lines.
        if case .failed = pending.write(to: descriptor) {
            readerGone = true
            pending.removeAll()
        }
    }

    /// At exit: gives the reader up to `timeout` seconds to take what is queued, then restores the
    /// descriptor's blocking mode.
    func finish(timeout: Double) {
        var remaining = Int32(max(0, timeout) * 1000)
        while hasBacklog && !readerGone && remaining > 0 {
            var descriptors = [pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)]
            let start = remaining
            if poll(&descriptors, 1, remaining) <= 0 { break }
            flush()
            remaining = start - 10
        }
        if let originalFlags { _ = fcntl(descriptor, F_SETFL, originalFlags) }
    }
}
