import BadgeCore
import BadgeIO
@testable import BadgeSources
import Glibc
import Testing
import XvfbHarness

/// The IMAP source against a real Dovecot on loopback: TLS with the test's own CA, IDLE, STARTTLS,
/// the faults a laptop meets (server killed, connection cut, a proxy gone silent), refused logins
/// and password commands that fail, and that the password shows nowhere.
@Suite("IMAP source against Dovecot", .serialized, .enabled(if: Dovecot.isAvailable, "needs dovecot-imapd and openssl"))
struct IMAPSourceTests {
    /// Drives `source` until `condition` holds on its reading, at most `seconds`.
    func drive(_ loop: SourceLoop, _ source: IMAPSource, _ seconds: Double = 10, _ label: String,
               sourceLocation: SourceLocation = #_sourceLocation, until condition: (SourceReading) -> Bool) {
        let held = loop.run(atMost: seconds) { condition(source.reading) }
        #expect(held, "\(label): \(source.reading)", sourceLocation: sourceLocation)
    }

    func expectNoSecret(_ source: IMAPSource, _ server: Dovecot, sourceLocation: SourceLocation = #_sourceLocation) {
        let text = "\(source.reading)"
        #expect(!text.contains(server.password), "the password leaked: \(text)", sourceLocation: sourceLocation)
    }

    @Test("The fixture finds another Dovecot on the ports it picked and says so (a busy machine's cause of failed deliveries); a new server picks other ports")
    func fixtureOnTakenPorts() throws {
        let first = try Dovecot()
        var error = ""
        _ = try Dovecot(onThePortsOf: first, error: &error)
        #expect(error.contains("another server answers on this fixture's port") && error.contains("127.0.0.1:\(first.imapsPort)"), "\(error)")
        try first.deliver(from: "a@example.org", subject: "still the first one's")
        let second = try Dovecot()
        #expect(second.imapsPort != first.imapsPort)
        try second.deliver(from: "b@example.org", subject: "the second one's")
    }

    @Test("Counts the unseen, lists them decoded, follows APPEND and STORE within 1 s through IDLE")
    func countsAndFollows() throws {
        let server = try Dovecot()
        try server.deliver(from: "=?UTF-8?Q?J=C3=BCrgen_M=C3=BCller?= <j@example.org>", subject: "=?ISO-8859-1?Q?Gr=FC=DFe?=")
        try server.deliver(from: "Bob <bob@example.org>", subject: "Lunch")
        try server.deliver(from: "Old <old@example.org>", subject: "read already", seen: true)
        let source = IMAPSource(account: server.account(), password: server.passwordCommand)
        let loop = SourceLoop(sources: [source])
        loop.start()
        defer { loop.stop() }
        drive(loop, source, 15, "two unseen") { $0.content == .count(2) && $0.description.hasSuffix("IDLE") }
        let titles = source.reading.items?.items.map(\.title) ?? []
        #expect(Set(titles) == ["Jürgen Müller", "Bob"], "\(titles)")
        #expect(source.reading.items?.items.contains { $0.detail == "Grüße" } == true)
        #expect(source.reading.description == "alice@localhost:\(server.imapsPort) INBOX, IDLE")
        try server.deliver(from: "Carol <c@example.org>", subject: "New")
        let delivered = SystemTime.monotonic
        drive(loop, source, 5, "three after APPEND") { $0.content == .count(3) }
        #expect(SystemTime.monotonic - delivered < 1.0, "followed in \(SystemTime.monotonic - delivered) s")
        try server.store("\\Seen")
        let marked = SystemTime.monotonic
        drive(loop, source, 5, "none after STORE \\Seen") { $0.content == .count(0) }
        #expect(SystemTime.monotonic - marked < 1.0, "followed in \(SystemTime.monotonic - marked) s")
        #expect(source.reading.items?.items.isEmpty == true)
        expectNoSecret(source, server)
    }

    @Test("After a burst of 210 messages with the same Date second the newest is on top: by Date, then by arrival (UID)")
    func burstOrder() throws {
        let server = try Dovecot()
        try server.burst(210)
        let source = IMAPSource(account: server.account(), password: server.passwordCommand)
        let loop = SourceLoop(sources: [source])
        loop.start()
        defer { loop.stop() }
        drive(loop, source, 20, "210 unseen") { $0.content == .count(210) && $0.items?.items.count == IMAPSession.itemLimit }
        let subjects = source.reading.items?.items.map { $0.detail ?? "" } ?? []
        #expect(subjects.prefix(3) == ["burst 210", "burst 209", "burst 208"], "\(subjects.prefix(5))")
        #expect(subjects.last == "burst 11", "\(subjects.suffix(3))")
        #expect(source.reading.items?.unlisted == 10)
        try server.deliver(from: "Late <late@example.org>", subject: "after the burst")
        drive(loop, source, 5, "the late one on top") { $0.items?.items.first?.detail == "after the burst" }
    }

