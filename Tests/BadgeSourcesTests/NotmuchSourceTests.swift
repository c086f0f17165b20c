@testable import BadgeSources
import BadgeCore
import Glibc
import Testing

/// The notmuch source against a private database (its own NOTMUCH_CONFIG and HOME in a temporary
/// folder), beside a Maildir source of the same folder: `notmuch new` and `notmuch tag -unread`
/// (with synchronize_flags, a real rename into cur/ with S) change both counts.
@Suite struct NotmuchSourceTests {
    static var notmuch: String? {
        ["/usr/bin/notmuch", "/usr/local/bin/notmuch"].first { access($0, X_OK) == 0 }
    }

    @Test(.enabled(if: notmuch != nil, "notmuch is not installed (apt-get install notmuch)"))
    func newMailAndTagChangesAreCountedOnceTheDatabaseSettles() throws {
        let notmuch = try #require(Self.notmuch)
        let temp = try TemporaryFolder()
        try temp.write("""
        [database]
        path=\(temp("mail"))
        [user]
        name=Test
        primary_email=test@example.org
        [new]
        tags=unread;inbox;
        [maildir]
        synchronize_flags=true

        """, to: "notmuch-config")
        let environment = ["NOTMUCH_CONFIG": temp("notmuch-config"), "HOME": temp.path, "XDG_CONFIG_HOME": temp("config"),
                           "XDG_DATA_HOME": temp("data")]
        let inbox = temp("mail/INBOX")
        try python(MaildirScript.deliver, inbox, "3")

        // Started before the database exists: notmuch fails, the source waits for the database.
        let source = NotmuchSource(query: "tag:unread", program: notmuch, environment: environment,
                                   open: ["alot", "search", "thread:{thread}"])
        let maildir = MaildirSource(path: inbox)
        var changes: [SourceReading] = []
        source.onChange = { changes.append($0) }
        let loop = SourceLoop(sources: [source, maildir])
        loop.start()
        #expect(source.reading.description == "notmuch count tag:unread")
        #expect(loop.run(atMost: 10) { source.reading.isStale && source.reading.error?.contains("no notmuch database") == true },
                "\(source.reading.error ?? "no error")")

        try runToEnd([notmuch, "new", "--quiet"], environment: environment)
        #expect(loop.run(atMost: 10) { source.reading.content == .count(3) }, "\(source.reading)")
        #expect(source.watchedFolder == temp("mail/.notmuch/xapian"))
        #expect(!source.reading.isStale && source.reading.error == nil, "\(source.reading.error ?? "")")
        #expect(maildir.reading.content == .count(3))

