import BadgeCore
import CGlibcExtras
import Glibc

/// A Unix stream socket in `$XDG_RUNTIME_DIR/<app>/control.sock` that accepts line-based commands
/// from clients of the same uid, with a reply to every line (protocol version 1).
///
/// The folder is created 0700 and checked with `lstat` (a symlink, another owner, or group or other
/// permissions are refused); the socket is bound 0600 under umask 0177. Each accepted connection's
/// uid is checked with `SO_PEERCRED`: only the instance's own uid is served. Each client has its own
/// line reader (``Limits/maximumLineLength``), its own output queue (``Limits/maximumOutput``),
/// and a deadline for a partial line (``Limits/partialLineTimeout``); there are at most
/// ``Limits/maximumClients`` at once. Every descriptor is non-blocking and close-on-exec. The
/// clients share one epoll descriptor, which is the loop's only source: with quiet clients and no
/// partial line, the loop sleeps with no deadline.
///
/// **No command is lost.** Every line a client sent is handed to ``onLine`` even when its reply
/// cannot be delivered: a client that writes and closes without reading (`socat -u`, a script
/// that exits early) has all its lines read and run after its hang-up, and a client that never
/// reads its replies has them left out past ``Limits/maximumOutput`` (said once in the log) while
/// its commands still run. Only a subscriber, whose events are the point, is dropped when it
/// leaves that much unread: the events queued for it are forgotten and it is sent one last line
/// that says why (``droppedEventLine(_:)``, an error event with cause "dropped") as soon as its
/// socket takes it, then closed (or after ``Limits/farewellTimeout`` if it never reads again).
/// When `accept` runs out of descriptors (EMFILE, ENFILE), the listener pauses with a backoff from
/// 0.1 s to 2 s, or until a client leaves, instead of spinning on a readable listener; clients
/// wait in the backlog, and the failure is logged once with a count.
///
/// Not Sendable: event-loop thread only.
public final class ControlSocketServer {
    /// One accepted connection, by number (never reused during the server's life).
    public typealias ClientID = Int

    /// The protocol version sent in the answer to `hello`.
    public static let protocolVersion = 1

    /// The socket's path.
    public let path: String
    /// The limits in force.
    public let limits: Limits
    /// Runs for each complete, valid UTF-8 line of a client (without its newline). The handler
    /// must answer it with ``reply(_:to:)`` (now or later).
    public var onLine: ((ClientID, String) -> Void)?
    /// Runs for each refusal or drop, with a message naming the client (stderr and an error event).
    public var onLog: ((String) -> Void)?
    /// How the log lines and a dropped subscriber's reason are said: English unless the
    /// application gives its catalogue's words (this layer has no gettext).
    package var words: SentenceWords = .english
    /// Whether root may connect to an instance of another user (default false). Root producers
    /// (package-manager hooks) are real, so an application may opt in; check ``peer(of:)`` to
    /// limit what root may do. Takes effect for the next connection.
    public var allowsRoot = false

    private let listener: Int32
    private let epoll: EpollSet
    private var clients: [ClientID: Client] = [:]
    private var byDescriptor: [Int32: ClientID] = [:]
    private var nextID = 1
    private var readBuffer = [UInt8](repeating: 0, count: 16_384)
    private let uid: uid_t
    private var closed = false
    /// Accepting paused after EMFILE/ENFILE: until when, the pauses (0.1 s doubling to 2 s), and
    /// the last failure's reason.
    private var acceptPausedUntil: Double?
    private var acceptBackoff = RetryBackoff(first: 0.1, longest: 2)
    private var acceptFailure = ""

    /// Creates the folder `$XDG_RUNTIME_DIR/app` and binds the socket `name` in it.
    /// - Throws: ``ControlSocketError`` (no `XDG_RUNTIME_DIR`, an unsafe folder, a live socket there).
    public convenience init(app: String, name: String = "control.sock", limits: Limits = Limits()) throws(ControlSocketError) {
        try self.init(folder: Self.folder(app: app), name: name, limits: limits)
    }