    /// Marks `keys` read (all for nil) and drives the loop until the source says how it went.
    func markRead(_ loop: SourceLoop, _ source: IMAPSource, _ keys: [String]?, sourceLocation: SourceLocation = #_sourceLocation) -> MarkReadOutcome? {
        var outcome: MarkReadOutcome?
        source.markRead(keys) { outcome = $0 }
        _ = loop.run(atMost: 10) { outcome != nil }
        #expect(outcome != nil, "mark read never finished: \(source.reading)", sourceLocation: sourceLocation)
        return outcome
    }

    @Test("Mark read: UID STORE +FLAGS.SILENT (\\Seen) on the IDLE connection; Dovecot's FETCH FLAGS shows \\Seen, the count drops, and IDLE still counts the next delivery within 1 s; mark all marks only what was counted")
    func marksRead() throws {
        let server = try Dovecot()
        try server.deliver(from: "Alice <a@example.org>", subject: "one")
        try server.deliver(from: "Bob <b@example.org>", subject: "two")
        try server.deliver(from: "Carol <c@example.org>", subject: "three")
        let source = IMAPSource(account: server.account(), password: server.passwordCommand)
        let loop = SourceLoop(sources: [source])
        loop.start()
        defer { loop.stop() }
        drive(loop, source, 15, "three unseen, idling") { $0.content == .count(3) && $0.description.hasSuffix("IDLE") }
        let bob = try #require(source.reading.items?.items.first { $0.title == "Bob" })
        let started = SystemTime.monotonic
        #expect(markRead(loop, source, [bob.key]) == .marked)
        drive(loop, source, 5, "two after marking Bob read") { $0.content == .count(2) && $0.description.hasSuffix("IDLE") }
        #expect(SystemTime.monotonic - started < 1.0, "confirmed in \(SystemTime.monotonic - started) s")
        #expect(source.reading.items?.items.contains { $0.title == "Bob" } == false)
        let bobFlags = try server.flags(uid: UInt32(bob.key) ?? 0)
        #expect(bobFlags.contains("\\Seen"), "\(bobFlags)")
        #expect(try !server.flags(uid: 1).contains("\\Seen"), "Alice's is still unseen")
        // IDLE is back: a delivery is counted within a second.
        try server.deliver(from: "Dave <d@example.org>", subject: "four")
        let delivered = SystemTime.monotonic
        drive(loop, source, 5, "three after a delivery") { $0.content == .count(3) }
        #expect(SystemTime.monotonic - delivered < 1.0, "followed in \(SystemTime.monotonic - delivered) s")
        // Mark all: what the last count found (Alice, Carol, Dave).
        #expect(markRead(loop, source, nil) == .marked)
        drive(loop, source, 5, "none after mark all") { $0.content == .count(0) && $0.description.hasSuffix("IDLE") }
        for uid in UInt32(1)...4 { #expect(try server.flags(uid: uid).contains("\\Seen"), "uid \(uid)") }
        try server.deliver(from: "Eve <e@example.org>", subject: "five")
        drive(loop, source, 5, "Eve counted, unseen") { $0.content == .count(1) }
        #expect(try !server.flags(uid: 5).contains("\\Seen"), "nothing is marked that the user did not act on")
        // A key that is no UID of the folder: refused at once, nothing sent.
        if case .failed(let reason)? = markRead(loop, source, ["not-a-uid"]) { #expect(reason.contains("no message not-a-uid")) } else { Issue.record("taken") }
        expectNoSecret(source, server)
    }

    @Test("A refused STORE (a read-only folder: NO [NOPERM]) fails the request with the server's words; the connection goes on counting")
    func refusedStore() throws {
        let server = try Dovecot()
        try server.deliver(from: "Alice <a@example.org>", subject: "one")
        let proxy = try IMAPStandIn.refusingStore(to: server.imapPort)
        let source = IMAPSource(account: server.account(security: .cleartext, host: "127.0.0.1", port: proxy.port), password: server.passwordCommand)
        let loop = SourceLoop(sources: [source])
        loop.start()
        defer { loop.stop() }
        drive(loop, source, 15, "one unseen") { $0.content == .count(1) && $0.description.hasSuffix("IDLE") }
        let outcome = markRead(loop, source, ["1"])
        guard case .failed(let reason)? = outcome else { Issue.record("\(String(describing: outcome))"); return }
        #expect(reason == "127.0.0.1 refused to mark read in INBOX: [NOPERM] read-only folder (the test's proxy)", "\(reason)")
        drive(loop, source, 5, "still one, IDLE again") { $0.content == .count(1) && $0.description.hasSuffix("IDLE") && $0.error == nil }
        #expect(try !server.flags(uid: 1).contains("\\Seen"))
        try server.deliver(from: "Bob <b@example.org>", subject: "two")
        drive(loop, source, 5, "two") { $0.content == .count(2) }
    }

    @Test("OAuth2 against Dovecot's oauth2 passdb: an expired token is refused, the command runs once more and the fresh token is counted; a token refused twice is an error naming the helper; no token in a reading",
          arguments: [IMAPAccount.Mechanism.xoauth2, .oauthBearer])
    func oauth2(mechanism: IMAPAccount.Mechanism) throws {
        let good = "ya29.good-\(UInt32.random(in: 0 ... .max))"
        let server = try Dovecot(oauthToken: good)
        try server.deliver(from: "Alice <a@example.org>", subject: "one")
        let helper = try TemporaryFolder()
        // A token helper (oama, mutt_oauth2.py) whose cached token has expired: the first run prints it, the next a fresh one.
        let script = "echo run >> \(helper("runs")); if [ -e \(helper("used")) ]; then echo \(good); else : > \(helper("used")); echo ya29.expired; fi"
        let source = IMAPSource(account: server.account(mechanism: mechanism), password: .command(["/bin/sh", "-c", script]))
        let loop = SourceLoop(sources: [source])
        loop.start()
        defer { loop.stop() }
        drive(loop, source, 20, "counted with the fresh token") { $0.content == .count(1) && $0.description.hasSuffix("IDLE") }
        #expect(server.tokensAsked == ["ya29.expired", good], "\(server.tokensAsked)")
        let runs = (try? BoundedRead.prefix(of: helper("runs"), limit: 4096)).map { String(decoding: $0, as: UTF8.self) } ?? ""
        #expect(runs == "run\nrun\n", "the helper ran twice: \(runs)")
        #expect(!"\(source.reading)".contains(good) && !server.log.contains(good), "the token leaked")
        // Refused twice: an error that names the helper, and nothing more is tried.
        let refused = IMAPSource(account: server.account(mechanism: mechanism), password: .command(["/bin/echo", "ya29.never-good"]))
        let second = SourceLoop(sources: [refused])
        second.start()
        defer { second.stop() }
        drive(second, refused, 20, "refused twice") { $0.error?.contains("again with a fresh token from the passwordCommand /bin/echo") == true }
        #expect(refused.reading.error?.hasPrefix("localhost refused the OAuth2 token for alice") == true, "\(refused.reading.error ?? "")")
        #expect(refused.timeUntilDue == nil && refused.descriptors.isEmpty, "nothing retried")
        #expect(server.tokensAsked.filter { $0 == "ya29.never-good" }.count == 2, "\(server.tokensAsked)")
        #expect(!"\(refused.reading)".contains("never-good"))
    }

    @Test("Two accounts on one button: the exact sum, every item naming its account, marking read goes to the account that has it; one server stopped: stale, the error names it, the other still counted")
    func twoAccounts() throws {
        let work = try Dovecot(), home = try Dovecot()
        try work.deliver(from: "Boss <boss@example.org>", subject: "report")
        try work.deliver(from: "Colleague <c@example.org>", subject: "lunch?")
        for n in 1...3 { try home.deliver(from: "Friend \(n) <f\(n)@example.org>", subject: "hi \(n)") }
        let sum = SumSource(parts: [SumSource.Part(name: "work", source: IMAPSource(account: work.account(), password: work.passwordCommand)),
                                    SumSource.Part(name: "home", source: IMAPSource(account: home.account(), password: home.passwordCommand))])
        let loop = SourceLoop(sources: [sum])
        loop.start()
        defer { loop.stop() }
        #expect(loop.run(atMost: 20) { sum.reading.content == .count(5) && !sum.reading.isStale }, "\(sum.reading)")
        let items = sum.reading.items?.items ?? []
        #expect(items.filter { $0.detail?.hasPrefix("work · ") == true && $0.key.hasPrefix("1:") }.count == 2, "\(items.map { ($0.key, $0.detail ?? "") })")
        #expect(items.filter { $0.detail?.hasPrefix("home · ") == true && $0.key.hasPrefix("2:") }.count == 3)
        #expect(sum.reading.description.hasPrefix("work (alice@localhost:\(work.imapsPort) INBOX"), "\(sum.reading.description)")
        // Mark read: home's third message only.
        var outcome: MarkReadOutcome?
        sum.markRead(["2:3"]) { outcome = $0 }
        #expect(loop.run(atMost: 10) { outcome != nil && sum.reading.content == .count(4) }, "\(String(describing: outcome)) \(sum.reading)")
        #expect(outcome == .marked)
        let flags = try home.flags(uid: 3)
        #expect(flags.contains("\\Seen"), "\(flags)")
        #expect(try !work.flags(uid: 2).contains("\\Seen"))
        // Home's server stops: stale, and the error says which account.
        home.kill()
        #expect(loop.run(atMost: 10) { sum.reading.isStale && sum.reading.error?.hasPrefix("home: ") == true }, "\(sum.reading)")
        #expect(sum.reading.content == .count(4), "home's last count is kept: \(sum.reading)")
        #expect(sum.reading.error?.contains("work:") == false)
        // Work still counts, within a second.
        try work.deliver(from: "Boss <boss@example.org>", subject: "again")
        #expect(loop.run(atMost: 5) { sum.reading.content == .count(5) }, "\(sum.reading)")
    }

    @Test("STARTTLS on the plain port, and a second folder counted exactly (an unseen message marked \\Deleted is not) and followed with NOTIFY within 1 s")
    func startTLSAndFolders() throws {
        let server = try Dovecot()
        try server.deliver(from: "A <a@example.org>", subject: "one")
        try server.deliver(from: "L <l@example.org>", subject: "list mail", folder: "Lists")
        try server.deliver(from: "L <l@example.org>", subject: "more list mail", folder: "Lists")
        // Deleted in a client that marks and expunges later (mutt): STATUS (UNSEEN) still counts it.
        try server.deliver(from: "L <l@example.org>", subject: "deleted list mail", folder: "Lists")
        try server.store("\\Deleted", uid: "3", folder: "Lists")
        let source = IMAPSource(account: server.account(security: .startTLS, folders: ["INBOX", "Lists"]), password: server.passwordCommand)
        let loop = SourceLoop(sources: [source])
        loop.start()
        defer { loop.stop() }
        drive(loop, source, 15, "1 + 2 unseen over STARTTLS") { $0.content == .count(3) && $0.description.hasSuffix("IDLE and NOTIFY") }
        #expect(source.reading.items?.items.count == 1, "only the watched folder's messages are listed")
        // A change in INBOX recounts both folders.
        try server.deliver(from: "B <b@example.org>", subject: "two")
        drive(loop, source, 5, "four") { $0.content == .count(4) }
        // Dovecot pushes the other folder's change (NOTIFY): counted within a second.
        try server.deliver(from: "L <l@example.org>", subject: "third list mail", folder: "Lists")
        let delivered = SystemTime.monotonic
        drive(loop, source, 5, "five") { $0.content == .count(5) }
        #expect(SystemTime.monotonic - delivered < 1.0, "followed in \(SystemTime.monotonic - delivered) s")
        expectNoSecret(source, server)
    }

    @Test("A refused login: one clear error, a stale badge, no retry until a refresh")
    func wrongPassword() throws {
        let server = try Dovecot()
        let source = IMAPSource(account: server.account(), password: .command(["/bin/echo", "not-the-password"]))
        let loop = SourceLoop(sources: [source])
        loop.start()
        defer { loop.stop() }
        drive(loop, source, 15, "refused") { $0.error != nil && $0.isStale && $0.error?.contains("refused the login for alice") == true }
        #expect(source.timeUntilDue == nil, "nothing is scheduled: no retry storm")
        #expect(source.descriptors.isEmpty, "the connection is closed")
        // Dovecot logs the failure when the connection ends: then nothing more comes.
        _ = loop.run(atMost: 5) { server.log.ranges(of: "auth failed").count >= 1 }
        _ = loop.run(atMost: 2) { false }
        #expect(server.log.ranges(of: "auth failed").count == 1, "one login attempt: \(server.log)")
        #expect(!"\(source.reading)".contains("not-the-password"))
    }

    @Test("Certificates: another host name, an unknown CA, a missing CA file: each a clear error naming the host and the reason")
    func certificates() throws {
        let server = try Dovecot()
        let other = try TemporaryFolder()
        try runToEnd(["/usr/bin/openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost", "-days", "2",
                      "-keyout", other("key.pem"), "-out", other("cert.pem")])
        let cases: [(IMAPAccount, String)] = [
            (server.account(host: "127.0.0.1"), "the certificate of 127.0.0.1 is not trusted"),
            (IMAPAccount(host: "localhost", port: server.imapsPort, user: "alice"),
             "the certificate of localhost is not trusted: self-signed certificate (checked against the system's authorities; "
                + "a private CA's certificate goes in \"caFile\")"),
            // Another CA file than the server's: the error names the file it was checked against.
            (server.account(caFile: other("cert.pem")), "(checked against the authorities in \"caFile\" \(other("cert.pem")))"),
            (server.account(caFile: server.folder("missing.pem")), "cannot read the certificate authorities in"),
        ]
        for (account, expected) in cases {
            let source = IMAPSource(account: account, password: server.passwordCommand)
            let loop = SourceLoop(sources: [source])
            loop.start()
            drive(loop, source, 10, expected) { ($0.error ?? "").contains(expected) }
            #expect(source.reading.content == nil, "never counted over an untrusted connection")
            if expected.contains("127.0.0.1") {
                #expect(source.reading.error?.contains("caFile") == false, "a name mismatch is no CA's fault: \(source.reading.error ?? "")")
            }
            loop.stop()
        }
    }

    @Test("Password commands that fail, hang or print nothing: a clear error each, and no retry until a refresh")
    func passwordCommands() throws {
        let server = try Dovecot()
        let cases: [(IMAPPassword, String)] = [
            (.command(["/bin/sh", "-c", "echo no such entry >&2; exit 3"]), "failed (exit status 3): no such entry"),
            (.command(["/bin/sleep", "30"]), "took longer than"),
            (.command(["/bin/true"]), "printed no password"),
            (.command(["/nonexistent/pass"]), "cannot run the passwordCommand"),
        ]
        for (password, expected) in cases {
            let source = IMAPSource(account: server.account(), password: password, timing: IMAPTiming(passwordCommand: 1))
            let loop = SourceLoop(sources: [source])
            loop.start()
            drive(loop, source, 10, expected) { ($0.error ?? "").contains(expected) }
            #expect(source.timeUntilDue == nil && source.descriptors.isEmpty, "\(expected): nothing runs or waits")
            loop.stop()
        }
        // A refresh after the user fixed it reads the password again.
        let source = IMAPSource(account: server.account(), password: .command(["/bin/sh", "-c", "cat \"$0\" 2>/dev/null || true", server.folder("pw")]))
        let loop = SourceLoop(sources: [source])
        loop.start()
        defer { loop.stop() }
        drive(loop, source, 10, "no password yet") { ($0.error ?? "").contains("printed no password") }
        try server.folder.write(server.password + "\n", to: "pw")
        source.refresh()
        drive(loop, source, 15, "counted after the refresh") { $0.content == .count(0) && $0.error == nil }
    }

    @Test("Dovecot killed: stale with the reason within a second, and the right count after it is back")
    func serverRestart() throws {
        let server = try Dovecot()
        try server.deliver(from: "A <a@example.org>", subject: "one")
        let source = IMAPSource(account: server.account(), password: server.passwordCommand)
        let loop = SourceLoop(sources: [source])
        loop.start()
        defer { loop.stop() }
        drive(loop, source, 15, "one") { $0.content == .count(1) && $0.description.hasSuffix("IDLE") }
        server.kill()
        drive(loop, source, 2, "stale") { $0.isStale && ($0.error ?? "").contains("closed the connection") }
        #expect(source.reading.content == .count(1), "the last count stays, stale")
        try server.start()
        try server.deliver(from: "B <b@example.org>", subject: "two")
        try server.deliver(from: "C <c@example.org>", subject: "three")
        try server.store("\\Deleted", uid: "1")
        drive(loop, source, 20, "recounted after the restart") { $0.content == .count(2) && !$0.isStale }
        expectNoSecret(source, server)
    }

    @Test("A connection cut by a proxy is found at once; one the proxy stalls without closing, within keepalive + reply")
    func proxyFaults() throws {
        let server = try Dovecot()
        let proxy = try IMAPStandIn.proxy(to: server.imapsPort)
        try server.deliver(from: "A <a@example.org>", subject: "one")
        let timing = IMAPTiming(reply: 1, keepalive: 1)
        let source = IMAPSource(account: server.account(port: proxy.port), password: server.passwordCommand, timing: timing)
        let loop = SourceLoop(sources: [source])
        loop.start()
        defer { loop.stop() }
        drive(loop, source, 15, "one through the proxy") { $0.content == .count(1) && $0.description.hasSuffix("IDLE") }
        proxy.signal(SIGUSR2)
        var cut = SystemTime.monotonic
        drive(loop, source, 2, "cut: stale") { $0.isStale && ($0.error ?? "").contains("closed the connection") }
        #expect(SystemTime.monotonic - cut < 1, "a cut is seen at once")
        try server.deliver(from: "B <b@example.org>", subject: "two")
        drive(loop, source, 10, "two after reconnecting") { $0.content == .count(2) && !$0.isStale }
        // Stalled: the keepalive's DONE gets no answer within the reply deadline.
        drive(loop, source, 5, "idling again") { $0.description.hasSuffix("IDLE") }
        proxy.signal(SIGUSR1)
        cut = SystemTime.monotonic
        drive(loop, source, 6, "stalled: stale") { $0.isStale && ($0.error ?? "").contains("did not answer within 1 s") }
        #expect(SystemTime.monotonic - cut <= timing.keepalive + timing.reply + 0.5)
        try server.deliver(from: "C <c@example.org>", subject: "three")
        drive(loop, source, 10, "three on a new connection") { $0.content == .count(3) && !$0.isStale }
        expectNoSecret(source, server)
    }

    @Test("A server that greets after 10 s is counted; the greeting deadline is stated")
    func slowGreeting() throws {
        let standIn = try IMAPStandIn.server("slow", delay: 10)
        let account = IMAPAccount(host: "127.0.0.1", port: standIn.port, security: .cleartext, user: "alice")
        let source = IMAPSource(account: account, password: .command(["/bin/echo", "pw"]))
        let loop = SourceLoop(sources: [source])
        loop.start()
        defer { loop.stop() }
        drive(loop, source, 2, "waiting for the greeting") { $0.description.hasSuffix("connecting") && $0.error == nil }
        drive(loop, source, 15, "counted after the late greeting") { $0.content == .count(3) }
        #expect(source.reading.items?.items.first?.detail == "über")
        // Past the greeting deadline, a clear error.
        let late = try IMAPStandIn.server("slow", delay: 30)
        let impatient = IMAPSource(account: IMAPAccount(host: "127.0.0.1", port: late.port, security: .cleartext, user: "alice"),
                                   password: .command(["/bin/echo", "pw"]), timing: IMAPTiming(greeting: 1))
        let second = SourceLoop(sources: [impatient])
        second.start()
        defer { second.stop() }
        drive(second, impatient, 5, "greeting deadline") { ($0.error ?? "").contains("did not answer within 1 s (waiting for the greeting)") }
    }

    @Test("Stand-ins that send no IMAP, an endless line, a 2 GB literal or lists 10,000 deep: a clear error each, bounded memory")
    func hostileServers() throws {
        let cases = [("malformed", #"sent a line that is no IMAP response ("HTTP/1.1 400 Bad Request")"#), ("endless", "a response longer than 256 KiB"),
                     ("literal", "a literal of 2000000000 bytes"), ("nested", "lists nested more than 32 deep")]
        for (mode, expected) in cases {
            let standIn = try IMAPStandIn.server(mode)
            let account = IMAPAccount(host: "127.0.0.1", port: standIn.port, security: .cleartext, user: "alice")
            let source = IMAPSource(account: account, password: .command(["/bin/echo", "pw"]))
            let loop = SourceLoop(sources: [source])
            loop.start()
            drive(loop, source, 10, mode) { ($0.error ?? "").contains(expected) && $0.isStale }
            #expect(source.timeUntilDue.map { $0 > 0 } == true, "\(mode): a retry is scheduled, with backoff")
            loop.stop()
        }
    }

    @Test("Cleartext is refused for a host off loopback; the port follows the security")
    func cleartextAndPorts() {
        #expect(IMAPAccount(host: "imap.example.org", user: "me").port == 993)
        #expect(IMAPAccount(host: "imap.example.org", security: .startTLS, user: "me").port == 143)
        let source = IMAPSource(account: IMAPAccount(host: "imap.example.org", security: .cleartext, user: "me"),
                                password: .command(["/bin/echo", "pw"]))
        source.start()
        defer { source.stop() }
        #expect(source.reading.error?.contains("cleartext IMAP is allowed only to a host on loopback") == true)
        #expect(source.descriptors.isEmpty && source.timeUntilDue == nil)
    }

    @Test("The password from the Secret Service: a real gnome-keyring-daemon on the test's own bus; a missing item and a missing service are clear errors",
          .enabled(if: PrivateBus.isAvailable, "needs dbus-daemon, gnome-keyring and libsecret-tools"))
    func secretService() throws {
        let server = try Dovecot()
        try server.deliver(from: "A <a@example.org>", subject: "one")
        let keyring = try PrivateBus()
        // No keyring yet on the bus: a clear error, and nothing retried.
        let early = IMAPSource(account: server.account(), password: .secretService(["service": "imap", "user": "alice"]),
                               sessionBusAddress: keyring.address)
        let first = SourceLoop(sources: [early])
        first.start()
        drive(first, early, 10, "no Secret Service") { ($0.error ?? "").contains("no Secret Service answers on the session bus") }
        #expect(early.timeUntilDue == nil)
        first.stop()
        try keyring.startKeyring()
        try keyring.store(server.password, attributes: ["service": "imap", "user": "alice"])
        let source = IMAPSource(account: server.account(), password: .secretService(["service": "imap", "user": "alice"]),
                                sessionBusAddress: keyring.address)
        let loop = SourceLoop(sources: [source])
        loop.start()
        defer { loop.stop() }
        drive(loop, source, 15, "counted with the keyring's password") { $0.content == .count(1) && $0.error == nil }
        expectNoSecret(source, server)
        let missing = IMAPSource(account: server.account(), password: .secretService(["service": "imap", "user": "bob"]),
                                 sessionBusAddress: keyring.address)
        let other = SourceLoop(sources: [missing])
        other.start()
        defer { other.stop() }
        drive(other, missing, 10, "no such item") { ($0.error ?? "").contains("has no item service=imap user=bob") }
    }

    @Test("logind's PrepareForSleep: the connection is dropped before the suspend and a recount follows the resume; a spoofed one is ignored",
          .enabled(if: access("/usr/bin/dbus-daemon", X_OK) == 0 && access("/usr/bin/dbus-send", X_OK) == 0, "needs dbus-daemon and python3-dbus"))
    func suspend() throws {
        let server = try Dovecot()
        try server.deliver(from: "A <a@example.org>", subject: "one")
        let system = try PrivateBus()
        try system.startLogind()
        let source = IMAPSource(account: server.account(), password: server.passwordCommand, systemBusAddress: system.address)
        let loop = SourceLoop(sources: [source])
        loop.start()
        defer { loop.stop() }
        drive(loop, source, 15, "one") { $0.content == .count(1) && $0.description.hasSuffix("IDLE") }
        try system.spoofSleep()
        _ = loop.run(atMost: 0.5) { source.reading.isStale }
        #expect(!source.reading.isStale, "a PrepareForSleep from another connection is ignored: \(source.reading)")
        system.signalLogind(SIGUSR1)
        drive(loop, source, 5, "asleep") { ($0.error ?? "").contains("the machine is going to sleep") }
        #expect(source.timeUntilDue == nil, "nothing is retried while asleep")
        try server.deliver(from: "B <b@example.org>", subject: "two")
        try server.store("\\Seen", uid: "1")
        system.signalLogind(SIGUSR2)
        let resumed = SystemTime.monotonic
        drive(loop, source, 10, "recounted after the resume") { $0.content == .count(1) && !$0.isStale && $0.items?.items.first?.title == "B" }
        #expect(SystemTime.monotonic - resumed < 2, "reconnected in \(SystemTime.monotonic - resumed) s")
    }

    @Test("Without logind, a suspend is found from the clocks (CLOCK_BOOTTIME ahead of CLOCK_MONOTONIC): a new connection and a recount")
    func suspendFromClocks() throws {
        let server = try Dovecot()
        try server.deliver(from: "A <a@example.org>", subject: "one")
        let source = IMAPSource(account: server.account(), password: server.passwordCommand, systemBusAddress: "unix:path=/nonexistent")
        let loop = SourceLoop(sources: [source])
        loop.start()
        defer { loop.stop() }
        drive(loop, source, 15, "one") { $0.content == .count(1) && $0.description.hasSuffix("IDLE") }
        var offset = 0.0
        source.sleepClock = { offset }
        _ = loop.run(atMost: 0.2) { false }
        offset = 120  // two minutes asleep
        try server.deliver(from: "B <b@example.org>", subject: "two")
        drive(loop, source, 3, "noticed") { ($0.error ?? "").contains("the machine slept") }
        drive(loop, source, 10, "recounted") { $0.content == .count(2) && !$0.isStale }
    }
}

/// A private bus (XvfbHarness's SessionBus, activating nothing) and, once asked, an unlocked
/// gnome-keyring-daemon on it, with their own HOME and XDG_RUNTIME_DIR (nothing touches the user's
/// keyring), or a stand-in for logind that says the machine sleeps (SIGUSR1) and woke (SIGUSR2).
final class PrivateBus {
    static let isAvailable = ["/usr/bin/dbus-daemon", "/usr/bin/gnome-keyring-daemon", "/usr/bin/secret-tool"].allSatisfy { (path: String) in access(path, X_OK) == 0 }
    let folder: TemporaryFolder
    let address: String
    private let bus: SessionBus
    private var keyring: ChildRun?
    private var logind: ChildRun?
    private var environment: [String: String] {
        ["DBUS_SESSION_BUS_ADDRESS": address, "HOME": folder.path, "XDG_RUNTIME_DIR": folder("run"),
         "XDG_DATA_HOME": folder("data"), "XDG_CONFIG_HOME": folder("config")]
    }

    init() throws {
        folder = try TemporaryFolder()
        mkdir(folder("run"), 0o700)
        mkdir(folder("services"), 0o700)
        // Service activation from an empty folder only: nothing is started with the user's HOME.
        bus = try SessionBus(serviceFolder: folder("services"))
        address = bus.address
    }

    func startKeyring() throws {
        keyring = ChildRun(arguments: ["/bin/sh", "-c", "printf pw | exec /usr/bin/gnome-keyring-daemon --unlock --components=secrets --foreground"],
                           environment: environment.mapValues { Optional($0) }, timeLimit: 600, outputLimit: 1 << 16)
    }

    /// Stores `secret` under `attributes` with secret-tool, retried until the keyring is on the bus (at most 10 s).
    func store(_ secret: String, attributes: [String: String]) throws {
        let pairs = attributes.sorted { $0.key < $1.key }.flatMap { [$0.key, $0.value] }
        try python("""
        import subprocess, sys, time
        end = time.monotonic() + 10
        while subprocess.run(["secret-tool", "store", "--label=mail"] + sys.argv[2:], input=sys.argv[1].encode()).returncode != 0:
            if time.monotonic() > end: sys.exit("secret-tool store never succeeded")
            time.sleep(0.1)
        """, arguments: [secret] + pairs, environment: environment)
    }

    /// A stand-in for logind (python3-dbus): owns org.freedesktop.login1 and emits
    /// PrepareForSleep(true) on SIGUSR1, PrepareForSleep(false) on SIGUSR2.
    func startLogind() throws {
        let marker = folder("logind-ready")
        logind = ChildRun(arguments: ["/usr/bin/python3", "-c", """
        import dbus, dbus.service, dbus.mainloop.glib, signal, sys
        from gi.repository import GLib
        dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
        bus = dbus.bus.BusConnection(sys.argv[1])
        name = dbus.service.BusName("org.freedesktop.login1", bus)
        class Manager(dbus.service.Object):
            @dbus.service.signal("org.freedesktop.login1.Manager", signature="b")
            def PrepareForSleep(self, start): pass
        manager = Manager(bus, "/org/freedesktop/login1")
        GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGUSR1, lambda: manager.PrepareForSleep(True) or True)
        GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGUSR2, lambda: manager.PrepareForSleep(False) or True)
        open(sys.argv[2], "w").close()
        GLib.MainLoop().run()
        """, address, marker], timeLimit: 600, outputLimit: 1 << 16)
        try python("""
        import os, sys, time
        end = time.monotonic() + 10
        while not os.path.exists(sys.argv[1]):
            if time.monotonic() > end: sys.exit("the logind stand-in never started")
            time.sleep(0.02)
        """, marker)
    }

    /// Sends `signal` to the logind stand-in.
    func signalLogind(_ number: Int32) { if let pid = logind?.pid, pid > 0 { kill(pid, number) } }

    /// Sends a PrepareForSleep(true) from a connection that is not logind's (dbus-send).
    func spoofSleep() throws {
        try runToEnd(["dbus-send", "--bus=\(address)", "--type=signal", "/org/freedesktop/login1",
                      "org.freedesktop.login1.Manager.PrepareForSleep", "boolean:true"])
    }

    deinit {
        logind?.cancel()
        keyring?.cancel()
    }
}
