import BadgeCore
/// The IMAP conversation of one connection, as a state machine with no I/O: the source feeds it
/// the server's responses and sends what it asks. One command is in flight at a time, each with a
/// tag of its own.
///
/// The walk: greeting → STARTTLS (when asked) → CAPABILITY (unless announced) → `AUTHENTICATE
/// PLAIN` (with SASL-IR where offered) or LOGIN → ID (where offered) → EXAMINE of the first folder
/// (read-only: nothing the source does marks mail read) → a recount → IDLE. A recount reads the
/// other folders with `STATUS (UNSEEN)`; one that has unseen mail is opened (EXAMINE) and counted
/// with `SEARCH UNSEEN UNDELETED` (`RETURN (COUNT)` where ESEARCH is offered), because STATUS counts
/// unseen messages marked \Deleted too; the first folder is opened again if another was, and then
/// `UID SEARCH UNSEEN UNDELETED` → `UID FETCH … BODY.PEEK[HEADER.FIELDS (…)]` for the newest
/// unseen messages whose headers it has not read yet. Any change the server reports during
/// IDLE (EXISTS, EXPUNGE, FETCH, RECENT, VANISHED, STATUS) is told to the source, which ends IDLE
/// (``recount()``: DONE) after a short debounce; every DONE is followed by a full recount, never a
/// comparison with an old number. Without IDLE the source calls ``recount()`` on its poll interval.
package final class IMAPSession {
    /// What the source must do.
    package enum Action: Equatable {
        /// Write these bytes to the connection.
        case send([UInt8])
        /// Write these bytes, which carry the password (a login line), to the connection: they are
        /// in secret memory, wiped when the last reference goes, and never in an ordinary buffer.
        case sendSecret(SecretBytes)
        /// The server agreed to STARTTLS: begin the TLS handshake, then call ``tlsEstablished()``.
        case startTLS
        /// A full count was read.
        case counted(IMAPCount)
        /// IDLE has begun: the server now speaks when something changes.
        case idling
        /// The server reported a change while idling: call ``recount()`` soon.
        case changed
        /// The conversation cannot go on; the connection is to be closed.
        case failed(IMAPFailure)
        /// The request ``markRead(_:id:)`` numbered `id` is done: the server took the STORE (nil),
        /// or refused it, with its words. The recount that follows confirms the count.
        case markFinished(id: Int, failure: String?)
    }

    private enum Command: Equatable {
        case capability, startTLS, authenticate, login, id, examine, notify, search, status(String), fetch, idle, done
        /// Another folder opened, and counted, in a recount (its unseen mail may be marked \Deleted).
        case examineOther(String), searchOther(String)
        /// The first folder opened again after another was.
        case reselect
        /// Marking read: the first folder opened read-write, a STORE of the request numbered `id`,
        /// and the folder opened read-only again (then the recount).
        case selectForStore, store(Int), reexamine
    }

    private enum Phase: Equatable {
        case greeting, working, idling, waiting, failed
    }

    private let account: IMAPAccount
    private let password: SecretBytes
    private var isProtected: Bool
    private var phase = Phase.greeting
    private var capabilities: Set<String>?
    private var tagNumber = 0
    private var pending: (tag: String, command: Command)?
    private var isAuthenticated = false
    /// Whether the SASL response went (an OAuth2 mechanism): a continuation after it is the
    /// server's error challenge, answered as RFC 7628 and Google's XOAUTH2 say, before its NO.
    private var saslResponseSent = false
    /// What the recount under way has found.
    private var found: [UInt32] = []
    private var statuses: [String: Int] = [:]
    private var uidValidity: UInt32?
    /// The header fields of the unseen messages read so far, by UID (the newest ``itemLimit`` only).
    private var headers: [UInt32: [UInt8]] = [:]
    /// Folders still to be STATUSed in this recount.
    private var statusQueue: [String] = []
    /// Folders with unseen mail still to be opened and searched in this recount.
    private var exactQueue: [String] = []
    /// True while another folder than the first is selected.
    private var selectedOther = false
    /// A change seen since the last recount began.
    private var changedSinceCount = false
    /// Requests to mark messages read, in order: each request's UID sets (at most ``storeLineLimit``
    /// octets each), the first one's under way while a STORE runs.
    private var marks: [(id: Int, sets: [String])] = []
    /// Whether a STORE of the current request was refused, and the server's words.
    private var markRefusal: String?
    /// The UIDs the last full count found unseen in the watched folder (what "mark all" marks).
    private var lastFound: [UInt32] = []
    /// The longest UID set one STORE line carries (commands stay below RFC 7162's 8192 octets).
    static let storeLineLimit = 7000
    /// At most how many messages' headers are read and kept.
    package static let itemLimit = 200

    /// A session for `account`; `isProtected` is true when TLS already runs (implicit TLS).
    package init(account: IMAPAccount, password: SecretBytes, isProtected: Bool) {
        self.account = account
        self.password = password
        self.isProtected = isProtected
    }

    /// True while IDLE runs (the server may stay silent until something changes).
    package var isIdling: Bool { phase == .idling }
    /// True when a command waits for its answer (the source's reply deadline runs).
    package var awaitsReply: Bool { pending != nil || phase == .greeting }
    /// True once the server has said IDLE is available.
    package var supportsIdle: Bool { capabilities?.contains("IDLE") == true }
    /// True when it waits for nothing (no IDLE: the source polls with ``recount()``).
    package var isWaiting: Bool { phase == .waiting }
    /// True when the server pushes the other folders' changes (NOTIFY, RFC 5465); false when they
    /// are read with STATUS at every recount only (at the keepalive, and when the first changes).
    package private(set) var usesNotify = false

    /// Handles one response of the server.
    package func receive(_ response: IMAPResponse) -> [Action] {
        guard phase != .failed else { return [] }
        if response.kind == .untagged, response.status == .bye {
            return fail(.server(Sentence("%1$s closed the connection%2$s", .text(account.host), .text(words(response.text)))))
        }
        if let announced = response.capabilities { capabilities = announced }
        switch phase {
        case .greeting:
            guard response.kind == .untagged, let status = response.status else {
                return fail(.protocolError(Sentence("%s did not greet as an IMAP server does", .text(account.host))))
            }
            if status == .preauth { isAuthenticated = true }
            guard status == .ok || status == .preauth else {
                return fail(.server(Sentence("%1$s refused the connection%2$s", .text(account.host), .text(words(response.text)))))
            }
            phase = .working
            if account.security == .startTLS && !isProtected {
                if isAuthenticated { return fail(.protocolError(Sentence("%s skipped login before STARTTLS (PREAUTH), so TLS cannot begin", .text(account.host)))) }
                return send(.startTLS, "STARTTLS")
            }
            return next()
        case .idling, .waiting:
            guard case .tagged = response.kind else { return untagged(response) }
            phase = .working
        case .working, .failed:
            break
        }
        switch response.kind {
        case .continuation:
            if pending?.command == .idle {
                phase = .idling
                if !marks.isEmpty, let (tag, _) = pending {
                    // A request to mark read came while IDLE was being asked for: ended at once.
                    pending = (tag, .done)
                    phase = .working
                    return [.idling, .send(Array("DONE\r\n".utf8))]
                }
                if changedSinceCount { return [.idling, .changed] }
                return [.idling]
            }
            if pending?.command == .authenticate {
                if account.mechanism.usesToken {
                    if saslResponseSent {
                        // The error challenge (base64 JSON): XOAUTH2 takes an empty line, OAUTHBEARER %x01.
                        return [.send(Array((account.mechanism == .oauthBearer ? "AQ==\r\n" : "\r\n").utf8))]
                    }
                    saslResponseSent = true
                    return secretLine("") { self.appendTokenResponse(to: $0) }.map { [.sendSecret($0)] } ?? fail(Self.unsendable)
                }
                return secretLine("") { self.appendPlainResponse(to: $0) }.map { [.sendSecret($0)] } ?? fail(Self.unsendable)
            }
            return fail(.protocolError(Sentence("%s asked for more of a command that has no more", .text(account.host))))
        case .untagged:
            collect(response)
            return []
        case .tagged(let tag):
            guard let (expected, command) = pending, expected == tag else {
                return fail(.protocolError(Sentence("%1$s answered a command that was not sent (tag %2$s)", .text(account.host), .text(InputEcho.escaped(tag, limit: 16, quote: true)))))
            }
            pending = nil
            return finished(command, response)
        }
    }

    /// TLS runs now (after STARTTLS): capabilities are read again, as RFC 9051 requires.
    package func tlsEstablished() -> [Action] {
        isProtected = true
        capabilities = nil
        return next()
    }

    /// Recounts now: ends IDLE (DONE) first when it runs. Does nothing while a command is in
    /// flight (the recount under way sees the change).
    package func recount() -> [Action] {
        switch phase {
        case .idling:
            return leaveIdle()
        case .waiting:
            phase = .working
            return startCount()
        case .greeting, .working, .failed:
            changedSinceCount = true
            return []
        }
    }

    /// Ends IDLE (DONE); the server's answer to the IDLE command goes on with what was asked.
    private func leaveIdle() -> [Action] {
        guard let (tag, _) = pending else { return [] }
        pending = (tag, .done)
        phase = .working
        return [.send(Array("DONE\r\n".utf8))]
    }

    /// Marks messages read: `UID STORE … +FLAGS.SILENT (\Seen)` on the watched folder, opened
    /// read-write (SELECT) for it and read-only (EXAMINE) again after, then a full recount and IDLE
    /// again, on this connection. `uids` nil is every message the last count found unseen there
    /// (never one that came after it). IDLE is ended first (DONE) when it runs; a command in
    /// flight finishes first. ``Action/markFinished(id:failure:)`` reports it.
    package func markRead(_ uids: [UInt32]?, id: Int) -> [Action] {
        guard phase != .failed else { return [.markFinished(id: id, failure: "the connection to \(account.host) is closed")] }
        let chosen = uids ?? lastFound
        guard !chosen.isEmpty else { return [.markFinished(id: id, failure: nil)] }
        marks.append((id, Self.uidSets(chosen, limit: Self.storeLineLimit)))
        switch phase {
        case .idling:
            return leaveIdle()
        case .waiting:
            phase = .working
            return startMarking()
        case .greeting, .working, .failed:
            // Taken up when the recount under way is done (before IDLE begins again).
            return []
        }
    }

    /// True while a request to mark read waits or runs.
    package var marksPending: Bool { !marks.isEmpty }

    /// `uids` as IMAP sequence sets ("3:7,9,12"), each at most `limit` octets.
    static func uidSets(_ uids: [UInt32], limit: Int) -> [String] {
        var ranges: [(UInt32, UInt32)] = []
        for uid in Set(uids).sorted() {
            if let last = ranges.last, last.1 &+ 1 == uid { ranges[ranges.count - 1].1 = uid } else { ranges.append((uid, uid)) }
        }
        var sets: [String] = []
        var line = ""
        for (low, high) in ranges {
            let part = low == high ? "\(low)" : "\(low):\(high)"
            if !line.isEmpty, line.utf8.count + 1 + part.utf8.count > limit {
                sets.append(line)
                line = ""
            }
            line += line.isEmpty ? part : ",\(part)"
        }
        if !line.isEmpty { sets.append(line) }
        return sets
    }

    private func startMarking() -> [Action] {
        markRefusal = nil
        return send(.selectForStore, "SELECT \(IMAPString.mailbox(account.folders[0]))")
    }

    /// The next STORE of the first request, or its end and the next request's, or EXAMINE again.
    private func nextStore() -> [Action] {
        var actions: [Action] = []
        while let first = marks.first {
            if let set = first.sets.first, markRefusal == nil {
                marks[0].sets.removeFirst()
                return actions + send(.store(first.id), "UID STORE \(set) +FLAGS.SILENT (\\Seen)")
            }
            marks.removeFirst()
            actions.append(.markFinished(id: first.id, failure: markRefusal))
            markRefusal = nil
        }
        return actions + send(.reexamine, "EXAMINE \(IMAPString.mailbox(account.folders[0]))")
    }

    // MARK: - The walk

    private func next() -> [Action] {
        guard let capabilities else { return send(.capability, "CAPABILITY") }
        if !isAuthenticated, account.mechanism.usesToken {
            let name = account.mechanism == .xoauth2 ? "XOAUTH2" : "OAUTHBEARER"
            guard capabilities.contains("AUTH=\(name)") else {
                return fail(.protocolError(Sentence("%1$s offers no AUTHENTICATE %2$s (its capabilities: %3$s)", .text(account.host), .text(name),
                                             .text(capabilities.filter { $0.hasPrefix("AUTH=") }.sorted().joined(separator: " ")))))
            }
            guard capabilities.contains("SASL-IR") else { return send(.authenticate, "AUTHENTICATE \(name)") }
            saslResponseSent = true
            return sendSecret(.authenticate, "AUTHENTICATE \(name) ") { self.appendTokenResponse(to: $0) }
        }
        if !isAuthenticated {
            if capabilities.contains("AUTH=PLAIN") {
                guard capabilities.contains("SASL-IR") else { return send(.authenticate, "AUTHENTICATE PLAIN") }
                return sendSecret(.authenticate, "AUTHENTICATE PLAIN ") { self.appendPlainResponse(to: $0) }
            }
            if capabilities.contains("LOGINDISABLED") {
                return fail(.protocolError(Sentence("%s allows no login on this connection (LOGINDISABLED, and no AUTH=PLAIN)", .text(account.host))))
            }
            guard let user = IMAPString.quoted(account.user) else { return fail(Self.unsendable) }
            return sendSecret(.login, "LOGIN \(user) ") { line in self.password.withUnsafeBytes { IMAPString.appendQuoted($0, to: line) } }
        }
        return afterLogin()
    }

    private func afterLogin() -> [Action] {
        if capabilities?.contains("ID") == true, !sentID {
            sentID = true
            return send(.id, #"ID ("name" "BadgeKit")"#)
        }
        return send(.examine, "EXAMINE \(IMAPString.mailbox(account.folders[0]))")
    }
    private var sentID = false

    private func startCount() -> [Action] {
        changedSinceCount = false
        found = []
        statuses = [:]
        statusQueue = Array(account.folders.dropFirst())
        exactQueue = []
        return nextFolder()
    }

    /// The recount's next step over the folders: STATUS for each other folder, EXAMINE and SEARCH
    /// for those with unseen mail, the first folder opened again, then its own search.
    private func nextFolder() -> [Action] {
        if !statusQueue.isEmpty {
            let folder = statusQueue.removeFirst()
            return send(.status(folder), "STATUS \(IMAPString.mailbox(folder)) (UNSEEN)")
        }
        if !exactQueue.isEmpty {
            let folder = exactQueue.removeFirst()
            selectedOther = true
            return send(.examineOther(folder), "EXAMINE \(IMAPString.mailbox(folder))")
        }
        if selectedOther { return send(.reselect, "EXAMINE \(IMAPString.mailbox(account.folders[0]))") }
        return send(.search, "UID SEARCH UNSEEN UNDELETED")
    }

    private func finished(_ command: Command, _ response: IMAPResponse) -> [Action] {
        if command == .done {
            guard response.status == .ok else { return refused(command, response) }
            return marks.isEmpty ? startCount() : startMarking()
        }
        if case .store = command {
            if response.status != .ok {
                markRefusal = "\(account.host) refused to mark read in \(account.folders[0])\(words(withCode: response))"
            }
            return nextStore()
        }
        if command == .selectForStore, response.status != .ok {
            // The folder cannot be opened for writing: every request waiting fails, and it is opened read-only again.
            let reason = "\(account.host) would not open \(account.folders[0]) for writing\(words(withCode: response))"
            let failed = marks.map { Action.markFinished(id: $0.id, failure: reason) }
            marks = []
            return failed + send(.reexamine, "EXAMINE \(IMAPString.mailbox(account.folders[0]))")
        }
        if command == .idle {
            // The server ended IDLE itself (OK: recount, then IDLE again) or refused it (then the
            // source polls).
            if response.status == .ok { return startCount() }
            capabilities?.remove("IDLE")
            phase = .waiting
            return []
        }
        guard response.status == .ok else { return refused(command, response) }
        switch command {
        case .capability:
            guard capabilities != nil else { return fail(.protocolError(Sentence("%s listed no capabilities", .text(account.host)))) }
            return next()
        case .startTLS:
            return [.startTLS]
        case .authenticate, .login:
            isAuthenticated = true
            if response.capabilities == nil { capabilities = nil; return send(.capability, "CAPABILITY") }
            return afterLogin()
        case .id:
            return afterLogin()
        case .examine:
            if account.folders.count > 1, capabilities?.contains("NOTIFY") == true, !usesNotify {
                let others = account.folders.dropFirst().map(IMAPString.mailbox).joined(separator: " ")
                return send(.notify, "NOTIFY SET STATUS (selected (MessageNew (UID) MessageExpunge FlagChange)) "
                            + "(mailboxes (\(others)) (MessageNew MessageExpunge FlagChange))")
            }
            return startCount()
        case .notify:
            usesNotify = true
            return startCount()
        case .status(let folder):
            if (statuses[folder] ?? 0) > 0 { exactQueue.append(folder) }
            return nextFolder()
        case .examineOther(let folder):
            statuses[folder] = 0
            if capabilities?.contains("ESEARCH") == true { return send(.searchOther(folder), "SEARCH RETURN (COUNT) UNSEEN UNDELETED") }
            return send(.searchOther(folder), "SEARCH UNSEEN UNDELETED")
        case .searchOther:
            return nextFolder()
        case .reselect:
            selectedOther = false
            return nextFolder()
        case .search:
            return fetchHeaders()
        case .fetch:
            return reportCount()
        case .selectForStore:
            return nextStore()
        case .reexamine:
            return startCount()
        case .idle, .done, .store:
            return []
        }
    }

    private func fetchHeaders() -> [Action] {
        let newest = found.sorted(by: >).prefix(Self.itemLimit)
        headers = headers.filter { newest.contains($0.key) }
        let missing = newest.filter { headers[$0] == nil }
        if missing.isEmpty { return reportCount() }
        let set = missing.map(String.init).joined(separator: ",")
        return send(.fetch, "UID FETCH \(set) (UID BODY.PEEK[HEADER.FIELDS (FROM SUBJECT DATE MESSAGE-ID)])")
    }

    private func reportCount() -> [Action] {
        var perFolder = [account.folders[0]: found.count]
        for folder in account.folders.dropFirst() { perFolder[folder] = statuses[folder] ?? 0 }
        let newest = found.sorted(by: >).prefix(Self.itemLimit)
        let messages = newest.compactMap { uid in headers[uid].map { IMAPMessage(uid: uid, header: $0) } }
        let count = IMAPCount(perFolder: perFolder, folder: account.folders[0], uidValidity: uidValidity, messages: messages)
        lastFound = found
        var actions: [Action] = [.counted(count)]
        if !marks.isEmpty {
            actions += startMarking()
        } else if supportsIdle {
            actions += send(.idle, "IDLE")
        } else {
            phase = .waiting
        }
        return actions
    }

    /// Untagged data while idling or waiting: a change is told; the rest is ignored.
    private func untagged(_ response: IMAPResponse) -> [Action] {
        if case .tagged = response.kind { return fail(.protocolError(Sentence("%s answered a command that was not sent", .text(account.host)))) }
        if response.kind == .continuation { return [] }
        switch response.dataName {
        case "EXISTS", "EXPUNGE", "FETCH", "RECENT", "VANISHED", "STATUS":
            changedSinceCount = true
            return phase == .idling ? [.changed] : []
        default:
            return []
        }
    }

    /// Data that belongs to the command in flight.
    private func collect(_ response: IMAPResponse) {
        if [.examine, .reselect, .selectForStore, .reexamine].contains(pending?.command),
           let code = response.code?.uppercased(), code.hasPrefix("UIDVALIDITY "),
           let value = UInt32(code.dropFirst("UIDVALIDITY ".count).trimmingWhitespace()) {
            if uidValidity != value { headers = [:] }
            uidValidity = value
        }
        switch response.dataName {
        case "SEARCH" where pending?.command == .search:
            found += response.values.dropFirst().compactMap { $0.atom.flatMap { UInt32($0) } }
        case "SEARCH", "ESEARCH":
            guard case .searchOther(let folder)? = pending?.command else { return }
            let values = response.values.dropFirst()
            if response.dataName == "SEARCH" {
                statuses[folder, default: 0] += values.filter { $0.atom.flatMap { UInt32($0) } != nil }.count
            } else if let at = values.firstIndex(where: { $0.atom?.uppercased() == "COUNT" }), at + 1 < values.endIndex,
                      let count = values[at + 1].atom.flatMap({ Int($0) }) {
                statuses[folder] = count
            }
        case "STATUS":
            guard case .status(let folder)? = pending?.command, response.values.count >= 3,
                  let name = response.values[1].text, IMAPString.sameMailbox(name, folder) else {
                // Another folder's news (NOTIFY) during the recount: counted again after it.
                changedSinceCount = true
                return
            }
            guard let fields = response.values[2].list else { return }
            var index = 0
            while index + 1 < fields.count {
                if fields[index].atom?.uppercased() == "UNSEEN", let value = fields[index + 1].atom.flatMap({ Int($0) }) {
                    statuses[folder] = value
                }
                index += 2
            }
        case "FETCH" where pending?.command == .fetch:
            guard response.values.count >= 3, let fields = response.values[2].list else { return }
            var uid: UInt32?
            var header: [UInt8]?
            var index = 0
            while index + 1 < fields.count {
                let name = fields[index].atom?.uppercased() ?? ""
                if name == "UID" { uid = fields[index + 1].atom.flatMap { UInt32($0) } }
                if name.hasPrefix("BODY[") { header = fields[index + 1].bytes ?? [] }
                index += 2
            }
            if let uid, let header { headers[uid] = Array(header.prefix(16 * 1024)) }
        case "EXISTS", "EXPUNGE", "RECENT", "VANISHED", "FETCH":
            // A change during a command: the count under way may have missed it. What EXAMINE
            // reports is the folder's state as it is opened, not a change.
            switch pending?.command {
            case .examine?, .examineOther?, .reselect?, .selectForStore?, .reexamine?: break
            default: changedSinceCount = true
            }
        default:
            break
        }
    }

    private func refused(_ command: Command, _ response: IMAPResponse) -> [Action] {
        let reason = words(response.text)
        switch command {
        case .authenticate where account.mechanism.usesToken:
            return fail(.tokenRefused(Sentence("%1$s refused the OAuth2 token for %2$s%3$s", .text(account.host), .text(account.user), .text(words(withCode: response)))))
        case .authenticate, .login:
            return fail(.authentication(Sentence("%1$s refused the login for %2$s%3$s", .text(account.host), .text(account.user), .text(reason))))
        case .examine:
            return fail(.folder(Sentence("%1$s has no folder %2$s for %3$s%4$s", .text(account.host), .text(account.folders[0]), .text(account.user), .text(reason))))
        case .status(let folder), .examineOther(let folder):
            return fail(.folder(Sentence("%1$s has no folder %2$s for %3$s%4$s", .text(account.host), .text(folder), .text(account.user), .text(reason))))
        case .reselect, .reexamine:
            return fail(.folder(Sentence("%1$s has no folder %2$s for %3$s%4$s", .text(account.host), .text(account.folders[0]), .text(account.user), .text(reason))))
        case .startTLS:
            return fail(.protocolError(Sentence("%1$s refused STARTTLS%2$s", .text(account.host), .text(reason))))
        case .id:
            // ID is a courtesy: a server that refuses it is still counted.
            return afterLogin()
        case .notify:
            // NOTIFY refused: the other folders are read with STATUS at every recount.
            return startCount()
        default:
            return fail(.protocolError(Sentence("%1$s answered %2$s with %3$s%4$s", .text(account.host), .text(name(of: command)), .text(response.status?.rawValue ?? "?"), .text(reason))))
        }
    }

    private func name(of command: Command) -> String {
        switch command {
        case .capability: "CAPABILITY"
        case .startTLS: "STARTTLS"
        case .authenticate: "AUTHENTICATE"
        case .login: "LOGIN"
        case .id: "ID"
        case .examine: "EXAMINE"
        case .notify: "NOTIFY"
        case .search: "UID SEARCH"
        case .status: "STATUS"
        case .examineOther, .reselect, .reexamine: "EXAMINE"
        case .selectForStore: "SELECT"
        case .store: "UID STORE"
        case .searchOther: "SEARCH"
        case .fetch: "UID FETCH"
        case .idle: "IDLE"
        case .done: "DONE"
        }
    }

    private func send(_ command: Command, _ line: String) -> [Action] {
        tagNumber += 1
        let tag = "b\(tagNumber)"
        pending = (tag, command)
        return [.send(Array("\(tag) \(line)\r\n".utf8))]
    }

    /// `command` with the tag, `prefix` and what `fill` writes, in secret memory; a failure when
    /// `fill` cannot write it.
    private func sendSecret(_ command: Command, _ prefix: String, _ fill: (SecretBytes) -> Bool) -> [Action] {
        guard let line = secretLine("b\(tagNumber + 1) \(prefix)", fill) else { return fail(Self.unsendable) }
        tagNumber += 1
        pending = ("b\(tagNumber)", command)
        return [.sendSecret(line)]
    }

    /// `prefix`, what `fill` writes and CRLF, in secret memory; nil when `fill` says no.
    private func secretLine(_ prefix: String, _ fill: (SecretBytes) -> Bool) -> SecretBytes? {
        let head = Array(prefix.utf8)
        // Quoting at most doubles a byte and base64 takes 4 for 3: 4 per byte is room for either.
        let line = SecretBytes(capacity: head.count + 4 * (account.user.utf8.count + account.host.utf8.count + password.count + 64) + 2)
        head.withUnsafeBytes { _ = line.append($0) }
        guard fill(line), line.append(byte: 0x0D), line.append(byte: 0x0A) else { return nil }
        return line
    }

    private static let unsendable = IMAPFailure.authentication(
        Sentence("the password or user name holds a line break or a NUL, which an IMAP login cannot send"))

    private func fail(_ failure: IMAPFailure) -> [Action] {
        phase = .failed
        pending = nil
        return [.failed(failure)]
    }

    /// Appends SASL PLAIN's response, base64 of NUL user NUL password, to `line`: put together
    /// and encoded in secret memory only (the base64 form is as secret as the password).
    private func appendPlainResponse(to line: SecretBytes) -> Bool {
        let user = Array(account.user.utf8)
        guard !user.contains(0) else { return false }
        let raw = SecretBytes(capacity: user.count + password.count + 2)
        raw.append(byte: 0)
        user.withUnsafeBytes { _ = raw.append($0) }
        raw.append(byte: 0)
        password.withUnsafeBytes { _ = raw.append($0) }
        guard raw.count == user.count + password.count + 2, !password.withUnsafeBytes({ $0.contains(0) }) else { return false }
        return raw.withUnsafeBytes { IMAPString.appendBase64($0, to: line) }
    }

    /// Appends the OAuth2 response in base64, put together in secret memory only (it holds the
    /// token): XOAUTH2's `user=USER^Aauth=Bearer TOKEN^A^A`, or OAUTHBEARER's (RFC 7628)
    /// `n,a=USER,^Ahost=HOST^Aport=PORT^Aauth=Bearer TOKEN^A^A` (`,` and `=` in the user escaped).
    private func appendTokenResponse(to line: SecretBytes) -> Bool {
        let user = Array(account.user.utf8)
        guard !user.contains(0), !user.contains(1), !password.withUnsafeBytes({ $0.contains(0) || $0.contains(1) }) else { return false }
        let head: [UInt8]
        if account.mechanism == .oauthBearer {
            var escaped: [UInt8] = []
            for byte in user {
                switch byte {
                case UInt8(ascii: ","): escaped += Array("=2C".utf8)
                case UInt8(ascii: "="): escaped += Array("=3D".utf8)
                default: escaped.append(byte)
                }
            }
            let bare = account.host.hasPrefix("[") && account.host.hasSuffix("]") ? String(account.host.dropFirst().dropLast()) : account.host
            head = Array("n,a=".utf8) + escaped + Array(",\u{1}host=\(bare)\u{1}port=\(account.port)\u{1}auth=Bearer ".utf8)
        } else {
            head = Array("user=".utf8) + user + Array("\u{1}auth=Bearer ".utf8)
        }
        let raw = SecretBytes(capacity: head.count + password.count + 2)
        head.withUnsafeBytes { _ = raw.append($0) }
        password.withUnsafeBytes { _ = raw.append($0) }
        raw.append(byte: 1)
        raw.append(byte: 1)
        guard raw.count == head.count + password.count + 2 else { return false }
        return raw.withUnsafeBytes { IMAPString.appendBase64($0, to: line) }
    }

    /// ": [CODE] the server's words" (shortened), or nothing.
    private func words(withCode response: IMAPResponse) -> String {
        words((response.code.map { "[\($0)] " } ?? "") + response.text)
    }

    /// ": the server's words" (shortened), or nothing.
    private func words(_ text: String) -> String {
        let trimmed = text.trimmingWhitespace()
        guard !trimmed.isEmpty else { return "" }
        let clean = String(trimmed.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }.prefix(200).map(Character.init))
        return ": \(clean)"
    }
}