    /// Creates (or checks) `folder` (mode 0700, yours, not a link) and binds `folder/name`, 0600.
    /// A socket file there that nobody listens on (left by a killed instance) is replaced.
    /// - Throws: ``ControlSocketError``.
    public init(folder: String, name: String = "control.sock", limits: Limits = Limits()) throws(ControlSocketError) {
        self.limits = limits
        uid = getuid()
        let path = folder + "/" + name
        self.path = path
        try Self.prepareFolder(folder)
        guard var address = Self.address(of: path) else { throw ControlSocketError.pathTooLong(path) }
        let socketDescriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard socketDescriptor >= 0 else { throw .system(call: "socket", path: path, errno: errno) }
        func fail(_ call: String, _ code: Int32) -> ControlSocketError {
            close(socketDescriptor)
            return .system(call: call, path: path, errno: code)
        }
        var bound = Self.bind(socketDescriptor, &address)
        if bound != 0 && errno == EADDRINUSE {
            // Someone listening means another instance; nobody (ECONNREFUSED) means a stale file.
            if Self.isLive(&address) {
                close(socketDescriptor)
                throw ControlSocketError.alreadyRunning(path: path)
            }
            var info = stat()
            guard lstat(path, &info) == 0 else { throw fail("lstat", errno) }
            guard info.st_mode & S_IFMT == S_IFSOCK else {
                close(socketDescriptor)
                throw ControlSocketError.unsafeFile(path: path, reason: "it is \(info.st_mode & S_IFMT == S_IFLNK ? "a symbolic link" : "not a socket")")
            }
            guard unlink(path) == 0 else { throw fail("unlink (stale socket)", errno) }
            bound = Self.bind(socketDescriptor, &address)
        }
        guard bound == 0 else { throw fail("bind", errno) }
        // The kernel's largest backlog: a burst of clients waits in it instead of being refused.
        guard listen(socketDescriptor, SOMAXCONN) == 0 else {
            let code = errno
            unlink(path)
            throw fail("listen", code)
        }
        let poller: EpollSet
        do { poller = try EpollSet() } catch {
            unlink(path)
            throw fail(error.call, error.code)
        }
        listener = socketDescriptor
        epoll = poller
        guard epoll.add(listener) else {
            let code = errno
            shutdown()
            throw ControlSocketError.system(call: "epoll_ctl", path: path, errno: code)
        }
    }

    deinit { shutdown() }

    /// Closes every client and the socket, and removes the socket file.
    public func shutdown() {
        guard !closed else { return }
        closed = true
        for (_, client) in clients { close(client.descriptor) }
        clients.removeAll()
        byDescriptor.removeAll()
        close(listener)
        unlink(path)
    }

    /// Connected clients now.
    public var clientCount: Int { clients.count }

    /// The loop's source ("control-socket", the epoll descriptor). `paused` returning true stops
    /// reading clients (the app's own output is backed up) without dropping them.
    public func source(paused: @escaping () -> Bool = { false }) -> EventLoop.Source {
        EventLoop.Source(name: "control-socket", descriptor: { [weak self] in self.flatMap { $0.closed ? nil : $0.epoll.descriptor } },
                         interest: { paused() ? [] : .readable },
                         handle: { [weak self] _ in self?.dispatch() })
    }

    /// Seconds until the earliest partial-line deadline or the end of a pause in accepting, or nil
    /// when there is neither (idle: no wakeup).
    public var timeUntilDue: Double? {
        var earliest = acceptPausedUntil
        for (_, client) in clients {
            if let since = client.partialSince { earliest = min(earliest ?? .infinity, since + limits.partialLineTimeout) }
            if let deadline = client.farewellDeadline { earliest = min(earliest ?? .infinity, deadline) }
        }
        return earliest.map { $0 - SystemTime.monotonic }
    }

    /// Drops clients whose partial line hung too long, closes dropped subscribers that did not read
    /// their last line in time, and ends a pause in accepting that is over
    /// (the loop's preparation; returns false).
    public func expire() -> Bool {
        let now = SystemTime.monotonic
        if let until = acceptPausedUntil, until <= now { resumeAccepting() }
        for (id, client) in clients {
            if let deadline = client.farewellDeadline, now >= deadline {
                remove(id)
                continue
            }
            if let since = client.partialSince, now - since >= limits.partialLineTimeout {
                drop(id, reason: Sentence("partial line left hanging for %s s", .number(Int(limits.partialLineTimeout))), answer: "partial line timed out")
            }
        }
        return false
    }

