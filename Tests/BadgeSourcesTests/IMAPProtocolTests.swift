@testable import BadgeSources
import BadgeCore
import BadgeIO
import Glibc
import Testing

/// IMAP's grammar and the conversation, without a server: framing with literals, the values, and
/// the session's walk against scripted answers.
@Suite("IMAP responses and the session")
struct IMAPProtocolTests {
    @Test("The framer cuts at CRLF, keeps literals whole across reads, and bounds a response")
    func framing() throws {
        var framer = IMAPResponseFramer()
        let wire = Array("* 1 FETCH (UID 9 BODY[HEADER.FIELDS (FROM)] {11}\r\nFrom: a\r\n\r\n)\r\n* 2 EXISTS\r\n".utf8)
        var responses: [[UInt8]] = []
        for byte in wire { responses += try framer.append([byte]) }
        #expect(responses.count == 2)
        let fetch = try IMAPResponse.parse(responses[0])
        #expect(fetch.dataName == "FETCH" && fetch.dataNumber == 1)
        let fields = fetch.values[2].list ?? []
        #expect(fields.count == 4 && fields[0].atom == "UID" && fields[2].atom == "BODY[HEADER.FIELDS (FROM)]")
        #expect(fields[3] == .string(Array("From: a\r\n\r\n".utf8)))
        #expect(try IMAPResponse.parse(responses[1]).dataName == "EXISTS")
        var endless = IMAPResponseFramer()
        #expect(throws: IMAPProtocolError.self) { _ = try endless.append([UInt8](repeating: 65, count: IMAPResponseFramer.maximumResponse + 1)) }
        var huge = IMAPResponseFramer()
        #expect(throws: IMAPProtocolError.self) { _ = try huge.append(Array("* 1 FETCH (BODY[] {99999999999}\r\n".utf8)) }
    }

