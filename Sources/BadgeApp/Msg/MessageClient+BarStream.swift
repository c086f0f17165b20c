import BadgeCore
import BadgeControl
import BadgeIO
import BadgeSources
import Glibc

/// `msg --watch --format i3bar|i3blocks|polybar|lemonbar|waybar`: a bar module runs for the whole
/// session, so it outlives the instance. While none runs it prints the format's offline line
/// (polybar and lemonbar an empty line, i3bar an empty array, i3blocks an empty block, waybar
/// class `offline`) and waits for one; when the instance goes, the same. It never exits for a
/// missing instance, and writes nothing to standard error for it (a bar may show what the module
/// writes there): only a real error (another user's socket, a refusal, a bad click event) is said
/// there, once.
///
/// With `i3bar`, the clicks i3bar writes to standard input are read at the same time and sent on
/// the same connection as control commands (``I3barClickReader``): a click acts at once, with no
/// process started for it.
///
/// Waiting costs no wakeups: inotify on the socket's folder (or, while that folder does not
/// exist, on the folder above) says when a socket appears; a 30 s deadline covers what inotify
/// cannot see (another mount, a full watch table).
extension MessageClient {
    /// How long a wait for the instance lasts before the socket is tried anyway, in seconds.
    static let offlineRetry = 30.0

    /// What the bar stream writes: the format's prelude once, then each line that differs from
    /// the last, after the format's continuation from the second on.
    struct BarOutput {
        let format: BarFormat
        private var last: String?

        init(format: BarFormat) { self.format = format }

        /// Writes `line` unless it is the one on show; false when the bar is gone.
        mutating func show(_ line: String) -> Bool {
            guard line != last else { return true }
            if last == nil {
                for prelude in format.prelude { guard MessageClient.writeLine(prelude) else { return false } }
            }
            let continued = last == nil ? line : format.continuation + line
            last = line
            return MessageClient.writeLine(continued)
        }
    }

    /// Runs the bar stream for `format` on the socket at `path`; returns only on an output error.
    static func followInstance(path: String, owner: uid_t, format: BarFormat, settings: BarFormat.Settings, only: String?) -> Status {
        var output = BarOutput(format: format)
        var lastProblem: String?
        var clicks = I3barClickReader()
        // i3bar writes clicks to standard input; at its end (or for another format) it is not read.
        var readsInput = format.readsClicks
        // While a socket file is there that nothing accepts on yet (an instance between bind and
        // listen, or a dead one's), the wait is short, doubling up to ``offlineRetry``.
        var pause = firstPause
        /// Reads what standard input has; the commands its clicks make (none for the others).
        func readInput() -> [String] {
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = buffer.withUnsafeMutableBytes { Glibc.read(0, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR || errno == EAGAIN { return [] }
            guard count > 0 else {
                readsInput = false
                return []
            }
            return buffer.withUnsafeBytes { clicks.feed(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }.compactMap { item in
                switch item {
                case .command(let line): return line
                case .problem(let message):
                    StandardError.write("badge-demo msg: \(message)")
                    return nil
                }
            }
        }
        while true {
            let client: ControlSocketClient
            do {
                client = try ControlSocketClient(path: path, owner: owner)
            } catch {
                switch error {
                case .noInstance, .timedOut, .connectionLost: break
                default:
                    let problem = "badge-demo msg: " + error.sentence.localized
                    if problem != lastProblem { StandardError.write(problem) }
                    lastProblem = problem
                }
                guard output.show(format.offlineLine) else { return .connectionLost }
                // A click while no instance runs has nothing to act on: read, and let go.
                if waitForSocket(at: path, pause: &pause, input: readsInput ? 0 : nil) { _ = readInput() }
                continue
            }
            lastProblem = nil
            pause = firstPause
            guard (try? client.request("subscribe")) == #"{"reply":"ok"}"# else {
                guard output.show(format.offlineLine) else { return .connectionLost }
                if waitForSocket(at: path, pause: &pause, input: readsInput ? 0 : nil) { _ = readInput() }
                continue
            }
            var model = BarFormat.Model(only: only)
            var dropped = false
            var saidMissing = false
            reading: while true {
                let arrival: ControlSocketClient.Arrival
                do {
                    if readsInput {
                        arrival = try client.nextLine(orInputOn: 0)
                    } else {
                        arrival = try client.readLine(timeout: nil).map { .line($0) } ?? .endOfFile
                    }
                } catch {
                    break reading
                }
                switch arrival {
                case .endOfFile:
                    break reading
                case .input:
                    for command in readInput() {
                        // The reply comes on the stream; an error one is said below.
                        do { try client.send(command) } catch { break reading }
                    }
                case .line(let event):
                    // Dropped for reading too slowly: said on standard error; the stream subscribes again.
                    if let reason = droppedReason(event) {
                        StandardError.write("badge-demo msg: \(reason)")
                        dropped = true
                        break reading
                    }
                    // A click the instance refused (its button gone after a reload, say).
                    guard let parsed = try? JSONValue.parse(Array(event.utf8)) else { continue }
                    if parsed["reply"]?.string == "error" {
                        StandardError.write("badge-demo msg: " + (parsed["reason"]?.string ?? Sentence("the instance refused a click").localized))
                        continue
                    }
                    guard model.apply(parsed) else { continue }
                    if model.missesItsButton, !saidMissing, let only {
                        saidMissing = true
                        StandardError.say(Sentence("--button: the instance has no button \"%1$s\"; its buttons are %2$s", .text(InputEcho.escaped(only, quote: true)),
                                               .text(model.buttons.map(\.id).joined(separator: ", "))), program: "badge-demo msg")
                    }
                    guard let line = format.line(model, settings) else { continue }
                    guard output.show(line) else { return .connectionLost }
                }
            }
            // The instance runs: subscribe again at once (the state event comes first).
            if dropped { continue }
            // The instance went (quit, crashed, restarted): offline until the next one.
            guard output.show(format.offlineLine) else { return .connectionLost }
        }
    }

    /// Writes `line` and a newline to standard output; false when the bar is gone (EPIPE).
    static func writeLine(_ line: String) -> Bool {
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
    /// is `pause` then, which doubles for the next time, up to ``offlineRetry``. True when it
    /// returned because `input` (a descriptor the caller reads) has something. It never waits
    /// longer than `limit` seconds.
    @discardableResult
    static func waitForSocket(at path: String, pause: inout Double, input: Int32? = nil, limit: Double = offlineRetry) -> Bool {
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
                if isListening(path) { return false }
                wait = pause
                pause = min(offlineRetry, pause * 2)
            }
        }
        wait = min(wait, max(0, limit))
        var entries = [pollfd(fd: watching ? inotify.descriptor : -1, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: input ?? -1, events: Int16(POLLIN), revents: 0)]
        _ = poll(&entries, 2, Int32(wait * 1000))
        return entries[1].revents != 0
    }

    /// Whether something accepts connections on the socket at `path` now.
    static func isListening(_ path: String) -> Bool {
        (try? ControlSocketClient(path: path, owner: nil, timeout: 0.5)) != nil
    }
}