    /// Queues a reply line (a JSON object) for a client and writes what it takes now. A client
    /// that is gone gets nothing (its command ran all the same); past ``Limits/maximumOutput``
    /// unread, a subscriber is dropped (told why) and another client's reply is left out.
    public func reply(_ line: String, to id: ClientID) {
        guard let client = clients[id], !client.peerGone, client.farewellDeadline == nil else { return }
        if client.output.count >= limits.maximumOutput {
            if client.subscribed { return dropSlowSubscriber(id) }
            client.repliesLeftOut += 1
            if client.repliesLeftOut == 1 {
                log(Sentence("client pid %1$s reads none of its replies: leaving them out past %2$s bytes unread (its commands still run)", .text(String(client.pid)), .number(limits.maximumOutput)))
            }
            return
        }
        client.output.append(line.utf8)
        client.output.append(CollectionOfOne(UInt8(ascii: "\n")))
        flush(id)
    }

    /// The connection's peer, or nil once it is gone.
    public func peer(of id: ClientID) -> Peer? { clients[id]?.peer }

    /// Makes a client an event stream: it gets every line passed to ``broadcast(_:)``.
    public func subscribe(_ id: ClientID) {
        clients[id]?.subscribed = true
    }

    /// Sends one event line to every subscribed client.
    public func broadcast(_ line: String) {
        for (id, client) in clients where client.subscribed { reply(line, to: id) }
    }

    // MARK: Internals


    private func dispatch() {
        let ready: [(member: Int32, events: UInt32)]
        do { ready = try epoll.ready() } catch {
            log(Sentence(verbatim: "\(error)"))
            return
        }
        for (descriptor, events) in ready {
            if descriptor == listener {
                acceptClients()
                continue
            }
            guard let id = byDescriptor[descriptor] else { continue }
            if EpollSet.isWritable(events) { flush(id) }
            if EpollSet.isReadable(events) { read(id) }
        }
    }

