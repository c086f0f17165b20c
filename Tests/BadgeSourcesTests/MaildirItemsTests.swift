import BadgeCore
import BadgeIO
import Glibc
import Testing
@testable import BadgeSources

/// A Maildir's unread messages as items: From, Subject and Date read by GMime from mail Python's
/// `mailbox` and `email` packages wrote, encoded words in UTF-8, ISO-8859-1 and Shift_JIS, a
/// 5 MB message, a message without a Subject, and flag changes that keep each item's key.
@Suite struct MaildirItemsTests {
    /// argv[1]: the folder. Six messages, oldest first, delivered one second apart in name order.
    static let deliver = #"""
    import mailbox, os, sys
    from email.header import Header
    os.makedirs(os.path.dirname(sys.argv[1]), exist_ok=True)
    box = mailbox.Maildir(sys.argv[1], create=True)
    def add(sender, subject, date, body="hello\n"):
        head = "From: %s\n" % sender
        if subject is not None:
            head += "Subject: %s\n" % subject
        head += "Date: %s\nMessage-ID: <%d@example.org>\nMIME-Version: 1.0\n\n" % (date, len(box) + 1)
        box.add((head + body).encode("ascii"))
    add("Alice Smith <alice@example.org>", "Lunch at noon?", "Mon, 30 Nov 2026 12:00:00 +0000")
    add(Header("Zoë Ångström", "utf-8").encode() + " <zoe@example.org>", Header("Café déjà vu", "iso-8859-1").encode(),
        "Tue, 01 Dec 2026 09:30:00 +0100")
    add(Header("日本語", "shift_jis").encode() + " <jp@example.jp>", Header("日本語", "shift_jis").encode(),
        "Tue, 01 Dec 2026 10:00:00 +0900")
    add("bob@example.org", None, "Tue, 01 Dec 2026 11:00:00 -0500")
    add("Big Sender <big@example.org>", "A 5 MB attachment", "Wed, 02 Dec 2026 08:00:00 +0000", body="x" * (5 * 1024 * 1024))
    """#

    @Test("Mark read: new/ → cur/KEY:2,S and cur/KEY:2,F → cur/KEY:2,FS (flags kept, renamed atomically); Python's mailbox agrees; the count follows; mark all; a key that is gone is refused")
    func marksRead() throws {
        let temp = try TemporaryFolder()
        let inbox = temp("Maildir/INBOX")
        try python(Self.deliver, inbox)
        // Two of the five moved to cur/ as a client leaves them: one flagged (F), one replied (R).
        try python("""
        import mailbox, sys
        box = mailbox.Maildir(sys.argv[1], create=False)
        keys = sorted(box.keys())
        for key, flags in ((keys[0], "F"), (keys[1], "R")):
            message = box[key]; message.set_subdir("cur"); message.set_flags(flags); box[key] = message
        """, inbox)
        let source = MaildirSource(paths: [inbox])
        let loop = SourceLoop(sources: [source])
        loop.start()
        defer { loop.stop() }
        #expect(loop.run(atMost: 10) { source.reading.content == .count(5) })
        let items = source.reading.items?.items ?? []
        let alice = try #require(items.first { $0.title == "Alice Smith" })   // keys[0]: flagged, in cur/
        let bob = try #require(items.first { $0.title == "bob@example.org" }) // in new/
        var outcome: MarkReadOutcome?
        source.markRead([alice.key, bob.key]) { outcome = $0 }
        #expect(outcome == .marked)
        #expect(loop.run(atMost: 5) { source.reading.content == .count(3) }, "\(source.reading)")
        let names = try FileManagerless.names(in: inbox + "/cur")
        #expect(names.contains("\(alice.key):2,FS"), "\(names)")
        #expect(names.contains("\(bob.key):2,S"), "\(names)")
        #expect(try FileManagerless.names(in: inbox + "/new").allSatisfy { !$0.hasPrefix(bob.key) })
        // Python's mailbox reads the same: seen, in cur/, the other flags kept.
        let flags = temp("flags")
        try python("""
        import mailbox, sys
        box = mailbox.Maildir(sys.argv[1], create=False)
        open(sys.argv[2], "w").write("\\n".join(sorted("%s %s %s" % (k, box[k].get_subdir(), box[k].get_flags()) for k in box.keys())))
        """, inbox, flags)
        let seen = String(decoding: try BoundedRead.prefix(of: flags, limit: 4096), as: UTF8.self)
        #expect(seen.contains("\(alice.key) cur FS") && seen.contains("\(bob.key) cur S"), "\(seen)")
        // A key no longer unread is refused, nothing renamed.
        outcome = nil
        source.markRead([bob.key]) { outcome = $0 }
        if case .failed(let reason)? = outcome { #expect(reason.contains("no unread message \(bob.key)")) } else { Issue.record("\(String(describing: outcome))") }
        // Mark all: the three left, the replied one keeping its R.
        outcome = nil
        source.markRead(nil) { outcome = $0 }
        #expect(outcome == .marked)
        #expect(loop.run(atMost: 5) { source.reading.content == .count(0) }, "\(source.reading)")
        let after = try FileManagerless.names(in: inbox + "/cur")
        #expect(after.count == 5 && after.allSatisfy { $0.hasSuffix("S") } && after.contains { $0.hasSuffix(":2,RS") }, "\(after)")
    }

    @Test("From, Subject and Date decoded by GMime; a missing Subject and a 5 MB message; keys survive a flag change")
    func summaries() throws {
        let temp = try TemporaryFolder()
        let inbox = temp("Maildir/INBOX")
        try python(Self.deliver, inbox)
        let source = MaildirSource(paths: [inbox], open: ["/bin/echo", "{path}", "{message-id}"])
        let loop = SourceLoop(sources: [source])
        loop.start()
        #expect(loop.run(atMost: 10) { source.reading.items?.items.count == 5 }, "\(String(describing: source.reading.items))")
        let items = source.reading.items?.items ?? []
        let byTitle = Dictionary(items.map { ($0.title, $0) }, uniquingKeysWith: { first, _ in first })
        #expect(byTitle["Alice Smith"]?.detail == "Lunch at noon?")
        #expect(byTitle["Alice Smith"]?.time == 1_796_040_000)
        #expect(byTitle["Zoë Ångström"]?.detail == "Café déjà vu", "\(items.map { ($0.title, $0.detail ?? "") })")
        #expect(byTitle["日本語"]?.detail == "日本語", "\(items.map { ($0.title, $0.detail ?? "") })")
        #expect(byTitle["bob@example.org"]?.detail == "(no subject)")
        #expect(byTitle["Big Sender"]?.detail == "A 5 MB attachment")
        #expect(items.allSatisfy { $0.origin == "INBOX" })
        // Newest first, by the Date header.
        #expect(items.first?.title == "Big Sender")
        // The open command names the file and the Message-ID.
        guard case .run(let words)? = byTitle["Alice Smith"]?.action else {
            Issue.record("no action")
            return
        }
        #expect(words.count == 3 && words[1].hasPrefix(inbox + "/new/") && words[2].hasSuffix("@example.org"))
        // Read: it leaves the items; the others keep their keys.
        let aliceKey = byTitle["Alice Smith"]?.key ?? ""
        let names = (try? FilePaths.fileNames(in: inbox + "/new").get()) ?? []
        let alice = names.first { $0.hasPrefix(aliceKey) } ?? ""
        try python(MaildirScript.rename, inbox + "/new/" + alice, inbox + "/cur/" + alice + ":2,S")
        #expect(loop.run(atMost: 10) { source.reading.items?.items.count == 4 })
        #expect(source.reading.items?.item(forKey: aliceKey) == nil)
        #expect(source.reading.content == .count(4))
        loop.stop()
    }

    @Test("Headers are read from the start of the file only, and a header block without an end is still read")
    func headerBlock() {
        #expect(MailHeaderDecoder.headerEnd(Array("Subject: a\n\nbody".utf8)) == 10)
        #expect(MailHeaderDecoder.headerEnd(Array("Subject: a\r\n\r\nbody".utf8)) == 11)
        #expect(MailHeaderDecoder.headerEnd(Array("Subject: a".utf8)) == 10)
        let decoder = MailHeaderDecoder()
        let summary = decoder.summary(ofMessage: Array("From: =?utf-8?q?Ren=C3=A9?= <r@x.org>\nSubject: =?iso-8859-1?q?caf=E9?=\n".utf8))
        #expect(summary.from == "René" && summary.subject == "café")
        #expect(decoder.loadFailure == nil)
    }

    @Test("Beyond 200 unread messages the newest 200 are listed and the rest counted")
    func bounded() throws {
        let temp = try TemporaryFolder()
        let inbox = temp("Maildir/INBOX")
        try python(MaildirScript.bulk, inbox, "230", "0", "0")
        let source = MaildirSource(paths: [inbox])
        let loop = SourceLoop(sources: [source])
        loop.start()
        #expect(source.reading.content == .count(230))
        #expect(source.reading.items?.items.count == 200 && source.reading.items?.unlisted == 30)
        #expect(source.reading.items?.items.first?.title == "(unknown sender)")
        loop.stop()
    }
}

/// Folder listings without Foundation.
enum FileManagerless {
    /// The names in `folder` (no `.` or `..`).
    static func names(in folder: String) throws -> [String] {
        guard let directory = opendir(folder) else { throw TestFailure("cannot open \(folder): errno \(errno)") }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}