    @Test("Status responses, codes, quoted strings with escapes, NIL and capabilities")
    func parsing() throws {
        let greeting = try IMAPResponse.parse(Array("* OK [CAPABILITY IMAP4rev1 IDLE AUTH=PLAIN] Dovecot ready.\r\n".utf8))
        #expect(greeting.status == .ok && greeting.capabilities == ["IMAP4REV1", "IDLE", "AUTH=PLAIN"] && greeting.text == "Dovecot ready.")
        let refused = try IMAPResponse.parse(Array("b3 NO [AUTHENTICATIONFAILED] Authentication failed.\r\n".utf8))
        #expect(refused.kind == .tagged("b3") && refused.status == .no && refused.code == "AUTHENTICATIONFAILED")
        let status = try IMAPResponse.parse(Array(#"* STATUS "Lists \"x\"" (UNSEEN 4 MESSAGES NIL)"#.utf8) + [13, 10])
        #expect(status.values[1] == .string(Array(#"Lists "x""#.utf8)))
        #expect(status.values[2] == .list([.atom("UNSEEN"), .atom("4"), .atom("MESSAGES"), .none]))
        #expect(try IMAPResponse.parse(Array("+ idling\r\n".utf8)).kind == .continuation)
        #expect(throws: IMAPProtocolError.self) { _ = try IMAPResponse.parse(Array("* SEARCH (1 2\r\n".utf8)) }
        #expect(throws: IMAPProtocolError.self) { _ = try IMAPResponse.parse(Array("* SEARCH \"open\r\n".utf8)) }
        #expect(throws: IMAPProtocolError.self) { _ = try IMAPResponse.parse(Array(("* SEARCH " + String(repeating: "(", count: 100)).utf8)) }
    }

    @Test("Strings in commands: quoting, modified UTF-7 folder names, base64")
    func strings() {
        #expect(IMAPString.quoted(#"a"b\c"#) == #""a\"b\\c""#)
        #expect(IMAPString.quoted("line\nbreak") == nil)
        #expect(IMAPString.mailbox("Entwürfe") == "\"Entw&APw-rfe\"")
        #expect(IMAPString.mailbox("R&D") == "\"R&-D\"")
        #expect(IMAPString.mailbox("台北") == "\"&U,BTFw-\"")
        #expect(IMAPString.base64(Array("\0alice\0secret".utf8)) == "AGFsaWNlAHNlY3JldA==")
        // The same, written straight into secret memory.
        for text in ["", "a", "ab", "abc", "\0alice\0secret", #"p"w\d"#] {
            let encoded = SecretBytes(capacity: 64), quoted = SecretBytes(capacity: 64)
            #expect(Array(text.utf8).withUnsafeBytes { IMAPString.appendBase64($0, to: encoded) })
            #expect(encoded.withUnsafeBytes { String(decoding: $0, as: UTF8.self) } == IMAPString.base64(Array(text.utf8)))
            let wrote = Array(text.utf8).withUnsafeBytes { IMAPString.appendQuoted($0, to: quoted) }
            #expect(wrote == (IMAPString.quoted(text) != nil), "a NUL cannot be quoted: \(text.debugDescription)")
            if wrote { #expect(quoted.withUnsafeBytes { String(decoding: $0, as: UTF8.self) } == IMAPString.quoted(text)) }
        }
        let full = SecretBytes(capacity: 4096)
        while full.room > 0 { full.append(byte: 65) }
        #expect(!Array("x".utf8).withUnsafeBytes { IMAPString.appendBase64($0, to: full) }, "a full buffer says so")
        #expect(!Array("a\nb".utf8).withUnsafeBytes { IMAPString.appendQuoted($0, to: SecretBytes(capacity: 16)) })
    }

    @Test("Login lines leave the session only in secret memory: SASL-IR, PLAIN after '+', LOGIN; a NUL or line break is refused")
    func loginLinesAreSecret() throws {
        func lines(_ capabilities: String, _ password: String, then more: [String] = []) throws -> [IMAPSession.Action] {
            let session = IMAPSession(account: IMAPAccount(host: "imap.example.org", user: "alice", folders: ["INBOX"]),
                                      password: secret(password), isProtected: true)
            return try talk(session, ["* OK [CAPABILITY IMAP4rev1 \(capabilities)] hi"] + more).actions
        }
        func secretText(_ actions: [IMAPSession.Action]) -> [String] {
            actions.compactMap { if case .sendSecret(let line) = $0 { line.withUnsafeBytes { String(decoding: $0, as: UTF8.self) } } else { nil } }
        }
        func plainText(_ actions: [IMAPSession.Action]) -> [String] {
            actions.compactMap { if case .send(let bytes) = $0 { String(decoding: bytes, as: UTF8.self) } else { nil } }
        }
        let ir = try lines("AUTH=PLAIN SASL-IR", "secret")
        #expect(secretText(ir) == ["b1 AUTHENTICATE PLAIN AGFsaWNlAHNlY3JldA==\r\n"] && plainText(ir).isEmpty)
        let continued = try lines("AUTH=PLAIN", "secret", then: ["+ "])
        #expect(plainText(continued) == ["b1 AUTHENTICATE PLAIN\r\n"])
        #expect(secretText(continued) == ["AGFsaWNlAHNlY3JldA==\r\n"])
        let login = try lines("", #"p"w"#)
        #expect(secretText(login) == [#"b1 LOGIN "alice" "p\"w""# + "\r\n"] && plainText(login).isEmpty)
        for (capabilities, password) in [("AUTH=PLAIN SASL-IR", "a\0b"), ("", "a\nb"), ("", "a\rb")] {
            let refused = try lines(capabilities, password)
            #expect(secretText(refused).isEmpty && plainText(refused).isEmpty, "\(capabilities) \(password.debugDescription)")
            #expect(refused.contains { if case .failed(.authentication(let text)) = $0 { text.english.contains("cannot send") } else { false } })
        }
    }

    func secret(_ text: String) -> SecretBytes { Array(text.utf8).withUnsafeBytes { SecretBytes(copying: $0) } }

    /// Feeds `lines` to `session` and returns the lines it sent.
    func talk(_ session: IMAPSession, _ lines: [String]) throws -> (sent: [String], actions: [IMAPSession.Action]) {
        var sent: [String] = [], all: [IMAPSession.Action] = []
        for line in lines {
            for action in session.receive(try IMAPResponse.parse(Array((line + "\r\n").utf8))) {
                all.append(action)
                if case .send(let bytes) = action { sent.append(String(decoding: bytes, as: UTF8.self).trimmingWhitespace()) }
                if case .sendSecret(let line) = action {
                    sent.append(line.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }.trimmingWhitespace())
                }
            }
        }
        return (sent, all)
    }

    @Test("The walk: SASL-IR login, ID, EXAMINE, UID SEARCH, headers with PEEK, IDLE; a change ends IDLE with DONE and a recount")
    func walk() throws {
        let account = IMAPAccount(host: "imap.example.org", user: "alice", folders: ["INBOX"])
        let session = IMAPSession(account: account, password: secret("secret"), isProtected: true)
        var (sent, _) = try talk(session, ["* OK [CAPABILITY IMAP4rev1 SASL-IR AUTH=PLAIN ID IDLE] hi"])
        #expect(sent == ["b1 AUTHENTICATE PLAIN AGFsaWNlAHNlY3JldA=="])
        (sent, _) = try talk(session, ["b1 OK [CAPABILITY IMAP4rev1 ID IDLE] Logged in"])
        #expect(sent == [#"b2 ID ("name" "BadgeKit")"#])
        (sent, _) = try talk(session, ["* ID NIL", "b2 OK"])
        #expect(sent == [#"b3 EXAMINE "INBOX""#])
        (sent, _) = try talk(session, ["* 4 EXISTS", "* OK [UIDVALIDITY 42] ok", "b3 OK [READ-ONLY] done"])
        #expect(sent == ["b4 UID SEARCH UNSEEN UNDELETED"])
        (sent, _) = try talk(session, ["* SEARCH 3 7", "b4 OK"])
        #expect(sent == ["b5 UID FETCH 7,3 (UID BODY.PEEK[HEADER.FIELDS (FROM SUBJECT DATE MESSAGE-ID)])"])
        var actions: [IMAPSession.Action]
        (sent, actions) = try talk(session, ["* 2 FETCH (UID 3 BODY[HEADER.FIELDS (FROM SUBJECT DATE MESSAGE-ID)] {9}\r\nFrom: a\r\n)",
                                             "* 3 FETCH (UID 7 BODY[HEADER.FIELDS (FROM SUBJECT DATE MESSAGE-ID)] \"From: b\")", "b5 OK"])
        #expect(sent == ["b6 IDLE"])
        guard case .counted(let count)? = actions.first else { Issue.record("no count: \(actions)"); return }
        #expect(count.total == 2 && count.uidValidity == 42 && count.messages.map(\.uid) == [7, 3])
        (_, actions) = try talk(session, ["+ idling"])
        #expect(actions == [.idling] && session.isIdling)
        (_, actions) = try talk(session, ["* 5 EXISTS"])
        #expect(actions == [.changed])
        #expect(session.recount() == [.send(Array("DONE\r\n".utf8))])
        (sent, _) = try talk(session, ["b6 OK Idle completed"])
        #expect(sent == ["b7 UID SEARCH UNSEEN UNDELETED"])
        // The headers already read are not fetched again: only the new message's.
        (sent, _) = try talk(session, ["* SEARCH 3 7 8", "b7 OK"])
        #expect(sent == ["b8 UID FETCH 8 (UID BODY.PEEK[HEADER.FIELDS (FROM SUBJECT DATE MESSAGE-ID)])"])
    }

    @Test("LOGIN without AUTH=PLAIN; a refused login is an authentication failure; BYE ends it; a stray tag is a protocol error")
    func failures() throws {
        let account = IMAPAccount(host: "h", user: "al\"ice", folders: ["INBOX"])
        var session = IMAPSession(account: account, password: secret("p\\w"), isProtected: true)
        var (sent, actions) = try talk(session, ["* OK [CAPABILITY IMAP4rev1] hi"])
        #expect(sent == [#"b1 LOGIN "al\"ice" "p\\w""#])
        (_, actions) = try talk(session, ["b1 NO [AUTHENTICATIONFAILED] Authentication failed."])
        #expect(actions.count == 1)
        if case .failed(.authentication(let said))? = actions.first {
            #expect(said.english == "h refused the login for al\"ice: Authentication failed.")
            #expect(said.format == "%1$s refused the login for %2$s%3$s", "a msgid, said in the user's language")
        } else { Issue.record("\(actions)") }
        session = IMAPSession(account: account, password: secret(""), isProtected: true)
        (_, actions) = try talk(session, ["* BYE server shutting down"])
        #expect(actions.count == 1)
        if case .failed(.server(let said))? = actions.first { #expect(said.english == "h closed the connection: server shutting down") } else { Issue.record("\(actions)") }
        session = IMAPSession(account: account, password: secret(""), isProtected: true)
        (_, actions) = try talk(session, ["* OK [CAPABILITY IMAP4rev1 LOGINDISABLED] hi"])
        guard case .failed(.protocolError)? = actions.first else { Issue.record("\(actions)"); return }
        session = IMAPSession(account: IMAPAccount(host: "h", security: .startTLS, user: "a"), password: secret(""), isProtected: false)
        (sent, _) = try talk(session, ["* OK [CAPABILITY IMAP4rev1 STARTTLS LOGINDISABLED] hi"])
        #expect(sent == ["b1 STARTTLS"])
        (_, actions) = try talk(session, ["b1 OK Begin TLS"])
        #expect(actions == [.startTLS])
        #expect(session.tlsEstablished() == [.send(Array("b2 CAPABILITY\r\n".utf8))])
        (_, actions) = try talk(session, ["z9 OK what"])
        guard case .failed(.protocolError)? = actions.first else { Issue.record("\(actions)"); return }
        _ = sent
    }

    @Test("Several folders: NOTIFY where offered (refused: STATUS at every recount); STATUS, then EXAMINE and SEARCH UNSEEN UNDELETED where there is unseen mail; the first folder again; their sum")
    func folders() throws {
        let account = IMAPAccount(host: "h", user: "a", folders: ["INBOX", "Lists", "Entwürfe", "Empty"])
        for offersNotify in [true, false] {
            let session = IMAPSession(account: account, password: secret("p"), isProtected: true)
            let caps = "IMAP4rev1 SASL-IR AUTH=PLAIN IDLE" + (offersNotify ? " NOTIFY ESEARCH" : "")
            _ = try talk(session, ["* OK [CAPABILITY \(caps)] hi", "b1 OK [CAPABILITY \(caps)] in"])
            var (sent, _) = try talk(session, ["* OK [UIDVALIDITY 7] v", "b2 OK [READ-ONLY] done"])
            if offersNotify {
                #expect(sent == [#"b3 NOTIFY SET STATUS (selected (MessageNew (UID) MessageExpunge FlagChange)) (mailboxes ("Lists" "Entw&APw-rfe" "Empty") (MessageNew MessageExpunge FlagChange))"#])
                // SET STATUS: the server tells each folder's state at once; the recount reads it anyway.
                (sent, _) = try talk(session, [#"* STATUS "Lists" (UNSEEN 9)"#, "b3 NO not now"])
                #expect(!session.usesNotify)
            }
            var tag = offersNotify ? 4 : 3
            func next() -> String { defer { tag += 1 }; return "b\(tag)" }
            #expect(sent == [#"\#(next()) STATUS "Lists" (UNSEEN)"#])
            (sent, _) = try talk(session, [#"* STATUS "Lists" (UNSEEN 4)"#, "b\(tag - 1) OK"])
            #expect(sent == [#"\#(next()) STATUS "Entw&APw-rfe" (UNSEEN)"#])
            (sent, _) = try talk(session, [#"* STATUS "Entw&APw-rfe" (UNSEEN 2)"#, "b\(tag - 1) OK"])
            #expect(sent == [#"\#(next()) STATUS "Empty" (UNSEEN)"#])
            // A NOTIFY STATUS for another folder in the middle of the recount: a recount follows it.
            (sent, _) = try talk(session, [#"* STATUS "Lists" (UNSEEN 5)"#, #"* STATUS "Empty" (UNSEEN 0)"#, "b\(tag - 1) OK"])
            // The folders with unseen mail are opened and searched: STATUS counts \Deleted ones too.
            #expect(sent == [#"\#(next()) EXAMINE "Lists""#])
            (sent, _) = try talk(session, ["* 9 EXISTS", "* OK [UIDVALIDITY 99] other", "b\(tag - 1) OK [READ-ONLY] done"])
            let search = offersNotify ? "SEARCH RETURN (COUNT) UNSEEN UNDELETED" : "SEARCH UNSEEN UNDELETED"
            #expect(sent == ["\(next()) \(search)"])
            let listsAnswer = offersNotify ? #"* ESEARCH (TAG "b\#(tag - 1)") COUNT 3"# : "* SEARCH 2 5 7"
            (sent, _) = try talk(session, [listsAnswer, "b\(tag - 1) OK"])
            #expect(sent == [#"\#(next()) EXAMINE "Entw&APw-rfe""#])
            (sent, _) = try talk(session, ["b\(tag - 1) OK [READ-ONLY] done"])
            #expect(sent == ["\(next()) \(search)"])
            let draftsAnswer = offersNotify ? #"* ESEARCH (TAG "b\#(tag - 1)")"# : "* SEARCH"
            (sent, _) = try talk(session, [draftsAnswer, "b\(tag - 1) OK"])
            #expect(sent == [#"\#(next()) EXAMINE "INBOX""#], "the first folder again, for its search and IDLE")
            (sent, _) = try talk(session, ["* OK [UIDVALIDITY 7] v", "b\(tag - 1) OK [READ-ONLY] done"])
            #expect(sent == ["\(next()) UID SEARCH UNSEEN UNDELETED"])
            var actions: [IMAPSession.Action]
            (sent, actions) = try talk(session, ["* SEARCH", "b\(tag - 1) OK"])
            guard case .counted(let count)? = actions.first else { Issue.record("\(actions)"); continue }
            #expect(count.total == 3 && count.perFolder == ["INBOX": 0, "Lists": 3, "Entwürfe": 0, "Empty": 0])
            #expect(count.uidValidity == 7, "the other folder's UIDVALIDITY is not the watched one's")
            #expect(sent == ["\(next()) IDLE"])
            (_, actions) = try talk(session, ["+ idling"])
            #expect(actions == [.idling, .changed], "the STATUS seen during the recount asks for another")
        }
    }
}

/// The memory a password lives in.
@Suite("Secret bytes")
struct SecretBytesTests {
    @Test("Filled from a descriptor, cut to its first line, bounded by its room")
    func fillAndCut() throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]) }
        let text = Array("hunter2\r\nsecond line".utf8)
        #expect(text.withUnsafeBytes { write(ends[1], $0.baseAddress, $0.count) } == text.count)
        close(ends[1])
        let secret = SecretBytes(capacity: 16)
        #expect(secret.room >= 16)
        while secret.read(from: ends[0]) > 0 {}
        #expect(secret.count == text.count)
        secret.truncate(to: 7)
        #expect(secret.withUnsafeBytes { Array($0) } == Array("hunter2".utf8))
        let copy = Array("abc".utf8).withUnsafeBytes { SecretBytes(copying: $0) }
        #expect(copy.count == 3 && copy.withUnsafeBytes { Array($0) } == Array("abc".utf8))
    }
}

/// GetSecrets' answer read in place from the message's bytes (SecretServiceLookup).
@Suite("The Secret Service's answer, read in place")
struct SecretReplyTests {
    /// A GetSecrets answer holding `value` for one item, encoded as a bus would send it.
    func answer(_ value: [UInt8], signature: String = "{o(oayays)}") -> [UInt8] {
        let call = DBusMessage.call("org.freedesktop.secrets", path: "/org/freedesktop/secrets", interface: "org.freedesktop.Secret.Service",
                                    member: "GetSecrets")
        let secret = DBusValue.structure([.objectPath("/org/freedesktop/secrets/session/s1"), .array(element: "y", [.byte(9), .byte(9)]),
                                          .array(element: "y", value.map { .byte($0) }), .string("text/plain")])
        let body: DBusValue = signature == "{o(oayays)}"
            ? .array(element: signature, [.dictEntry(.objectPath("/org/freedesktop/secrets/collection/login/1"), secret)])
            : .array(element: "s", [.string("no")])
        return DBusMessage.methodReturn(to: call, values: [body]).encoded(serial: 5)
    }

    func read(_ bytes: [UInt8]) throws -> [UInt8]? {
        let header = try DBusMessage(decoding: bytes, partOf: nil, decodingBody: false)
        #expect(header.body.isEmpty, "the body is not decoded")
        return bytes.withUnsafeBytes { message in
            SecretServiceLookup.secret(in: DBusRawReply(message: message, bodyOffset: header.bodyOffset, signature: header.signature))
                .map { secret in secret.withUnsafeBytes { Array($0) } }
        }
    }

    @Test("The value of the first item, whatever its length; another signature gives nothing, a cut message all or nothing")
    func readsTheValue() throws {
        for value in [Array("hunter2".utf8), Array("a".utf8), [UInt8](repeating: 0x41, count: 300), Array("pässwörd\n".utf8)] {
            #expect(try read(answer(value)) == value)
        }
        #expect(try read(answer(Array("x".utf8), signature: "as")) == nil)
        // Cut anywhere inside the body: the length fields no longer fit, and nothing is read past the end.
        let whole = answer(Array("hunter2".utf8))
        let header = try DBusMessage(decoding: whole, partOf: nil, decodingBody: false)
        for cut in stride(from: header.bodyOffset, to: whole.count, by: 3) {
            let bytes = Array(whole[..<cut])
            let got = bytes.withUnsafeBytes { message in
                SecretServiceLookup.secret(in: DBusRawReply(message: message, bodyOffset: header.bodyOffset, signature: header.signature))
            }
            let text = got.map { $0.withUnsafeBytes { Array($0) } }
            #expect(text == nil || text == Array("hunter2".utf8), "cut at \(cut): never a part, never bytes past the end")
        }
    }
}