    private func acceptClients() {
        // A bounded batch per turn: a connect storm never starves the window.
        for _ in 0..<64 {
            // accept4 is not in Swift's Glibc module: accept, then non-blocking and close-on-exec.
            let descriptor = accept(listener, nil, nil)
            if descriptor < 0 {
                let code = errno
                if code == EINTR || code == ECONNABORTED { continue }
                if code == EMFILE || code == ENFILE || code == ENOBUFS || code == ENOMEM {
                    return pauseAccepting(code)
                }
                if code != EAGAIN && code != EWOULDBLOCK {
                    log(Sentence("accept failed: %s", .text(String(cString: strerror(code)))))
                }
                return
            }
            let failures = acceptBackoff.failures
            if acceptBackoff.succeeded() {
                log(Sentence(one: "accepting again after %1$s failed accept (%2$s)", other: "accepting again after %1$s failed accepts (%2$s)", count: failures, .number(failures), .text(acceptFailure)))
            }
            guard fcntl(descriptor, F_SETFD, FD_CLOEXEC) == 0,
                  fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK) == 0 else {
                log(Sentence("refused a client: fcntl failed: %s", .text(String(cString: strerror(errno)))))
                close(descriptor)
                continue
            }
            guard let credentials = PeerCredentials(of: descriptor) else {
                log(Sentence("refused a client: SO_PEERCRED failed: %s", .text(String(cString: strerror(errno)))))
                refuse(descriptor, reason: "cannot check your uid")
                continue
            }
            let foreignRoot = credentials.uid == 0 && uid != 0
            guard credentials.uid == uid || (foreignRoot && allowsRoot) else {
                if foreignRoot {
                    log(Sentence("refused pid %s uid 0: root may not connect unless the instance allows it", .text(String(credentials.pid))))
                    refuse(descriptor, reason: "root may not control uid \(uid)'s instance: it does not allow root")
                } else {
                    log(Sentence("refused pid %1$s uid %2$s: only uid %3$s may connect", .text(String(credentials.pid)), .text(String(credentials.uid)), .text(String(uid))))
                    refuse(descriptor, reason: "uid \(credentials.uid) may not control this instance (only uid \(uid))")
                }
                continue
            }
            guard clients.count < limits.maximumClients else {
                log(Sentence(one: "refused pid %1$s: %2$s client already connected", other: "refused pid %1$s: %2$s clients already connected", count: limits.maximumClients, .text(String(credentials.pid)), .number(limits.maximumClients)))
                refuse(descriptor, reason: "too many connections (limit \(limits.maximumClients))")
                continue
            }
            guard epoll.add(descriptor) else {
                log(Sentence("epoll_ctl failed: %s", .text(String(cString: strerror(errno)))))
                close(descriptor)
                continue
            }
            let id = nextID
            nextID += 1
            clients[id] = Client(descriptor: descriptor, peer: Peer(pid: credentials.pid, uid: credentials.uid, isForeignRoot: foreignRoot),
                                 maximumLineLength: limits.maximumLineLength)
            byDescriptor[descriptor] = id
        }
    }

    /// Takes the listener out of the epoll set for a while: it stays readable while the backlog
    /// holds clients, and a level-triggered set would spin. The first failure of a run is logged;
    /// the rest are counted and told when accepting works again.
    private func pauseAccepting(_ code: Int32) {
        let reason = String(cString: strerror(code))
        let retry = acceptBackoff.failed()
        if retry.isFirst || reason != acceptFailure {
            log(Sentence("accept failed: %1$s; pausing new connections (%2$s s, up to %3$s s at a time; they wait in the backlog) until a descriptor frees", .text(reason), .text("\(acceptBackoff.first)"), .text("\(acceptBackoff.longest)")))
        }
        acceptFailure = reason
        if acceptPausedUntil == nil { epoll.remove(listener) }
        acceptPausedUntil = SystemTime.monotonic + retry.delay
    }

    /// Watches the listener again (the pause is over, or a client left and freed a descriptor).
    private func resumeAccepting() {
        guard acceptPausedUntil != nil, !closed else { return }
        acceptPausedUntil = nil
        if !epoll.add(listener) {
            log(Sentence("epoll_ctl failed for the listener: %s", .text(String(cString: strerror(errno)))))
        }
    }

    /// One error line, best effort (never blocks), then close.
    private func refuse(_ descriptor: Int32, reason: String) {
        let line = Self.errorLine(reason) + "\n"
        _ = line.withCString { send(descriptor, $0, strlen($0), Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
        close(descriptor)
    }

    /// `{"reply":"error","reason":"..."}`
    public static func errorLine(_ reason: String) -> String {
        "{\"reply\":\"error\",\"reason\":\"\(jsonEscaped(InputEcho.line(reason)))\"}"
    }

    /// Says `sentence` to ``onLog``, as "control socket: …" in ``words``.
    private func log(_ sentence: Sentence) {
        onLog?(Sentence("control socket: %s", .sentence(sentence)).rendered(by: words))
    }

    /// The last line a dropped subscriber is sent, in the error events' shape:
    /// `{"event":"error","line":0,"source":"socket","cause":"dropped","reason":"..."}`.
    public static func droppedEventLine(_ reason: String) -> String {
        "{\"event\":\"error\",\"line\":0,\"source\":\"socket\",\"cause\":\"dropped\",\"reason\":\"\(jsonEscaped(reason))\"}"
    }

    /// `text` as the inside of a JSON string.
    private static func jsonEscaped(_ text: String) -> String {
        var escaped = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            case _ where scalar.value < 0x20: escaped += "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count) + String(scalar.value, radix: 16)
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    private func read(_ id: ClientID) {
        guard let client = clients[id] else { return }
        let count = readBuffer.withUnsafeMutableBytes { recv(client.descriptor, $0.baseAddress, $0.count, 0) }
        if count < 0 {
            if errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK { return }
            // A reset comes only once everything the client sent has been read (the kernel hands
            // out queued bytes first): nothing of it is lost here.
            return hungUp(id)
        }
        guard count > 0 else { return hungUp(id) }
        let items = readBuffer.withUnsafeBytes { client.lines.feed(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
        client.partialSince = client.lines.partialLength == 0 ? nil : (client.partialSince ?? SystemTime.monotonic)
        // Every complete line runs, whether or not its reply can be delivered.
        for item in items {
            guard clients[id] != nil else { return }
            switch item {
            case .tooLong:
                return drop(id, reason: Sentence("line longer than %s bytes", .number(limits.maximumLineLength)),
                            answer: "line longer than \(limits.maximumLineLength) bytes; disconnecting")
            case .line(var line, let valid):
                guard valid, !line.utf8.contains(0) else {
                    reply(Self.errorLine("line is not valid UTF-8 text"), to: id)
                    continue
                }
                if line.hasSuffix("\r") { line.removeLast() }
                onLine?(id, line)
            }
        }
    }

    /// The client sent its last byte (end of file, or a reset once all it sent was read): finish
    /// writing what waits to a client that may still read (a half-close), then close.
    private func hungUp(_ id: ClientID) {
        guard let client = clients[id] else { return }
        if client.lines.partialLength > 0 {
            log(Sentence("client pid %1$s hung up in the middle of a line; that part line (%2$s bytes) was not run", .text(String(client.pid)), .number(client.lines.partialLength)))
            client.lines.dropPartialLine()
        }
        guard !client.peerGone, !client.output.isEmpty else { return remove(id) }
        client.closing = true
        client.partialSince = nil
        client.watchingWrites = true
        if !epoll.modify(client.descriptor, events: EpollSet.writable) { remove(id) }
    }

    /// The client can no longer be written to (EPIPE, a reset): its replies are dropped, and what
    /// it sent before it went is still read and run until its end of file.
    private func peerWent(_ id: ClientID) {
        guard let client = clients[id] else { return }
        client.peerGone = true
        client.output.removeAll()
        guard !client.closing else { return remove(id) }
        client.watchingWrites = false
        if !epoll.modify(client.descriptor, events: EpollSet.readable) { remove(id) }
    }

    private func flush(_ id: ClientID) {
        guard let client = clients[id], !client.peerGone else { return }
        let outcome = client.output.write(to: client.descriptor, socket: true)
        let pending = !client.output.isEmpty
        if pending != client.watchingWrites, !client.closing {
            client.watchingWrites = pending
            if !epoll.modify(client.descriptor, events: pending ? EpollSet.readableOrWritable : EpollSet.readable) {
                return remove(id)
            }
        }
        switch outcome {
        case .failed:
            peerWent(id)
        case .drained where client.closing:
            remove(id)
        default:
            break
        }
    }

    /// Answers one error line, logs, and closes once the line is written (or at once if it cannot be).
    private func drop(_ id: ClientID, reason: Sentence, answer: String) {
        guard let client = clients[id] else { return }
        client.output.removeAll()
        client.output.append((Self.errorLine(answer) + "\n").utf8)
        _ = client.output.write(to: client.descriptor, socket: true)
        remove(id)
        log(Sentence("dropped client pid %1$s: %2$s", .text(String(client.pid)), .sentence(reason)))
    }

    /// A subscriber left ``Limits/maximumOutput`` unread: the events queued for it are forgotten
    /// (the line being written is finished first), one last line says why, and the client is closed
    /// once that is written, when it goes, or at ``Limits/farewellTimeout``. Nothing it sends is
    /// read any more, and it gets no other line.
    private func dropSlowSubscriber(_ id: ClientID) {
        guard let client = clients[id] else { return }
        let waited = client.output.count
        client.subscribed = false
        client.closing = true
        client.partialSince = nil
        client.farewellDeadline = SystemTime.monotonic + limits.farewellTimeout
        client.output.keepFirstLine()
        let reason = Sentence("this subscriber read too slowly: %1$s KiB waited unread (the limit is %2$s KiB), so the instance dropped it; the events after that were not sent (subscribe again for the state)",
                              .number(waited >> 10), .number(limits.maximumOutput >> 10))
        client.output.append((Self.droppedEventLine(reason.rendered(by: words)) + "\n").utf8)
        log(Sentence("dropped subscriber pid %1$s: it left over %2$s bytes unread", .text(String(client.pid)), .number(limits.maximumOutput)))
        guard clients[id] != nil else { return }
        client.watchingWrites = true
        guard epoll.modify(client.descriptor, events: EpollSet.writable) else { return remove(id) }
        flush(id)
    }

    private func remove(_ id: ClientID) {
        guard let client = clients.removeValue(forKey: id) else { return }
        byDescriptor[client.descriptor] = nil
        epoll.remove(client.descriptor)
        close(client.descriptor)
        if client.repliesLeftOut > 0 {
            log(Sentence("client pid %1$s left; %2$s of its replies were left out unread (its commands ran)", .text(String(client.pid)), .number(client.repliesLeftOut)))
        }
        // A descriptor is free again: a paused listener may accept at once.
        resumeAccepting()
    }
}
