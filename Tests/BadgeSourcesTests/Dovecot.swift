import BadgeIO
@testable import BadgeSources
import Glibc

/// A private Dovecot (Debian's dovecot-imapd) for one test, set up by the fixture imap-server.py:
/// its own folder, config, passwd-file user `alice`, a self-signed certificate for `localhost`,
/// free loopback ports for IMAPS and IMAP (STARTTLS), IDLE's "Still here" every 3 s. Stopped
/// (SIGTERM, then SIGKILL) when released.
final class Dovecot {
    static let isAvailable = access("/usr/sbin/dovecot", X_OK) == 0 && access("/usr/bin/openssl", X_OK) == 0
    /// Tests/EndToEndTests/Fixtures/imap-server.py: the server's setup and the second client, shared with the end-to-end tests.
    static let fixture = #filePath.split(separator: "/", omittingEmptySubsequences: false).dropLast(2).joined(separator: "/")
        + "/EndToEndTests/Fixtures/imap-server.py"
    let folder: TemporaryFolder
    private(set) var imapsPort = 0
    private(set) var imapPort = 0
    let password: String
    var caFile: String { folder("cert.pem") }
    private var server: ChildRun?

    /// The OAuth2 token endpoint (imap-server.py oauth2), when the server takes tokens.
    private var tokenServer: ChildRun?

    /// A server; with `oauthToken`, one that also takes XOAUTH2 and OAUTHBEARER logins whose token
    /// endpoint accepts only that token.
    init(oauthToken: String? = nil) throws {
        folder = try TemporaryFolder()
        try Self.script("setup", folder.path)
        password = Self.read(folder("password"))
        if let oauthToken {
            tokenServer = ChildRun(arguments: ["/usr/bin/python3", Self.fixture, "oauth2", folder.path, oauthToken], timeLimit: 3600,
                                   outputLimit: 1 << 20)
            let end = SystemTime.monotonic + 10
            while access(folder("oauth2-ready"), R_OK) != 0 {
                guard SystemTime.monotonic < end, tokenServer?.outcome == nil else { throw TestFailure("the token endpoint never listened") }
                var entries = (tokenServer?.descriptors ?? []).map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
                _ = entries.withUnsafeMutableBufferPointer { poll($0.baseAddress, nfds_t($0.count), 20) }
                for entry in entries where entry.revents != 0 { tokenServer?.handle(readable: entry.fd) }
            }
        }
        // A port picked free can be taken by another server (another Dovecot on a busy machine)
        // before this one binds it: `wait` finds out (the certificate is not this fixture's), and
        // two new ports are tried, twice at most.
        for attempt in 1...3 {
            let ports = Self.read(folder("ports")).split(separator: " ").compactMap { Int($0) }
            guard ports.count == 2 else { throw TestFailure("imap-server.py wrote no ports") }
            (imapsPort, imapPort) = (ports[0], ports[1])
            do {
                try start()
                return
            } catch where attempt < 3 {
                stop()
                try Self.script("ports", folder.path)
            }
        }
    }

    deinit {
        stop()
        tokenServer?.cancel()
    }

    /// The tokens the endpoint was asked about, in order.
    var tokensAsked: [String] { read("tokens-asked").split(separator: "\n").map(String.init) }

    /// A second server set up on `other`'s ports, as another Dovecot on a busy machine may take
    /// the ports this one picked: its `wait` fails (the first server answers, with a certificate
    /// that is not this one's), saying so in `error`.
    init(onThePortsOf other: Dovecot, error: inout String) throws {
        folder = try TemporaryFolder()
        try Self.script("setup", folder.path)
        password = Self.read(folder("password"))
        try Self.script("ports", folder.path, String(other.imapsPort), String(other.imapPort))
        (imapsPort, imapPort) = (other.imapsPort, other.imapPort)
        error = ""
        do {
            try start()
        } catch let failure {
            error = String(describing: failure)
            stop()
        }
    }

    private func read(_ name: String) -> String { Self.read(folder(name)) }

    private static func read(_ path: String) -> String {
        (try? BoundedRead.prefix(of: path, limit: 4096)).map { String(decoding: $0, as: UTF8.self) } ?? ""
    }

