import BadgeCore
import BadgeIO
import CGlibcExtras
import Glibc

/// A badge from an IMAP server: the unseen messages of one or more folders, kept current with
/// IDLE (RFC 2177), over TLS (OpenSSL, loaded only when a source is made), and the newest of them
/// listed as items (From, Subject, Date; decoded by GMime).
///
/// - Every step has a deadline (``IMAPTiming``): the lookup (on a thread of its own), the connect
///   and the TLS handshake, the greeting, every command's answer. IDLE is ended and begun again
///   with a full recount every ``IMAPTiming/keepalive`` seconds, so a server that went silent is
///   found within keepalive + reply seconds; a connection that is closed or reset is found at once.
/// - Every (re)connection counts afresh (`UID SEARCH UNSEEN UNDELETED` in the first folder;
///   `STATUS (UNSEEN)` for the others, and `SEARCH UNSEEN UNDELETED` in those that have unseen
///   mail), never by comparing with the old number.
/// - A connection lost is retried after 1, 2, 4 … 60 s; meanwhile the reading keeps its last
///   count, stale, with the reason. A suspend (CLOCK_BOOTTIME running ahead of CLOCK_MONOTONIC)
///   drops the connection and reconnects at once.
/// - A refused login, or a password command that fails, is not retried until ``refresh()``: an
///   account is never locked by a retry storm.
/// - The password never reaches a reading, an error or a log.
///
/// Not Sendable: create and use it on the loop's thread.
public final class IMAPSource: BadgeSource {
    /// The account read.
    public let account: IMAPAccount
    /// What the source says now.
    public private(set) var reading: SourceReading
    /// Called whenever ``reading`` changes.
    public var onChange: ((SourceReading) -> Void)?

    private let passwordSource: IMAPPassword
    private let timing: IMAPTiming
    private let open: [String]?
    private let sessionBusAddress: String?
    /// The password, in pages left out of core dumps (``SecretBytes``); nil until read.
    private var password: SecretBytes?
    private var passwordSink: SecretBytes?
    private var passwordRun: ChildRun?
    private var secretLookup: SecretServiceLookup?
    private var sleepWatcher: SleepWatcher?
    private let systemBusAddress: String?
    private var tlsContext: TLSContext?
    private var connection: IMAPConnection?
    private var session: IMAPSession?
    private var started = false
    /// Set after a refused login or a failed password command: nothing is tried until a refresh.
    private var waitsForUser = false
    /// Set once an OAuth2 token was refused and its command run again for a fresh one: a second
    /// refusal is an error. Cleared by a count.
    private var tokenRetried = false
    private var backoff = RetryBackoff(first: 1, longest: 60)
    /// Monotonic deadlines.
    /// The step under way that has a deadline: when it passes, how long it was, what it was.
    private var step: (deadline: Double, limit: Double, words: Sentence)?
    private var retryAt: Double?
    private var recountAt: Double?
    private var keepaliveAt: Double?
    /// CLOCK_BOOTTIME − CLOCK_MONOTONIC when last looked at: it grows by the time suspended.
    private var sleptOffset = IMAPSource.bootOffset()
    /// CLOCK_BOOTTIME − CLOCK_MONOTONIC now (tests make a suspend with it).
    package var sleepClock: () -> Double = IMAPSource.bootOffset
    private let headers = MailHeaderDecoder()
    /// Requests to mark read under way on the session, by their number.
    private var markRequests: [Int: (MarkReadOutcome) -> Void] = [:]
    private var nextMarkID = 0
    private var summaries: [String: BadgeItem] = [:]
    /// How long a change reported during IDLE waits for more before the recount (a burst of
    /// EXISTS and FETCH is one recount).
    private static let debounce = 0.05

