import BadgeCore
import Glibc

/// A connection to a D-Bus bus (the session bus, or the accessibility bus) that never blocks and
/// never gives up: connect, authentication (SASL `EXTERNAL`), the `Hello` greeting and every call
/// go through the event loop, each with a deadline. The wire protocol is spoken directly
/// (``DBusMessage``, ``DBusWire``); no libdbus is loaded.
///
/// A bus that refuses, is silent, slow, stopped or hostile costs a timeout, a line in ``status``
/// and a new attempt after a pause that doubles from 1 s to 60 s (a connection that stayed up for
/// a minute starts over at 1 s). Between attempts nothing wakes up. Whoever uses the bus sets itself
/// up again in ``whenReady(_:)``, which runs after every greeting. Not Sendable: event-loop thread only.
package final class BusConnection {
    /// Where the connection is.
    package enum Phase: Equatable, Sendable {
        /// connect() is in progress.
        case connecting
        /// Connected; the SASL exchange runs.
        case authenticating
        /// Authenticated; `Hello` waits for its answer.
        case greeting
        /// Greeted: the bus gave this unique name.
        case ready(name: String)
        /// Down for the reason given; the next attempt is due at the time given (monotonic seconds).
        case waiting(reason: String, retryAt: Double)
        /// Closed for good.
        case closed
    }

    /// How long connecting, authenticating and greeting may take together.
    package static let handshakeTimeout = 5.0
    /// How long a call waits for its answer (longer than the bus's own 25 s, so that on a working bus
    /// its NoReply error comes first: a call the bus never answers means the bus itself is stuck).
    package static let callTimeout = 30.0
    /// The pauses between attempts: doubling from the first to the last.
    package static let firstRetryDelay = 1.0, longestRetryDelay = 60.0
    /// How long a connection must stay up for the pauses to start over.
    package static let stableTime = 60.0
    /// How much may wait to be written before messages are refused (a bus that does not read).
    package static let outputLimit = 8 << 20
    private static let busName = "org.freedesktop.DBus", busPath = "/org/freedesktop/DBus"

    /// What the connection is called in messages ("the session bus").
    package let label: String
    /// Where it connects.
    package let address: DBusAddress
    /// Where the connection is now.
    package private(set) var phase: Phase = .closed
    /// Monotonic seconds.
    private let now: () -> Double

    private var fd: Int32 = -1
    private var output = OutputQueue()
    private var input = DBusInputFramer()
    /// What each read lands in (kept: a fresh 64 KB buffer for every read cost more than the read).
    private var chunk = [UInt8](repeating: 0, count: 65_536)
    private var handshakeDeadline: Double?
    private var nextSerial: UInt32 = 1
    private var retryDelay = BusConnection.firstRetryDelay
    private var readySince: Double?
    /// Incremented by every close: work from an older connection stops when it changes.
    private(set) var generation = 0
    private var awaited: [UInt32: (deadline: Double, reply: ([DBusValue]?) -> Void)] = [:]
    /// The awaited replies to hand over undecoded (``callForRawReply``), by serial.
    private var rawAwaited: [UInt32: (DBusRawReply?) -> Void] = [:]
    /// True for a connection that receives a secret: every byte it read is zeroed once handled
    /// (the read buffer, the framer's, each message's), and the replies of
    /// ``callForRawReply(_:path:interface:member:arguments:reply:)`` are never decoded into values.
    package var holdsSecrets = false {
        didSet { input.wipes = holdsSecrets }
    }
    /// The subscriptions, in the order they were made (``subscribe(_:askingTheBus:_:)``).
    var slots: [(id: Int, slot: Slot)] = []
    /// The well-known names whose owners are followed (``watchOwner(of:_:)``), by name.
    var owners: [String: OwnerWatch] = [:]
    /// The last subscription's number.
    var lastSlotID = 0
    /// The handler of method calls no exported object takes (``handleCalls(_:)``).
    private var callHandler: ((DBusMessage) -> Void)?
    /// The objects the connection exports, by path (method calls to them go to their handler).
    private var objects: [String: (DBusMessage) -> Void] = [:]
    private var readyHandlers: [(String) -> Void] = []
    private var lostHandlers: [(String) -> Void] = []
    /// How many attempts failed in a row (for tests and `state`).
    package private(set) var failedAttempts = 0

    /// Starts connecting to `address` (the first attempt is made at once, without blocking).
    package init(address: DBusAddress, label: String, now: @escaping () -> Double = { SystemTime.monotonic }) {
        self.address = address
        self.label = label
        self.now = now
        connect()
    }

    deinit {
        if fd >= 0 { Glibc.close(fd) }
    }


    /// The unique name, once greeted.
    package var uniqueName: String? {
        if case .ready(let name) = phase { return name }
        return nil
    }

    /// True once greeted.
    package var isReady: Bool { uniqueName != nil }

    /// The uid the bus daemon runs as, when the connection is up over a Unix socket (the kernel's
    /// `SO_PEERCRED`); nil otherwise.
    package var daemonUID: UInt32? {
        guard fd >= 0, phase != .connecting, let credentials = PeerCredentials(of: fd) else { return nil }
        return credentials.uid
    }

    /// One line for `state` and messages: "ready (:1.42)", "authenticating", "waiting: … (next try in 4 s)".
    package var status: String {
        switch phase {
        case .connecting: return "connecting"
        case .authenticating: return "authenticating"
        case .greeting: return "greeting"
        case .ready(let name): return "ready (\(name))"
        case .waiting(let reason, let retryAt):
            return "waiting: \(reason) (next try in \(Int(max(0, retryAt - now()).rounded(.up))) s)"
        case .closed: return "closed"
        }
    }

    /// Bytes waiting to be written.
    package var outgoingSize: Int { output.count }

    // MARK: Using the bus

    /// Runs `body` with the unique name every time the connection is greeted (now, if it is ready).
    package func whenReady(_ body: @escaping (String) -> Void) {
        readyHandlers.append(body)
        if let name = uniqueName { body(name) }
    }

    /// Runs `body` with the reason every time an attempt fails or a greeted connection is lost.
    package func whenLost(_ body: @escaping (String) -> Void) {
        lostHandlers.append(body)
    }

    /// Hands every method call that no exported object takes to `handler` (an object tree served
    /// by hand, such as the accessibility bridge's); subscriptions never see them then.
    package func handleCalls(_ handler: @escaping (DBusMessage) -> Void) {
        callHandler = handler
    }

    /// Hands every method call to `path` to `handler` (listeners do not see them). Once a connection
    /// exports an object, it answers calls to any other path itself, so that no caller waits for
    /// nothing: `Introspect` lists the child nodes on the way to the objects (for `busctl tree` and
    /// `gdbus introspect --recurse`), `Peer` answers, and anything else is `UnknownObject`.
    package func export(_ path: String, _ handler: @escaping (DBusMessage) -> Void) {
        objects[path] = handler
    }

    /// Stops handing the calls to `path` to its handler.
    package func unexport(_ path: String) {
        objects[path] = nil
    }

    /// Sends `reply` to `call`, unless the caller asked for no reply or more than `limit` bytes wait
    /// to be written already (a bus that does not read: the caller's own call times out).
    package func answer(_ call: DBusMessage, with reply: DBusMessage, limit: Int = BusConnection.outputLimit) {
        guard !call.noReplyExpected, outgoingSize < limit else { return }
        send(reply)
    }

    /// Sends one of the bus's own methods that answers nothing worth waiting for (`AddMatch`,
    /// `RemoveMatch`).
    func tellTheBus(_ member: String, _ argument: String) {
        var message = DBusMessage.call(Self.busName, path: Self.busPath, interface: Self.busName, member: member,
                                       arguments: [.string(argument)])
        message.flags |= DBusMessage.noReplyExpectedFlag
        send(message)
    }

    /// Sends a method call; `reply` gets the answer's values, or nil for an error reply, no answer
    /// within ``callTimeout``, or a connection that is not ready or goes away first.
    package func call(_ destination: String, path: String, interface: String, member: String,
                      arguments: [DBusValue] = [], reply: @escaping ([DBusValue]?) -> Void) {
        guard isReady || member == "Hello", let serial = send(.call(destination, path: path, interface: interface, member: member,
                                                                     arguments: arguments)) else {
            reply(nil)
            return
        }
        awaited[serial] = (now() + Self.callTimeout, reply)
    }

    /// Like ``call(_:path:interface:member:arguments:reply:)``, but the answer is handed over as
    /// its own bytes (``DBusRawReply``), valid during `reply` only and zeroed right after when the
    /// connection ``holdsSecrets``; nil for an error reply, a truncated one, no answer or a lost
    /// connection.
    package func callForRawReply(_ destination: String, path: String, interface: String, member: String,
                                 arguments: [DBusValue] = [], reply: @escaping (DBusRawReply?) -> Void) {
        guard isReady, let serial = send(.call(destination, path: path, interface: interface, member: member,
                                               arguments: arguments)) else {
            reply(nil)
            return
        }
        rawAwaited[serial] = reply
        awaited[serial] = (now() + Self.callTimeout, { [weak self] _ in self?.rawAwaited.removeValue(forKey: serial)?(nil) })
    }

    /// Queues `message` (written as the socket allows) and returns its serial; nil when the connection
    /// is not up or too much waits to be written already.
    @discardableResult
    package func send(_ message: DBusMessage) -> UInt32? {
        guard fd >= 0, phase != .connecting, phase != .authenticating else { return nil }
        let bytes = message.encoded(serial: nextSerial)
        guard outgoingSize + bytes.count <= Self.outputLimit else { return nil }
        let serial = nextSerial
        nextSerial = nextSerial == UInt32.max ? 1 : nextSerial + 1
        output.append(bytes)
        flush()
        return serial
    }

    // MARK: The loop

    /// The descriptor to poll, or nil while there is none.
    package var fileDescriptor: Int32? { fd >= 0 ? fd : nil }

    /// What to poll for now: writable only while connect() runs or bytes wait to be written.
    package var interest: EventLoop.Interest {
        guard fd >= 0 else { return [] }
        if phase == .connecting { return .writable }
        return outgoingSize > 0 ? [.readable, .writable] : .readable
    }

    /// Seconds until the next deadline (a retry, the handshake's end, the oldest call's timeout), or
    /// nil when nothing is due: idle with a dead bus means no wakeups but the next attempt.
    package var timeUntilDeadline: Double? {
        var due: Double?
        switch phase {
        case .waiting(_, let retryAt): due = retryAt
        case .connecting, .authenticating, .greeting: due = handshakeDeadline
        case .ready, .closed: break
        }
        for entry in awaited.values { due = min(due ?? entry.deadline, entry.deadline) }
        return due.map { $0 - now() }
    }

    /// Acts on the deadlines that passed: a retry that is due, a handshake or a call that took too long.
    package func handleDeadlines() {
        let time = now()
        switch phase {
        case .waiting(_, let retryAt) where retryAt <= time:
            connect()
        case .connecting, .authenticating, .greeting:
            if let deadline = handshakeDeadline, deadline <= time {
                fail("no answer within \(Int(Self.handshakeTimeout)) s while \(status)")
            }
        default: break
        }
        let late = awaited.filter { $0.value.deadline <= time }
        guard !late.isEmpty else { return }
        // The bus answers every call itself when the callee does not (NoReply): it is stuck.
        fail("no answer to a call within \(Int(Self.callTimeout)) s")
    }

    /// Reads and writes what the socket allows and handles what came in.
    package func service(_ readiness: EventLoop.Readiness) {
        guard fd >= 0 else { return }
        if phase == .connecting {
            guard readiness.writable || readiness.failed else { return }
            var error: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
            guard error == 0 else { return fail("cannot connect: \(String(cString: strerror(error)))") }
            startAuthentication()
        }
        flush()
        guard fd >= 0 else { return }
        if readiness.readable || readiness.failed { receive() }
    }

    /// The loop source `name` for this connection.
    package func source(named name: String) -> EventLoop.Source {
        EventLoop.Source(name: name, descriptor: { [weak self] in self?.fileDescriptor },
                         interest: { [weak self] in self?.interest ?? [] },
                         handle: { [weak self] readiness in self?.service(readiness) })
    }

    /// Closes the connection for good; awaited replies get nil. Safe from inside a reply handler.
    package func close() {
        shutDown()
        phase = .closed
        failAwaited()
    }

    // MARK: Connection

    private func connect() {
        shutDown()
        phase = .connecting
        handshakeDeadline = now() + Self.handshakeTimeout
        var reasons: [String] = []
        for endpoint in address.endpoints {
            do {
                let (descriptor, inProgress) = try endpoint.connectWithoutBlocking()
                fd = descriptor
                if inProgress {
                    phase = .connecting
                } else {
                    startAuthentication()
                }
                return
            } catch {
                reasons.append(error.reason)
            }
        }
        fail(reasons.joined(separator: "; "))
    }

    private func startAuthentication() {
        phase = .authenticating
        // EXTERNAL: the server checks our uid against the socket's credentials.
        let uid = Array(String(getuid()).utf8).map { byte in
            let digits = Array("0123456789abcdef".utf8)
            return String(decoding: [digits[Int(byte >> 4)], digits[Int(byte & 0xF)]], as: UTF8.self)
        }.joined()
        output.append([0] + Array("AUTH EXTERNAL \(uid)\r\n".utf8))
        flush()
    }

    /// Closes the socket and forgets what was buffered; the phase is left to the caller.
    private func shutDown() {
        generation += 1
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
        output.removeAll()
        input.reset()
        handshakeDeadline = nil
    }

    private func failAwaited() {
        let unanswered = awaited.values.map(\.reply)
        awaited.removeAll()
        for reply in unanswered { reply(nil) }
    }

    /// Drops the connection and plans the next attempt.
    private func fail(_ reason: String) {
        guard phase != .closed else { return }
        if let since = readySince, now() - since >= Self.stableTime { retryDelay = Self.firstRetryDelay }
        readySince = nil
        shutDown()
        phase = .waiting(reason: reason, retryAt: now() + retryDelay)
        retryDelay = min(retryDelay * 2, Self.longestRetryDelay)
        failedAttempts += 1
        failAwaited()
        let current = generation
        for handler in lostHandlers where generation == current { handler(reason) }
    }

    private func flush() {
        guard fd >= 0, phase != .connecting else { return }
        if case .failed(let error) = output.write(to: fd, socket: true) {
            fail("cannot write: \(String(cString: strerror(error)))")
        }
    }

    /// Reads what is there (at most a megabyte a turn, so that a flood cannot starve the window)
    /// and handles each complete line or message.
    private func receive() {
        let current = generation
        var total = 0
        while total < 1 << 20 {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                input.append(chunk[0..<count])
                total += count
                continue
            }
            if count < 0 && errno == EINTR { continue }
            if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { break }
            let reason = count == 0 ? "the bus closed the connection" : "cannot read: \(String(cString: strerror(errno)))"
            processInput(generation: current)
            if generation == current { fail(reason) }
            return
        }
        processInput(generation: current)
        if holdsSecrets { chunk.withUnsafeMutableBytes { if let base = $0.baseAddress { explicit_bzero(base, $0.count) } } }
    }

    private func processInput(generation current: Int) {
        defer { if generation == current { input.compact() } }
        do throws(DBusInputFramer.Failure) {
            while generation == current {
                if phase == .authenticating {
                    guard let line = try input.nextLine() else { return }
                    authenticate(line)
                } else {
                    guard rawAwaited.isEmpty && !holdsSecrets else {
                        guard let (bytes, total) = try input.nextMessageBytes() else { return }
                        try dispatch(undecoded: bytes, partOf: total)
                        continue
                    }
                    guard let message = try input.nextMessage() else { return }
                    dispatch(message)
                }
            }
        } catch {
            fail(error.reason)
        }
    }

    private func authenticate(_ line: String) {
        if line.hasPrefix("OK ") || line == "OK" {
            output.append(Array("BEGIN\r\n".utf8))
            phase = .greeting
            call(Self.busName, path: Self.busPath, interface: Self.busName, member: "Hello") { [weak self] values in
                guard let self else { return }
                guard let name = values?.first?.stringValue, !name.isEmpty else {
                    if self.phase == .greeting { self.fail("the bus did not accept the greeting (Hello)") }
                    return
                }
                self.greeted(name)
            }
        } else if line.hasPrefix("REJECTED") {
            let offered = line.dropFirst("REJECTED".count).trimmingPrefix(" ")
            fail("the bus refused to let this user in (it accepts: \(offered.isEmpty ? "nothing" : String(offered)); this program authenticates with EXTERNAL)")
        } else {
            fail("the bus answered the authentication with \(InputEcho.quoted(line, limit: 80))")
        }
    }

    private func greeted(_ name: String) {
        phase = .ready(name: name)
        handshakeDeadline = nil
        readySince = now()
        failedAttempts = 0
        let current = generation
        resubscribe()
        if generation != current { return }
        for handler in readyHandlers {
            handler(name)
            if generation != current { return }
        }
    }

    /// A message's bytes: a reply awaited raw goes to its handler undecoded, anything else is
    /// decoded and dispatched; then, on a connection that ``holdsSecrets``, the bytes are zeroed.
    private func dispatch(undecoded bytes: [UInt8], partOf total: Int?) throws(DBusInputFramer.Failure) {
        var bytes = bytes
        defer { if holdsSecrets { bytes.withUnsafeMutableBytes { if let base = $0.baseAddress { explicit_bzero(base, $0.count) } } } }
        do throws(DBusWire.Malformed) {
            let header = try DBusMessage(decoding: bytes, partOf: total, decodingBody: false)
            if header.kind == .methodReturn || header.kind == .error, let serial = header.replySerial,
               let handler = rawAwaited.removeValue(forKey: serial) {
                awaited.removeValue(forKey: serial)
                guard header.kind == .methodReturn, !header.isTruncated, total == nil else { return handler(nil) }
                let signature = header.signature
                bytes.withUnsafeBytes { handler(DBusRawReply(message: $0, bodyOffset: header.bodyOffset, signature: signature)) }
                return
            }
            dispatch(try DBusMessage(decoding: bytes, partOf: total))
        } catch {
            throw DBusInputFramer.Failure(reason: "the bus sent a malformed message (\(error))")
        }
    }

    private func dispatch(_ message: DBusMessage) {
        if message.kind == .methodReturn || message.kind == .error, let serial = message.replySerial,
           let entry = awaited.removeValue(forKey: serial) {
            entry.reply(message.kind == .error || message.bodyError != nil ? nil : message.body)
            return
        }
        if message.kind == .methodCall, let handler = objects[message.path ?? ""] { return handler(message) }
        if message.kind == .methodCall, let callHandler { return callHandler(message) }
        if message.kind == .methodCall, !objects.isEmpty {
            let reply: DBusMessage
            switch DBusIntrospection.answerBetween(objects: objects.keys, DBusRequest(message)) {
            case .success(let values): reply = .methodReturn(to: message, values: values)
            case .failure(let failure): reply = .error(to: message, name: failure.name, text: failure.message)
            }
            return answer(message, with: reply)
        }
        deliver(message)
    }
}