        let first = names(in: inbox + "/new").first ?? ""
        let messageID = try runToEnd([notmuch, "search", "--output=messages", "--limit=1", "path:INBOX/new/**"], environment: environment)
        let id = String(decoding: messageID.output, as: UTF8.self).trimmingWhitespace()
        #expect(id.hasPrefix("id:"))
        try runToEnd([notmuch, "tag", "-unread", "--", id], environment: environment)
        #expect(loop.run(atMost: 10) { source.reading.content == .count(2) && maildir.reading.content == .count(2) },
                "notmuch \(String(describing: source.reading.content)), maildir \(String(describing: maildir.reading.content))")
        #expect(names(in: inbox + "/cur").contains { $0.hasSuffix(":2,S") }, "synchronize_flags renamed \(first) into cur/")

        try python(MaildirScript.deliver, inbox, "2")
        try runToEnd([notmuch, "new", "--quiet"], environment: environment)
        #expect(loop.run(atMost: 10) { source.reading.content == .count(4) && maildir.reading.content == .count(4) })
        // The threads behind the count, from `notmuch search --format=json`: one per message here
        // (authors, subject), keyed by thread id, with the config's open command.
        #expect(loop.run(atMost: 10) { source.reading.items?.items.count == 4 }, "\(String(describing: source.reading.items))")
        let thread = source.reading.items?.items.first
        #expect(thread?.title == "a@example.org" && thread?.detail?.hasPrefix("test ") == true && thread?.origin == "notmuch",
                "\(String(describing: thread))")
        #expect(thread?.action == .run(["alot", "search", "thread:" + (thread?.key ?? "")]))

        // Settled: no deadline, and a second without a single wakeup.
        #expect(loop.run(atMost: 5) { loop.timeUntilDue == nil })
        #expect(loop.runOnce(timeout: 1) == 0)
        #expect(source.reading.content == .count(4))
        #expect(changes.compactMap(\.content).last == .count(4))
        #expect(changes.last?.updated != nil)
    }

    @Test("Mark read: notmuch tag -unread -- thread:ID (the tag is gone, notmuch search agrees, the count follows); mark all the listed threads; a key that is no thread id is refused",
          .enabled(if: notmuch != nil, "notmuch is not installed (apt-get install notmuch)"))
    func marksThreadsRead() throws {
        let notmuch = try #require(Self.notmuch)
        let temp = try TemporaryFolder()
        try temp.write("""
        [database]
        path=\(temp("mail"))
        [user]
        name=Test
        primary_email=test@example.org
        [new]
        tags=unread;inbox;

        """, to: "notmuch-config")
        let environment = ["NOTMUCH_CONFIG": temp("notmuch-config"), "HOME": temp.path, "XDG_CONFIG_HOME": temp("config"),
                           "XDG_DATA_HOME": temp("data")]
        try python(MaildirScript.deliver, temp("mail/INBOX"), "3")
        try runToEnd([notmuch, "new", "--quiet"], environment: environment)
        let source = NotmuchSource(query: "tag:unread", program: notmuch, environment: environment)
        let loop = SourceLoop(sources: [source])
        loop.start()
        defer { loop.stop() }
        #expect(loop.run(atMost: 10) { source.reading.content == .count(3) && source.reading.items?.items.count == 3 }, "\(source.reading)")
        let thread = try #require(source.reading.items?.items.first?.key)
        var outcome: MarkReadOutcome?
        source.markRead([thread]) { outcome = $0 }
        #expect(loop.run(atMost: 10) { outcome != nil })
        #expect(outcome == .marked)
        #expect(loop.run(atMost: 10) { source.reading.content == .count(2) && source.reading.items?.items.count == 2 }, "\(source.reading)")
        let tags = try runToEnd([notmuch, "search", "--output=tags", "--", "thread:\(thread)"], environment: environment)
        let words = String(decoding: tags.output, as: UTF8.self).split(separator: "\n")
        #expect(words.contains("inbox") && !words.contains("unread"), "\(words)")
        outcome = nil
        source.markRead(["thread:x or tag:inbox"]) { outcome = $0 }
        if case .failed(let reason)? = outcome { #expect(reason.contains("a thread id is hex digits")) } else { Issue.record("\(String(describing: outcome))") }
        outcome = nil
        source.markRead(nil) { outcome = $0 }
        #expect(loop.run(atMost: 10) { outcome != nil })
        #expect(outcome == .marked)
        #expect(loop.run(atMost: 10) { source.reading.content == .count(0) }, "\(source.reading)")
    }

    @Test(.enabled(if: notmuch != nil, "notmuch is not installed (apt-get install notmuch)"))
    func aMissingConfigIsAClearError() throws {
        let notmuch = try #require(Self.notmuch)
        let temp = try TemporaryFolder()
        let environment = ["NOTMUCH_CONFIG": temp("no-such-config"), "HOME": temp.path, "XDG_CONFIG_HOME": temp("config")]
        let source = NotmuchSource(query: "tag:unread", program: notmuch, environment: environment)
        let loop = SourceLoop(sources: [source])
        loop.start()
        #expect(loop.run(atMost: 10) { source.reading.error?.contains("cannot find the notmuch database") == true
                && !source.descriptors.contains { $0 != source.descriptors.last } },
                "\(source.reading.error ?? "no error")")
        #expect(source.reading.isStale)
        #expect(source.reading.content == nil)
        #expect(loop.timeUntilDue == nil)
    }
}