    /// A source for `account`.
    /// - Parameters:
    ///   - account: the server, user and folders.
    ///   - password: where the password comes from.
    ///   - timing: the deadlines and the keepalive.
    ///   - open: the command an item runs ({uid}, {folder} and {message-id} replaced), if any.
    ///   - sessionBusAddress: the session bus of the Secret Service; by default `DBUS_SESSION_BUS_ADDRESS`.
    ///   - systemBusAddress: the system bus where logind says when the machine sleeps; by default
    ///     `DBUS_SYSTEM_BUS_ADDRESS`, else /run/dbus/system_bus_socket when it exists.
    public init(account: IMAPAccount, password: IMAPPassword, timing: IMAPTiming = IMAPTiming(), open: [String]? = nil,
                sessionBusAddress: String? = nil, systemBusAddress: String? = nil) {
        self.sessionBusAddress = sessionBusAddress
        self.systemBusAddress = systemBusAddress
        self.account = account
        self.passwordSource = password
        self.timing = timing
        self.open = open
        reading = SourceReading(description: account.summary)
    }

    deinit { stop() }

    /// Reads the password and connects (cleartext to a host off loopback is refused here).
    public func start() {
        guard !started else { return }
        started = true
        if account.security == .cleartext && !IMAPAccount.isLoopback(account.host) {
            waitsForUser = true
            update(error: Sentence("cleartext IMAP is allowed only to a host on loopback, not %s; use \"security\": \"tls\" or \"starttls\"", .text(account.host)))
            return
        }
        let watcher = SleepWatcher(address: systemBusAddress)
        watcher.onSleep = { [weak self] going in self?.machineSleeps(going) }
        sleepWatcher = watcher
        obtainPassword()
    }

    /// The password command's pipes, the Secret Service's or logind's bus, the lookup's or the connection's socket.
    public var descriptors: [Int32] {
        var out = (passwordRun?.descriptors ?? []) + (secretLookup?.descriptors ?? []) + (sleepWatcher?.descriptors ?? [])
        if let fd = connection?.descriptor, fd >= 0 { out.append(fd) }
        return out
    }

    /// The connection's descriptor while a connect is under way or output waits.
    public var writableDescriptors: [Int32] {
        guard let connection, connection.wantsWrite, connection.descriptor >= 0 else { return [] }
        return [connection.descriptor]
    }

    /// Reads what is ready on one of ``descriptors``.
    public func handle(readable descriptor: Int32) {
        noticeSleep()
        if let run = passwordRun, run.descriptors.contains(descriptor) {
            run.handle(readable: descriptor)
            finishPasswordRun()
            return
        }
        if let lookup = secretLookup, lookup.descriptors.contains(descriptor) {
            lookup.handle(readable: descriptor)
            finishSecretLookup()
            return
        }
        if let watcher = sleepWatcher, watcher.descriptors.contains(descriptor) {
            watcher.handleReadable()
            return
        }
        guard let connection, descriptor == connection.descriptor else { return }
        process(connection.handleReadable())
    }

    /// Finishes a connect, or writes what waits.
    public func handle(writable descriptor: Int32) {
        guard let connection, descriptor == connection.descriptor else { return }
        process(connection.handleWritable())
    }

    /// Seconds until the next deadline: a step's, a retry's, the debounce's or the keepalive's.
    public var timeUntilDue: Double? {
        let now = SystemTime.monotonic
        let due = [step?.deadline, retryAt, recountAt, keepaliveAt].compactMap { $0 }.min().map { $0 - now }
        return [due, passwordRun?.timeUntilDue, secretLookup?.timeUntilDue, sleepWatcher?.timeUntilDue].compactMap { $0 }.min()
    }