/// One message's header fields as the server sent them (decoded by the source).
package struct IMAPMessage: Equatable, Sendable {
    /// The message's UID in the watched folder.
    package var uid: UInt32
    /// From, Subject, Date and Message-ID, raw.
    package var header: [UInt8]
}

/// A whole count, as one recount read it.
package struct IMAPCount: Equatable, Sendable {
    /// Unseen messages per folder (not marked deleted, in the watched folder).
    package var perFolder: [String: Int]
    /// The watched folder (the one whose messages are listed).
    package var folder: String
    /// The watched folder's UIDVALIDITY, when the server said it.
    package var uidValidity: UInt32?
    /// The newest unseen messages of the watched folder, newest first (at most 200).
    package var messages: [IMAPMessage]
    /// The sum over the folders.
    package var total: Int { perFolder.values.reduce(0, +) }
}

/// Why an IMAP conversation ended, in words a user can act on (never holding a secret).
package enum IMAPFailure: Error, Equatable, CustomStringConvertible {
    /// The login was refused: not retried until the user asks (a refresh) or the config changes.
    case authentication(Sentence)
    /// An OAuth2 token was refused: the source runs its command once more (a fresh token) and
    /// tries again; a second refusal is an ``authentication(_:)`` failure.
    case tokenRefused(Sentence)
    /// A folder is missing.
    case folder(Sentence)
    /// The server said goodbye or refused the connection.
    case server(Sentence)
    /// The server broke the protocol.
    case protocolError(Sentence)

    /// What went wrong, in English.
    package var description: String { sentence.english }

    /// What went wrong, to be said in the user's language.
    package var sentence: Sentence {
        switch self {
        case .authentication(let text), .tokenRefused(let text), .folder(let text), .server(let text), .protocolError(let text): text
        }
    }
}
