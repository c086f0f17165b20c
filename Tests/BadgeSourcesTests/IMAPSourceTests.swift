import BadgeCore
import BadgeIO
@testable import BadgeSources
import Glibc
import Testing

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
        drive(loop, source, 5, "none after STORE \\Seen") { $0.content == .count(0) }
        #expect(source.reading.items?.items.isEmpty == true)
        expectNoSecret(source, server)
    }
}