    /// Acts on what is due: a step that took too long ends the connection (retried later), a
    /// retry connects, the debounce and the keepalive recount.
    public func handleDeadline() {
        if noticeSleep() { return }
        let now = SystemTime.monotonic
        if let run = passwordRun, let due = run.timeUntilDue, due <= 0 {
            run.handleDeadline()
            finishPasswordRun()
        }
        if let lookup = secretLookup, let due = lookup.timeUntilDue, due <= 0 {
            lookup.handleDeadline()
            finishSecretLookup()
        }
        if let watcher = sleepWatcher, let due = watcher.timeUntilDue, due <= 0 { watcher.handleDeadline() }
        if let step, now >= step.deadline {
            self.step = nil
            disconnected(Sentence("%1$s did not answer within %2$s (%3$s)", .text(account.host), .text(Self.seconds(step.limit)), .sentence(step.words)))
            return
        }
        if let retryAt, now >= retryAt {
            self.retryAt = nil
            connect()
        }
        if let recountAt, now >= recountAt {
            self.recountAt = nil
            if let session { perform(session.recount()) }
        }
        if let keepaliveAt, now >= keepaliveAt {
            self.keepaliveAt = nil
            if let session { perform(session.recount()) }
        }
    }

    /// Counts again now: after a refused login or a failed password command, the password is
    /// read again and a new connection made; a connection that waits to be retried is retried now;
    /// a live one recounts.
    public func refresh() {
        guard started else { return }
        if waitsForUser {
            waitsForUser = false
            tokenRetried = false
            backoff = RetryBackoff(first: 1, longest: 60)
            password = nil
            obtainPassword()
        } else if let session, connection?.isOpen == true {
            perform(session.recount())
        } else if retryAt != nil {
            retryAt = nil
            connect()
        }
    }

    /// Marks the messages with these keys (their UIDs in the watched folder) read, or every
    /// message the last count found unseen there for nil: on the IDLE connection.
    /// Decision: the same connection, leaving IDLE (DONE), SELECT, `UID STORE +FLAGS.SILENT
    /// (\Seen)`, EXAMINE and a full recount, then IDLE again, rather than a second connection: no
    /// second login (no second password or token read, no TLS handshake, no slot of the server's
    /// per-user connection limit), and the recount that confirms the count runs right after the
    /// STORE on the connection that counts, so nothing delivered meanwhile is missed (every DONE is
    /// followed by a full recount).
    public func markRead(_ keys: [String]?, done: @escaping (MarkReadOutcome) -> Void) {
        guard let session, connection?.isOpen == true else {
            return done(.failed(Sentence("not connected to %s", .text(account.host)).english + (reading.error.map { ": \($0)" } ?? "")))
        }
        var uids: [UInt32]?
        if let keys {
            let parsed = keys.compactMap { UInt32($0) }
            guard !parsed.isEmpty, parsed.count == keys.count else {
                return done(.failed("no message \(keys.first { UInt32($0) == nil } ?? "") in \(account.folders[0]) of \(account.summary)"))
            }
            uids = parsed
        }
        nextMarkID += 1
        markRequests[nextMarkID] = done
        perform(session.markRead(uids, id: nextMarkID))
    }

    /// Every request to mark read under way fails with `reason` (the connection is gone).
    private func failMarks(_ reason: Sentence) {
        let waiting = markRequests
        markRequests = [:]
        for (_, done) in waiting.sorted(by: { $0.key < $1.key }) { done(.failed(reason.english)) }
    }

    /// Closes everything and forgets the password.
    public func stop() {
        failMarks(Sentence("the source of %s stopped", .text(account.summary)))
        passwordRun?.cancel()
        passwordRun = nil
        passwordSink = nil
        secretLookup?.cancel()
        secretLookup = nil
        sleepWatcher?.stop()
        sleepWatcher = nil
        isAsleep = false
        connection?.close()
        connection = nil
        session = nil
        forgetPassword()
        step = nil
        retryAt = nil
        recountAt = nil
        keepaliveAt = nil
        started = false
    }

    // MARK: - The password

