import BadgeCore
import BadgeIO
import Glibc
import Testing
@testable import BadgeSources

/// The Maildir source against real folders: mail delivered by Python's `mailbox`, flags changed by
/// renames as mail readers do, folders removed and made again. Every count is compared with the
/// expected number and with a fresh source that reads the folders from scratch.
@Suite struct MaildirSourceTests {
    /// Runs `loop` until `source` shows `count`, then checks it against a fresh reading.
    func expectCount(_ count: Int, _ source: MaildirSource, _ loop: SourceLoop, newOnly: Bool = false,
                     sourceLocation: SourceLocation = #_sourceLocation) {
        let reached = loop.run(atMost: 10) { source.reading.content == .count(count) }
        #expect(reached, "count \(String(describing: source.reading.content)), expected \(count)", sourceLocation: sourceLocation)
        let fresh = MaildirSource(paths: source.paths, folders: source.folders, newOnly: newOnly)
        fresh.start()
        #expect(fresh.reading.content == source.reading.content, "a fresh scan disagrees", sourceLocation: sourceLocation)
        fresh.stop()
    }

    /// A folder with `count` messages delivered, and a started source and loop for it.
    func startedSource(for inbox: String, delivering count: Int) throws -> (MaildirSource, SourceLoop) {
        try python(MaildirScript.deliver, inbox, "\(count)")
        let source = MaildirSource(path: inbox)
        let loop = SourceLoop(sources: [source])
        loop.start()
        return (source, loop)
    }

    @Test func deliveriesFlagChangesAndDeletesKeepTheCountExact() throws {
        let temp = try TemporaryFolder()
        let inbox = temp("Maildir/INBOX")
        try python(MaildirScript.deliver, inbox, "0")
        let source = MaildirSource(path: inbox)
        let newOnly = MaildirSource(path: inbox, newOnly: true)
        var changes: [SourceReading] = []
        source.onChange = { changes.append($0) }
        let loop = SourceLoop(sources: [source, newOnly])
        loop.start()
        #expect(source.reading.content == .count(0))
        #expect(source.reading.updated != nil)
        #expect(source.reading.error == nil && !source.reading.isStale)
        #expect(source.reading.description == FilePaths.abbreviatingHome(inbox))

        try python(MaildirScript.deliver, inbox, "3")
        expectCount(3, source, loop)
        expectCount(3, newOnly, loop, newOnly: true)
        let delivered = names(in: inbox + "/new")
        #expect(delivered.count == 3)
        guard delivered.count == 3 else { return }
        let (a, b, c) = (delivered[0], delivered[1], delivered[2])

        // A reader notices the message: new/ to cur/ with an empty info, still unread.
        try python(MaildirScript.rename, "\(inbox)/new/\(a)", "\(inbox)/cur/\(a):2,")
        expectCount(3, source, loop)
        expectCount(2, newOnly, loop, newOnly: true)
        // Seen: a rename inside cur/.
        try python(MaildirScript.rename, "\(inbox)/cur/\(a):2,", "\(inbox)/cur/\(a):2,S")
        expectCount(2, source, loop)
        // Read and replied in one step, then marked unread again.
        try python(MaildirScript.rename, "\(inbox)/new/\(b)", "\(inbox)/cur/\(b):2,RS")
        expectCount(1, source, loop)
        try python(MaildirScript.rename, "\(inbox)/cur/\(b):2,RS", "\(inbox)/cur/\(b):2,R")
        expectCount(2, source, loop)
        // Trashed (not yet expunged) does not count, even unseen.
        try python(MaildirScript.rename, "\(inbox)/new/\(c)", "\(inbox)/cur/\(c):2,T")
        expectCount(1, source, loop)
        expectCount(0, newOnly, loop, newOnly: true)
        // Deleted.
        try python(MaildirScript.remove, "\(inbox)/cur/\(b):2,R", "\(inbox)/cur/\(c):2,T")
        expectCount(0, source, loop)
        #expect(changes.map(\.content) == [.count(0), .count(3), .count(2), .count(1), .count(2), .count(1), .count(0)])
        #expect(changes.allSatisfy { !$0.isStale && $0.error == nil })

        // Idle: no deadline, and nothing wakes the loop for a second.
        #expect(loop.timeUntilDue == nil)
        #expect(loop.runOnce(timeout: 1) == 0)
    }

