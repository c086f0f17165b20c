import BadgeCore
import Glibc

/// Why talking to a running instance through its control socket failed. Each message says what
/// happened in words a script author can act on.
public enum ControlSocketClientError: Error, CustomStringConvertible, Equatable {
    /// Nothing listens at the path: no instance runs (a stale socket file counts as none).
    case noInstance(path: String)
    /// The socket belongs to another user than the one expected: it is not talked to.
    case wrongOwner(path: String, uid: UInt32, expected: UInt32)
    /// The instance closed the connection before answering.
    case connectionLost(path: String)
    /// The instance did not answer in time.
    case timedOut(path: String, seconds: Double)
    /// A system call failed.
    case system(call: String, path: String, errno: Int32)
    /// The instance sent a line longer than the client keeps (``ControlSocketClient/maximumLineLength``).
    case lineTooLong(path: String, limit: Int)

    /// A one-line message for the user.
    public var description: String { sentence.english }

    /// The message, to say in the user's language.
    package var sentence: Sentence {
        switch self {
        case .noInstance(let path):
            return Sentence("no instance is running (nothing listens on %s)", .text(path))
        case .wrongOwner(let path, let uid, let expected):
            return Sentence("%1$s is served by uid %2$s, not uid %3$s: not talking to it", .text(path), .text(String(uid)), .text(String(expected)))
        case .connectionLost(let path):
            return Sentence("the instance at %s closed the connection", .text(path))
        case .timedOut(let path, let seconds):
            return Sentence("the instance at %1$s did not answer within %2$s s (it may be stopped or swamped)", .text(path), .number(Int(seconds)))
        case .system(let call, let path, let code):
            return Sentence("%1$s: %2$s failed: %3$s", .text(path), .text(call), .text(String(cString: strerror(code))))
        case .lineTooLong(let path, let limit):
            return Sentence("the instance at %1$s sent a line longer than %2$s bytes: not read", .text(path), .number(limit))
        }
    }
}

/// A connection to a ``ControlSocketServer``: lines out, lines in, each wait bounded.
///
/// The server's uid is checked (`SO_PEERCRED`) against the uid expected, so a socket planted by
/// another user is never talked to. Blocking, with deadlines on everything: connecting
/// (``connectTimeout``: a stopped instance whose backlog is full makes `connect` wait, so it is
/// made without blocking and retried until then), sending and every reply (``replyTimeout``). For
/// command-line clients and second instances, not for an event loop. Not Sendable.
public final class ControlSocketClient {
    /// The socket's path.
    public let path: String
    /// The serving process's id, as the kernel recorded it at connect time.
    public let serverPID: Int32
    private let descriptor: Int32
    /// The longest line read from the server (a `state` of many buttons is far below it).
    public static let maximumLineLength = 16 << 20
    /// The server's lines, framed as the server frames its clients' (BadgeIO's one line reader).
    private var lines = LineReader(maximumLineLength: ControlSocketClient.maximumLineLength)
    /// Lines read and not yet returned, oldest first.
    private var pending: [String] = []
    private var chunk = [UInt8](repeating: 0, count: 16_384)
    private var closed = false

    /// How long connecting may take, in seconds (5): a listener whose backlog is full (a stopped
    /// or swamped instance) is tried again until then.
    public static let connectTimeout = 5.0
    /// How long a reply may take, in seconds (10), unless a call says otherwise.
    public static let replyTimeout = 10.0

    /// Connects to `path`, checking that the server runs as `owner` (default: this process's uid),
    /// within `timeout` seconds.
    /// - Throws: ``ControlSocketClientError/noInstance(path:)`` when no one listens (no file, or a
    ///   stale one); ``ControlSocketClientError/timedOut(path:seconds:)`` when the listener's
    ///   backlog stays full; ``ControlSocketClientError/wrongOwner(path:uid:expected:)``; a system error.
    public init(path: String, owner: UInt32? = nil, timeout: Double = ControlSocketClient.connectTimeout) throws(ControlSocketClientError) {
        self.path = path
        guard var address = ControlSocketServer.address(of: path) else {
            throw .system(call: "connect", path: path, errno: ENAMETOOLONG)
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .system(call: "socket", path: path, errno: errno) }
        let deadline = SystemTime.monotonic + timeout
        var pause = 0.002
        while true {
            let result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            if result == 0 { break }
            let code = errno
            if code == EINTR { continue }
            // A Unix socket's full backlog answers EAGAIN at once: try again, until the deadline.
            if code == EAGAIN || code == EINPROGRESS {
                let left = deadline - SystemTime.monotonic
                guard left > 0 else {
                    Glibc.close(fd)
                    throw .timedOut(path: path, seconds: timeout)
                }
                var time = timespec(tv_sec: 0, tv_nsec: Int(min(pause, left) * 1e9))
                nanosleep(&time, nil)
                pause = min(pause * 2, 0.05)
                continue
            }
            Glibc.close(fd)
            if code == ENOENT || code == ECONNREFUSED || code == ENOTDIR { throw .noInstance(path: path) }
            throw .system(call: "connect", path: path, errno: code)
        }
        guard let credentials = PeerCredentials(of: fd) else {
            let code = errno
            Glibc.close(fd)
            throw .system(call: "getsockopt(SO_PEERCRED)", path: path, errno: code)
        }
        let expected = owner ?? getuid()
        guard credentials.uid == expected else {
            Glibc.close(fd)
            throw .wrongOwner(path: path, uid: credentials.uid, expected: expected)
        }
        descriptor = fd
        serverPID = credentials.pid
    }