    private func obtainPassword() {
        guard password == nil else { return connect() }
        switch passwordSource {
        case .command(let arguments):
            guard !arguments.isEmpty else {
                waitsForUser = true
                return update(error: Sentence("the passwordCommand is empty"))
            }
            var expanded = arguments
            expanded[0] = FilePaths.expandingTilde(expanded[0])
            update(words: Sentence("reading the password"))
            let sink = SecretBytes(capacity: 4096)
            passwordSink = sink
            passwordRun = ChildRun(arguments: expanded, timeLimit: timing.passwordCommand, outputLimit: 4096, secretOutput: sink)
            finishPasswordRun()
        case .secretService(let attributes):
            update(words: Sentence("reading the password from the Secret Service"))
            secretLookup = SecretServiceLookup(address: sessionBusAddress ?? Environment.value("DBUS_SESSION_BUS_ADDRESS"), attributes: attributes,
                                               timeLimit: timing.passwordCommand)
            finishSecretLookup()
        }
    }

    private func finishSecretLookup() {
        guard let lookup = secretLookup, let outcome = lookup.outcome else { return }
        secretLookup = nil
        switch outcome {
        case .success(let secret):
            password = secret
            connect()
        case .failure(let failure):
            waitsForUser = true
            update(error: Sentence(verbatim: failure.description))
        }
    }

    private func finishPasswordRun() {
        guard let run = passwordRun, let outcome = run.outcome else { return }
        passwordRun = nil
        let sink = passwordSink
        passwordSink = nil
        let name = FilePaths.abbreviatingHome(run.arguments.first ?? "")
        if let failure = outcome.spawnFailure {
            waitsForUser = true
            return update(error: Sentence("cannot run the passwordCommand %1$s: %2$s", .text(name), .text("\(failure)")))
        }
        if case .timedOut(let limit)? = outcome.cutoff {
            waitsForUser = true
            return update(error: Sentence("the passwordCommand %1$s took longer than %2$s and was stopped", .text(name), .text(Self.seconds(limit))))
        }
        guard outcome.succeeded else {
            waitsForUser = true
            let status = outcome.exitStatus.map { Sentence("exit status %s", .number(Int($0))) } ?? outcome.signal.map { Sentence("signal %s", .text(String($0))) }
                ?? Sentence("a cutoff")
            return update(error: Sentence("the passwordCommand %1$s failed (%2$s)%3$s", .text(name), .sentence(status),
                                          .text(outcome.lastErrorLine.map { ": \($0)" } ?? "")))
        }
        // The first line, without its CR LF.
        let length = sink?.withUnsafeBytes { bytes -> Int in
            var end = bytes.firstIndex(of: 10) ?? bytes.count
            if end > 0, bytes[end - 1] == 13 { end -= 1 }
            return end
        } ?? 0
        guard let sink, length > 0 else {
            waitsForUser = true
            return update(error: Sentence("the passwordCommand %s printed no password", .text(name)))
        }
        sink.truncate(to: length)
        password = sink
        connect()
    }

    /// The program that gives the password or token, for messages ("~/bin/oama"), or the Secret Service.
    private var helperName: Sentence {
        switch passwordSource {
        case .command(let arguments): Sentence("the passwordCommand %s", .text(FilePaths.abbreviatingHome(arguments.first ?? "")))
        case .secretService: Sentence("the Secret Service")
        }
    }

    private func forgetPassword() {
        password = nil
    }

    // MARK: - The connection

    private func connect() {
        guard started, !isAsleep, let password else { return }
        connection?.close()
        session = nil
        keepaliveAt = nil
        recountAt = nil
        if account.security != .cleartext && tlsContext == nil {
            do throws(TLSFailure) { tlsContext = try TLSContext(caFile: account.caFile.map(FilePaths.expandingTilde)) } catch {
                waitsForUser = true
                return update(error: Sentence(verbatim: error.description))
            }
        }
        let made = IMAPConnection(account: account, tlsContext: tlsContext)
        if let failure = made.startFailure { return disconnected(failure) }
        connection = made
        session = IMAPSession(account: account, password: password, isProtected: account.security == .implicitTLS)
        setStep(timing.connect, Sentence("connecting"))
        update(words: Sentence("connecting"))
    }