    @Test func aFolderRemovedAndMadeAgainIsStaleThenCountedAgain() throws {
        let temp = try TemporaryFolder()
        let inbox = temp("Maildir/INBOX")
        let (source, loop) = try startedSource(for: inbox, delivering: 2)
        #expect(source.reading.content == .count(2))

        try python(MaildirScript.remove, inbox)
        #expect(loop.run(atMost: 10) { source.reading.isStale })
        #expect(source.reading.content == .count(2), "the last good count stays")
        #expect(source.reading.error?.contains("does not exist") == true, "\(source.reading.error ?? "no error")")

        try python(MaildirScript.deliver, inbox, "5")
        expectCount(5, source, loop)
        #expect(!source.reading.isStale && source.reading.error == nil)

        // Its parent removed and made again (the watches move up to the temporary folder and back).
        try python(MaildirScript.remove, temp("Maildir"))
        #expect(loop.run(atMost: 10) { source.reading.isStale })
        try python(MaildirScript.deliver, inbox, "1")
        expectCount(1, source, loop)
        #expect(!source.reading.isStale)
    }

    @Test func aFolderThatDoesNotExistYetIsWaitedFor() throws {
        let temp = try TemporaryFolder()
        let source = MaildirSource(path: temp("Mail/Work"))
        let loop = SourceLoop(sources: [source])
        loop.start()
        #expect(source.reading.content == nil)
        #expect(source.reading.isStale)
        #expect(source.reading.error?.contains("Mail/Work does not exist") == true, "\(source.reading.error ?? "no error")")
        #expect(loop.timeUntilDue == nil)

        try python(MaildirScript.deliver, temp("Mail/Work"), "4")
        expectCount(4, source, loop)
        #expect(!source.reading.isStale && source.reading.error == nil)
    }

    @Test func aGlobCountsEveryMatchingFolder() throws {
        let temp = try TemporaryFolder()
        for (name, count) in [("a", 1), ("b", 2), ("c", 3)] {
            try python(MaildirScript.deliver, temp("Mail/\(name)"), "\(count)")
        }
        try temp.write("not a folder", to: "Mail/.mbsyncstate")
        let source = MaildirSource(path: temp("Mail/*"))
        let loop = SourceLoop(sources: [source])
        loop.start()
        #expect(source.reading.content == .count(6))
        #expect(source.folderPaths == ["a", "b", "c"].map { temp("Mail/\($0)") })
        try python(MaildirScript.deliver, temp("Mail/b"), "2")
        expectCount(8, source, loop)
        // A new folder that matches (made, then given cur/, new/ and tmp/), and one removed.
        try python(MaildirScript.deliver, temp("Mail/d"), "4")
        expectCount(12, source, loop)
        #expect(source.folderPaths.last == temp("Mail/d"))
        try python(MaildirScript.remove, temp("Mail/a"))
        expectCount(11, source, loop)
        #expect(!source.reading.isStale, "a glob match that goes is no longer counted, not missing")

        let nothing = MaildirSource(path: temp("Other/*"))
        nothing.start()
        #expect(nothing.reading.isStale)
        #expect(nothing.reading.error?.contains("no Maildir folder matches") == true)
    }

    @Test func treesMeanTheirInboxUnlessFoldersAreNamed() throws {
        let temp = try TemporaryFolder()
        // mbsync / offlineimap: one folder per mailbox, INBOX among them.
        try python(MaildirScript.deliver, temp("Mail/INBOX"), "2")
        try python(MaildirScript.deliver, temp("Mail/Work"), "3")
        try python(MaildirScript.deliver, temp("Mail/Lists/Rust"), "4")
        let tree = MaildirSource(path: temp("Mail"))
        tree.start()
        #expect(tree.folderPaths == [temp("Mail/INBOX")])
        #expect(tree.reading.content == .count(2))
        let named = MaildirSource(path: temp("Mail/"), folders: ["INBOX", "Work", "Lists/Rust"])
        named.start()
        #expect(named.reading.content == .count(9))
        #expect(named.reading.description.hasSuffix("Mail (INBOX, Work, Lists/Rust)"))

        // Maildir++ (Dovecot, Courier): the root is the inbox, folders are .Name beside its cur/.
        try python(MaildirScript.deliver, temp("Dovecot"), "1")
        try python(MaildirScript.deliver, temp("Dovecot/.Work"), "5")
        try python(MaildirScript.deliver, temp("Dovecot/.Lists.Rust"), "6")
        let root = MaildirSource(path: temp("Dovecot"))
        root.start()
        #expect(root.reading.content == .count(1))
        let plus = MaildirSource(path: temp("Dovecot"), folders: ["INBOX", "Work", "Lists/Rust"])
        plus.start()
        #expect(plus.reading.content == .count(12))
        #expect(plus.folderPaths == [temp("Dovecot"), temp("Dovecot/.Work"), temp("Dovecot/.Lists.Rust")])

        let missing = MaildirSource(path: temp("Mail"), folders: ["Archive"])
        missing.start()
        #expect(missing.reading.isStale)
        #expect(missing.reading.error?.contains("has no Maildir folder Archive") == true, "\(missing.reading.error ?? "")")

        let notMail = MaildirSource(path: temp("Mail/Lists"))
        notMail.start()
        #expect(notMail.reading.error?.contains("neither a Maildir") == true, "\(notMail.reading.error ?? "")")
    }