    deinit { close() }

    /// Closes the connection (the server sees end of file).
    public func close() {
        guard !closed else { return }
        closed = true
        Glibc.close(descriptor)
    }

    /// Sends one line (a newline is added), waiting at most `timeout` seconds for room.
    /// - Throws: ``ControlSocketClientError/connectionLost(path:)`` or a timeout.
    public func send(_ line: String, timeout: Double = 5) throws(ControlSocketClientError) {
        let bytes = Array(line.utf8) + [UInt8(ascii: "\n")]
        var offset = 0
        let deadline = SystemTime.monotonic + timeout
        while offset < bytes.count {
            try wait(for: Int16(POLLOUT), until: deadline, seconds: timeout)
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
            if sent < 0 {
                if errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK { continue }
                throw .connectionLost(path: path)
            }
            offset += sent
        }
    }

    /// The next line from the server (without its newline), waiting at most `timeout` seconds
    /// (nil: as long as it takes); nil at end of file.
    /// - Throws: a timeout, or a system error.
    public func readLine(timeout: Double? = ControlSocketClient.replyTimeout) throws(ControlSocketClientError) -> String? {
        let deadline = timeout.map { SystemTime.monotonic + $0 }
        while true {
            if !pending.isEmpty { return pending.removeFirst() }
            try wait(for: Int16(POLLIN), until: deadline, seconds: timeout ?? 0)
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if count < 0 {
                if errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK { continue }
                if errno == ECONNRESET { return nil }
                throw .system(call: "recv", path: path, errno: errno)
            }
            if count == 0 { return nil }
            let items = chunk.withUnsafeBytes { lines.feed(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
            for item in items {
                switch item {
                case .line(let line, _): pending.append(line)
                case .tooLong: throw .lineTooLong(path: path, limit: Self.maximumLineLength)
                }
            }
        }
    }

    /// What ``nextLine(orInputOn:)`` found.
    public enum Arrival: Equatable, Sendable {
        /// A line from the server (without its newline).
        case line(String)
        /// The server closed the connection.
        case endOfFile
        /// The other descriptor can be read (or has hung up): the caller reads it.
        case input
    }

    /// The next line from the server, or word that `other` (a descriptor the caller reads, such
    /// as a bar's click events on standard input) has input, whichever comes first; it waits as
    /// long as it takes, with no wakeup while neither has anything.
    /// - Throws: a system error, or a line over the limit.
    public func nextLine(orInputOn other: Int32) throws(ControlSocketClientError) -> Arrival {
        while true {
            if !pending.isEmpty { return .line(pending.removeFirst()) }
            var entries = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0), pollfd(fd: other, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&entries, 2, -1)
            if ready < 0 {
                if errno == EINTR { continue }
                throw .system(call: "poll", path: path, errno: errno)
            }
            if entries[1].revents != 0 { return .input }
            guard entries[0].revents != 0 else { continue }
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if count < 0 {
                if errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK { continue }
                if errno == ECONNRESET { return .endOfFile }
                throw .system(call: "recv", path: path, errno: errno)
            }
            if count == 0 { return .endOfFile }
            let items = chunk.withUnsafeBytes { lines.feed(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
            for item in items {
                switch item {
                case .line(let line, _): pending.append(line)
                case .tooLong: throw .lineTooLong(path: path, limit: Self.maximumLineLength)
                }
            }
        }
    }

    /// Sends a line and returns the server's one-line reply, each within `timeout` seconds.
    /// A server that refused the connection (too many clients) has written its reason before it
    /// closed: when the send fails, that line is still read and returned.
    /// - Throws: ``ControlSocketClientError/connectionLost(path:)`` when the server hangs up first.
    public func request(_ line: String, timeout: Double = ControlSocketClient.replyTimeout) throws(ControlSocketClientError) -> String {
        do {
            try send(line, timeout: timeout)
        } catch .connectionLost(let path) {
            if let said = try? readLine(timeout: 0) { return said }
            throw .connectionLost(path: path)
        }
        guard let reply = try readLine(timeout: timeout) else { throw .connectionLost(path: path) }
        return reply
    }

    private func wait(for events: Int16, until deadline: Double?, seconds: Double) throws(ControlSocketClientError) {
        while true {
            var entry = pollfd(fd: descriptor, events: events, revents: 0)
            let left = deadline.map { max(0, $0 - SystemTime.monotonic) }
            let milliseconds = left.map { Int32(min($0 * 1000, Double(Int32.max)).rounded(.up)) } ?? -1
            let ready = poll(&entry, 1, milliseconds)
            if ready < 0 {
                if errno == EINTR { continue }
                throw .system(call: "poll", path: path, errno: errno)
            }
            if ready > 0 { return }
            throw .timedOut(path: path, seconds: seconds)
        }
    }

}