    private func setStep(_ limit: Double, _ words: Sentence) {
        step = (SystemTime.monotonic + limit, limit, words)
    }

    private func process(_ events: [IMAPConnection.Event]) {
        for event in events {
            guard let session else { return }
            switch event {
            case .opened:
                setStep(timing.greeting, Sentence("waiting for the greeting"))
            case .tlsEstablished:
                perform(session.tlsEstablished())
            case .responses(let responses):
                for response in responses {
                    guard self.session === session else { return }
                    perform(session.receive(response))
                }
            case .failed(let reason):
                disconnected(reason)
                return
            }
        }
    }

    private func perform(_ actions: [IMAPSession.Action]) {
        for action in actions {
            guard let connection, let session else { return }
            switch action {
            case .send(let bytes):
                setStep(timing.reply, Sentence("waiting for an answer"))
                process(connection.send(bytes))
            case .sendSecret(let line):
                setStep(timing.reply, Sentence("waiting for an answer"))
                process(connection.send(secret: line))
            case .startTLS:
                setStep(timing.connect, Sentence("the TLS handshake"))
                process(connection.startTLS())
            case .counted(let count):
                step = nil
                tokenRetried = false
                _ = backoff.succeeded()
                counted(count)
            case .idling:
                step = nil
                keepaliveAt = SystemTime.monotonic + timing.keepalive
                if account.folders.count == 1 || session.usesNotify {
                    update(words: session.usesNotify ? Sentence("IDLE and NOTIFY") : Sentence("IDLE"))
                } else {
                    update(words: Sentence("IDLE, other folders read every %s", .text(Self.duration(timing.keepalive))))
                }
            case .changed:
                if recountAt == nil { recountAt = SystemTime.monotonic + Self.debounce }
            case .markFinished(let id, let failure):
                markRequests.removeValue(forKey: id)?(failure.map { .failed($0) } ?? .marked)
            case .failed(let failure):
                failMarks(failure.sentence)
                if case .tokenRefused(let text) = failure {
                    connection.close()
                    self.connection = nil
                    self.session = nil
                    step = nil
                    forgetPassword()
                    if !tokenRetried {
                        // An expired token: the helper is asked again (it refreshes), once.
                        tokenRetried = true
                        update(words: Sentence("the token was refused; asking %s for a fresh one", .sentence(helperName)))
                        obtainPassword()
                        return
                    }
                    waitsForUser = true
                    return update(error: Sentence("%1$s, and again with a fresh token from %2$s; check that helper and its account (run it yourself: it must print a valid access token), then run badge-demo msg refresh",
                                                  .sentence(text), .sentence(helperName)))
                }
                if case .authentication = failure {
                    waitsForUser = true
                    forgetPassword()
                    connection.close()
                    self.connection = nil
                    self.session = nil
                    step = nil
                    return update(error: Sentence("%s; fix the password, then run badge-demo msg refresh", .sentence(failure.sentence)))
                }
                disconnected(failure.sentence)
                return
            }
            if !session.awaitsReply && !session.isIdling { step = nil }
            if session.isWaiting && keepaliveAt == nil { keepaliveAt = SystemTime.monotonic + timing.keepalive }
        }
    }

    private func disconnected(_ reason: Sentence) {
        failMarks(reason)
        connection?.close()
        connection = nil
        session = nil
        step = nil
        keepaliveAt = nil
        recountAt = nil
        let delay = backoff.failed().delay
        retryAt = SystemTime.monotonic + delay
        update(error: Sentence("%1$s; trying again in %2$s", .sentence(reason), .text(Self.seconds(delay))))
    }

    /// True between logind's "going to sleep" and its "woke up".
    private var isAsleep = false