    private static func script(_ arguments: String...) throws {
        try runToEnd(["/usr/bin/python3", fixture] + arguments)
    }

    /// Starts the server and waits (at most 10 s) until both ports accept.
    func start() throws {
        unlink(folder("run/master.pid"))
        server = ChildRun(arguments: ["/usr/sbin/dovecot", "-F", "-c", folder("dovecot.conf")], timeLimit: 3600, outputLimit: 1 << 20)
        try Self.script("wait", folder.path)
    }

    /// Kills the server (SIGKILL to its process group: no goodbye to the clients).
    func kill() {
        if let pid = server?.pid, pid > 0 { Glibc.kill(-pid, SIGKILL) }
        drainServer()
        server = nil
    }

    func stop() {
        server?.cancel()
        drainServer()
        server = nil
    }

    private func drainServer() {
        guard let server else { return }
        let end = SystemTime.monotonic + 5
        while server.outcome == nil, SystemTime.monotonic < end {
            var entries = server.descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            _ = entries.withUnsafeMutableBufferPointer { poll($0.baseAddress, nfds_t($0.count), 50) }
            for entry in entries where entry.revents != 0 { server.handle(readable: entry.fd) }
            server.handleDeadline()
        }
    }

    /// Appends a message from `from` with `subject` (raw header text, encoded words allowed), seen or not.
    func deliver(from: String, subject: String, seen: Bool = false, folder box: String = "INBOX") throws {
        try Self.script("deliver", folder.path, from, subject, seen ? "seen" : "unseen", box)
    }

    /// Appends `count` messages on one connection, all with the same Date second ("burst 1" … "burst COUNT").
    func burst(_ count: Int) throws {
        try Self.script("burst", folder.path, String(count))
    }

    /// The FLAGS of message `uid` in `box`, as imaplib's `FETCH (FLAGS)` reads them ("1 (UID 1 FLAGS (\\Seen))").
    func flags(uid: UInt32, folder box: String = "INBOX") throws -> String {
        let outcome = try runToEnd(["/usr/bin/python3", Self.fixture, "flags", folder.path, String(uid), box])
        return String(decoding: outcome.output, as: UTF8.self)
    }

    /// Adds `flags` ("\\Seen", "\\Deleted") to the messages `uid` of `box`.
    func store(_ flags: String, uid: String = "1:*", folder box: String = "INBOX") throws {
        try Self.script("store", folder.path, flags, uid, box)
    }

    /// The account, as the tests give it to IMAPSource.
    func account(security: IMAPAccount.Security = .implicitTLS, host: String = "localhost", port: Int? = nil,
                 folders: [String] = ["INBOX"], caFile: String? = nil, mechanism: IMAPAccount.Mechanism = .password) -> IMAPAccount {
        IMAPAccount(host: host, port: port ?? (security == .implicitTLS ? imapsPort : imapPort), security: security,
                    user: "alice", folders: folders, caFile: caFile ?? self.caFile, mechanism: mechanism)
    }

    /// A password command that prints the password.
    var passwordCommand: IMAPPassword { .command(["/bin/cat", folder("password")]) }

    /// The server's log (for a failure's message).
    var log: String { (try? BoundedRead.prefix(of: folder("dovecot.log"), limit: 1 << 20)).map { String(decoding: $0, as: UTF8.self) } ?? "" }
}

/// `count` free TCP ports on loopback (bound, read, released: the kernel does not hand them out again at once).
func freePorts(_ count: Int) throws -> [Int] {
    let folder = try TemporaryFolder()
    try python("""
    import socket, sys
    socks = [socket.socket() for _ in range(int(sys.argv[1]))]
    for s in socks: s.bind(("127.0.0.1", 0))
    open(sys.argv[2], "w").write(" ".join(str(s.getsockname()[1]) for s in socks))
    """, String(count), folder("ports"))
    let text = (try? BoundedRead.prefix(of: folder("ports"), limit: 100)).map { String(decoding: $0, as: UTF8.self) } ?? ""
    let ports = text.split(separator: " ").compactMap { Int($0) }
    guard ports.count == count else { throw TestFailure("no free ports: \(text)") }
    return ports
}