    /// Exactness of a rescan of 10,000 messages. Its speed is measured by `make bench` ("launch →
    /// the Maildir's count on screen", release build); the bound here only catches a rescan gone
    /// pathological (a quadratic one takes minutes), loose enough for AddressSanitizer on a busy
    /// machine, where 0.5 s once failed at 0.505 s.
    @Test func tenThousandMessagesAreReadExactly() throws {
        let temp = try TemporaryFolder()
        let inbox = temp("Big")
        try python(MaildirScript.bulk, inbox, "4000", "3000", "3000")
        let source = MaildirSource(path: inbox)
        source.start()
        #expect(source.reading.content == .count(7000))
        let begin = SystemTime.monotonic
        source.refresh()
        let seconds = SystemTime.monotonic - begin
        #expect(source.reading.content == .count(7000))
        #expect(seconds < (getenv("ASAN_OPTIONS") == nil ? 5 : 30), "a rescan of 10,000 messages took \(seconds) s")
    }

    @Test func aQueueOverflowIsFollowedByAnExactRescan() throws {
        let temp = try TemporaryFolder()
        let inbox = temp("Burst")
        let (source, loop) = try startedSource(for: inbox, delivering: 1)
        let rescansBefore = source.rebuildCount
        // More events than the queue holds, while the loop is not reading (/proc/sys is read-only
        // here, so the burst is made to fit the limit rather than the limit to the burst).
        let limit = readQueueLimit() ?? 16384
        guard limit <= 200_000 else {
            Issue.record("fs.inotify.max_queued_events is \(limit): too many files to overflow it in a unit test")
            return
        }
        try python(MaildirScript.bulk, inbox, "\(limit + 500)", "0", "10")
        expectCount(limit + 511, source, loop)
        #expect(source.rebuildCount > rescansBefore, "the burst did not overflow the queue (limit \(limit))")
        // And events after the rescan are applied one by one again.
        try python(MaildirScript.deliver, inbox, "2")
        expectCount(limit + 513, source, loop)
        #expect(loop.timeUntilDue == nil)
    }

    @Test func flagsAreReadAfterTheLastColon() {
        #expect(MaildirFlags.isUnread("1.M1P1.host", inNew: true))
        #expect(MaildirFlags.isUnread("1.M1P1.host:2,", inNew: false))
        #expect(MaildirFlags.isUnread("1.M1P1.host", inNew: false))
        #expect(!MaildirFlags.isUnread("1.M1P1.host:2,FRS", inNew: false))
        #expect(MaildirFlags.isUnread("1.M1P1.host:2,FRS", inNew: true), "new/ counts whatever its name says")
        #expect(!MaildirFlags.isUnread("1.M1P1.host:2,T", inNew: true))
        #expect(MaildirFlags.isUnread("host:with:colons:2,F", inNew: false))
        #expect(!MaildirFlags.isUnread("host:with:colons:2,S", inNew: false))
        #expect(MaildirFlags.isUnread("odd:1,S", inNew: false), "only the 2, info carries flags")
    }

    private func readQueueLimit() -> Int? {
        let fd = open("/proc/sys/fs/inotify/max_queued_events", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 32)
        let got = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard got > 0 else { return nil }
        return Int(String(decoding: buffer[0..<got], as: UTF8.self).filter(\.isNumber))
    }
}