    /// Before a suspend: the connection is dropped (nothing is left half-done to hang after the
    /// resume) and nothing is retried; after it, a new connection and a full recount at once.
    private func machineSleeps(_ going: Bool) {
        if going {
            isAsleep = true
            connection?.close()
            connection = nil
            session = nil
            step = nil
            retryAt = nil
            recountAt = nil
            keepaliveAt = nil
            update(error: Sentence("the machine is going to sleep; %s is read again after the resume", .text(account.host)))
        } else if isAsleep {
            isAsleep = false
            backoff = RetryBackoff(first: 1, longest: 60)
            sleptOffset = sleepClock()
            if !waitsForUser { password == nil ? obtainPassword() : connect() }
        }
    }

    /// Drops the connection and reconnects at once after a suspend; true when it did.
    @discardableResult
    private func noticeSleep() -> Bool {
        let offset = sleepClock()
        defer { sleptOffset = offset }
        guard offset - sleptOffset > 5, connection != nil || retryAt != nil else { return false }
        connection?.close()
        connection = nil
        session = nil
        backoff = RetryBackoff(first: 1, longest: 60)
        update(error: Sentence("the machine slept; reconnecting to %s", .text(account.host)))
        connect()
        return true
    }

    private static func bootOffset() -> Double {
        var boot = timespec(), monotonic = timespec()
        clock_gettime(CLOCK_BOOTTIME, &boot)
        clock_gettime(CLOCK_MONOTONIC, &monotonic)
        return Double(boot.tv_sec - monotonic.tv_sec) + Double(boot.tv_nsec - monotonic.tv_nsec) / 1e9
    }

    // MARK: - Readings

    private func counted(_ count: IMAPCount) {
        var items: [BadgeItem] = []
        var kept: [String: BadgeItem] = [:]
        for message in count.messages {
            let key = "\(count.uidValidity ?? 0):\(message.uid)"
            let item = summaries[key] ?? makeItem(message, folder: count.folder)
            kept[key] = item
            items.append(item)
        }
        summaries = kept
        let listed = count.perFolder[count.folder] ?? 0
        // Newest first by Date, then by arrival (the higher UID) for the same second.
        let list = BadgeItemList(newestFirst: items, unlisted: max(0, listed - items.count))
        reading.content = .count(count.total)
        reading.items = list
        reading.updated = SystemTime.realtime
        reading.error = nil
        reading.isStale = false
        changed()
    }

    private func makeItem(_ message: IMAPMessage, folder: String) -> BadgeItem {
        let summary = headers.summary(ofMessage: message.header + [13, 10])
        let action = open.map { words in
            BadgeItemAction.run(words.map {
                $0.replacingAll("{uid}", with: String(message.uid)).replacingAll("{folder}", with: folder)
                    .replacingAll("{message-id}", with: summary.messageID ?? "")
            })
        }
        return BadgeItem(key: String(message.uid), title: summary.from ?? "(unknown sender)", detail: summary.subject ?? "(no subject)",
                         time: summary.date, origin: folder, iconName: "mail", action: action, accessibleDescription: nil)
    }

    private func update(words: Sentence) {
        let said = Sentence("%1$s, %2$s", .text(account.summary), .sentence(words))
        reading.description = said.english
        reading.descriptionSentence = said
        changed()
    }

    private func update(error: Sentence) {
        reading.description = account.summary
        reading.descriptionSentence = nil
        reading.fail(error)
        reading.isStale = true
        changed()
    }

    private var lastReported: SourceReading?

    private func changed() {
        guard reading != lastReported else { return }
        lastReported = reading
        onChange?(reading)
    }

    /// "4 min", "90 s".
    private static func duration(_ value: Double) -> String {
        value >= 60 && value.truncatingRemainder(dividingBy: 60) == 0 ? "\(Int(value) / 60) min" : seconds(value)
    }

    private static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }
}
