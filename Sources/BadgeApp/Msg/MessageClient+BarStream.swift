import BadgeControl
import BadgeIO
import BadgeSources
import Glibc

/// `msg --watch --format polybar|i3bar|waybar`: a bar module runs for the whole session, so it
/// outlives the instance. While none runs it prints the format's offline line (polybar an empty
/// line, i3bar an empty block, waybar class `offline`) and waits for one; when the instance goes,
/// the same. It never exits for a missing instance, and writes nothing to standard error for it
/// (a bar may show what the module writes there): only a real error (another user's socket, a
/// refusal) is said there, once.
///
/// Waiting costs no wakeups: inotify on the socket's folder (or, while that folder does not
/// exist, on the folder above) says when a socket appears; a 30 s deadline covers what inotify
/// cannot see (another mount, a full watch table).
extension MessageClient {
    /// How long a wait for the instance lasts before the socket is tried anyway, in seconds.
    static let offlineRetry = 30.0

    /// Runs the bar stream for `format` on the socket at `path`; returns only on an output error.
    static func followInstance(path: String, owner: uid_t, format: BarFormat) -> Status {
        var last: String?
        var lastProblem: String?
        // While a socket file is there that nothing accepts on yet (an instance between bind and
        // listen, or a dead one's), the wait is short, doubling up to ``offlineRetry``.
        var pause = firstPause
        func show(_ line: String) -> Bool {
            guard line != last else { return true }
            last = line
            return writeLine(line)
        }
        while true {
            let client: ControlSocketClient
            do {
                client = try ControlSocketClient(path: path, owner: owner)
            } catch {
                switch error {
                case .noInstance, .timedOut, .connectionLost: break
                default:
                    let problem = "badge-demo msg: \(error)"
                    if problem != lastProblem { StandardError.write(problem) }
                    lastProblem = problem
                }
                guard show(format.offlineLine) else { return .connectionLost }
                waitForSocket(at: path, pause: &pause)
                continue
            }
            lastProblem = nil
            pause = firstPause
            guard (try? client.request("subscribe")) == #"{"reply":"ok"}"# else {
                guard show(format.offlineLine) else { return .connectionLost }
                waitForSocket(at: path, pause: &pause)
                continue
            }
            var model = BarFormat.Model()
            var dropped = false
            while let event = try? client.readLine(timeout: nil) {
                // Dropped for reading too slowly: said on standard error; the stream subscribes again.
                if let reason = droppedReason(event) {
                    StandardError.write("badge-demo msg: \(reason)")
                    dropped = true
                    break
                }
                guard let parsed = try? JSONValue.parse(Array(event.utf8)), model.apply(parsed),
                      let line = format.line(model) else { continue }
                guard show(line) else { return .connectionLost }
            }
            // The instance runs: subscribe again at once (the state event comes first).
            if dropped { continue }
            // The instance went (quit, crashed, restarted): offline until the next one.
            guard show(format.offlineLine) else { return .connectionLost }
        }
    }

    /// Writes `line` and a newline to standard output; false when the bar is gone (EPIPE).
    private static func writeLine(_ line: String) -> Bool {
        var bytes = Array(line.utf8)
        bytes.append(0x0A)
        var written = 0
        while written < bytes.count {
            let result = bytes[written...].withUnsafeBytes { Glibc.write(1, $0.baseAddress, $0.count) }
            if result < 0 {
                if errno == EINTR { continue }
                return false
            }
            written += result
        }
        return true
    }

    /// The first short wait for a socket file that does not accept yet, in seconds.
    static let firstPause = 0.05

    /// Blocks until something is created in the socket's folder (or the folder itself, in the
    /// folder above), or ``offlineRetry`` seconds pass. When the socket file is there but nothing
    /// accepts on it yet, no event may follow (its instance is between bind and listen): the wait
    /// is `pause` then, which doubles for the next time, up to ``offlineRetry``.
    static func waitForSocket(at path: String, pause: inout Double) {
        let folder = FilePaths.split(path).parent
        let inotify = Inotify()
        defer { inotify.close() }
        let mask = UInt32(IN_CREATE | IN_MOVED_TO | IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF)
        var watching = false
        if inotify.failure == nil {
            if case .success = inotify.watch(folder, mask: mask) {
                watching = true
            } else if case .success = inotify.watch(FilePaths.split(folder).parent, mask: mask) {
                watching = true
            }
        }
        // A socket made between the failed connect and the watch: try again at once.
        var wait = offlineRetry
        if FilePaths.exists(path) && watching {
            var status = stat()
            if stat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFSOCK {
                if isListening(path) { return }
                wait = pause
                pause = min(offlineRetry, pause * 2)
            }
        }
        var entry = pollfd(fd: watching ? inotify.descriptor : -1, events: Int16(POLLIN), revents: 0)
        _ = poll(&entry, 1, Int32(wait * 1000))
    }

    /// Whether something accepts connections on the socket at `path` now.
    private static func isListening(_ path: String) -> Bool {
        (try? ControlSocketClient(path: path, owner: nil, timeout: 0.5)) != nil
    }
}

extension BarFormat {
    /// What a bar shows while no instance runs: nothing, in the format's own shape (waybar's class
    /// `offline`, so a style can grey the module or hide it).
    var offlineLine: String {
        switch self {
        case .json, .polybar:
            return ""
        case .i3bar:
            return JSONValue.object([("full_text", .string("")), ("short_text", .string("")), ("urgent", .bool(false)),
                                     ("name", .string("badge-demo"))]).serialized
        case .waybar:
            return JSONValue.object([("text", .string("")), ("tooltip", .string("badge-demo is not running")),
                                     ("class", .string("offline")), ("alt", .string("offline"))]).serialized
        }
    }
}
