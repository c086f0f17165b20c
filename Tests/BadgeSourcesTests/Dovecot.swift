import BadgeIO
@testable import BadgeSources
import Glibc

/// A private Dovecot (Debian's dovecot-imapd) for one test: its own folder, config, passwd-file
/// user `alice`, a self-signed certificate for `localhost` made by openssl, free loopback ports
/// for IMAPS and IMAP (STARTTLS), IDLE's "Still here" every 3 s. Run as root (CI), the login and
/// mail processes take Dovecot's own users. Stopped (SIGTERM, then SIGKILL) when released.
final class Dovecot {
    static let isAvailable = access("/usr/sbin/dovecot", X_OK) == 0 && access("/usr/bin/openssl", X_OK) == 0
    let folder: TemporaryFolder
    let imapsPort: Int
    let imapPort: Int
    let password = "s3cret-\(getpid())-Pw"
    var caFile: String { folder("cert.pem") }
    private var server: ChildRun?

    init() throws {
        folder = try TemporaryFolder()
        let ports = try freePorts(2)
        imapsPort = ports[0]
        imapPort = ports[1]
        let d = folder.path
        chmod(d, 0o755)
        for sub in ["run", "state", "home"] { mkdir(folder(sub), 0o755) }
        try runToEnd(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost",
                      "-addext", "subjectAltName=DNS:localhost", "-days", "2", "-keyout", folder("key.pem"), "-out", caFile])
        let root = getuid() == 0
        let user = root ? "dovecot" : String(cString: getpwuid(getuid()).pointee.pw_name)
        let group = root ? "dovecot" : String(cString: getgrgid(getgid()).pointee.gr_name)
        if root { try runToEnd(["chown", "dovecot:dovecot", folder("home")]) }
        try folder.write("alice:{PLAIN}\(password)::::::\n", to: "passwd")
        try folder.write("""
        protocols = imap
        listen = 127.0.0.1
        base_dir = \(d)/run
        state_dir = \(d)/state
        log_path = \(d)/dovecot.log
        default_internal_user = \(user)
        default_internal_group = \(group)
        default_login_user = \(root ? "dovenull" : user)
        first_valid_uid = 1
        ssl = yes
        ssl_cert = <\(d)/cert.pem
        ssl_key = <\(d)/key.pem
        ssl_min_protocol = TLSv1.2
        disable_plaintext_auth = no
        passdb {
          driver = passwd-file
          args = scheme=PLAIN username_format=%u \(d)/passwd
        }
        userdb {
          driver = static
          args = uid=\(user) gid=\(group) home=\(d)/home/%u
        }
        mail_location = maildir:~/Maildir
        service imap-login {
          chroot =
          inet_listener imap {
            port = \(imapPort)
          }
          inet_listener imaps {
            port = \(imapsPort)
            ssl = yes
          }
        }
        service anvil {
          chroot =
        }
        service stats {
          chroot =
        }
        imap_idle_notify_interval = 3 secs

        """, to: "dovecot.conf")
        try start()
    }

    deinit { stop() }

    /// Starts the server and waits (at most 10 s) until both ports accept.
    func start() throws {
        unlink(folder("run/master.pid"))
        server = ChildRun(arguments: ["/usr/sbin/dovecot", "-F", "-c", folder("dovecot.conf")], timeLimit: 3600, outputLimit: 1 << 20)
        try waitForPort(imapsPort)
        try waitForPort(imapPort)
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

    private func waitForPort(_ port: Int) throws {
        try python("""
        import socket, sys, time
        end = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=1).close(); break
            except OSError:
                if time.monotonic() > end: sys.exit("port %s never accepted" % sys.argv[1])
                time.sleep(0.05)
        """, String(port))
    }

    /// Runs `script` (Python) with `c`, a logged-in imaplib connection with INBOX selected.
    func client(_ script: String) throws {
        try python("""
        import imaplib, ssl, sys
        c = imaplib.IMAP4_SSL("localhost", int(sys.argv[1]), ssl_context=ssl.create_default_context(cafile=sys.argv[2]))
        c.login("alice", sys.argv[3])
        c.select("INBOX")
        \(script)
        c.logout()
        """, String(imapsPort), caFile, password)
    }

    /// Appends a message from `from` with `subject` (raw header text, encoded words allowed), seen or not.
    func deliver(from: String, subject: String, seen: Bool = false, folder box: String = "INBOX") throws {
        try client("""
        c.create("\(box)")
        c.append("\(box)", \(seen ? #"r"(\Seen)""# : "None"), None, ("From: \(from)\\r\\nSubject: \(subject)\\r\\nDate: Thu, 03 Dec 2026 06:00:00 +0000\\r\\nMessage-ID: <%d@example.org>\\r\\n\\r\\nbody\\r\\n" % __import__("random").randrange(1 << 30)).encode())
        """)
    }

    /// Marks every message of INBOX seen (`flags`: "\\\\Seen") or deleted.
    func store(_ flags: String, uid: String = "1:*") throws {
        try client(#"c.uid("STORE", "\#(uid)", "+FLAGS.SILENT", r"(\#(flags))")"#)
    }

    /// The account, as the tests give it to IMAPSource.
    func account(security: IMAPAccount.Security = .implicitTLS, host: String = "localhost", port: Int? = nil,
                 folders: [String] = ["INBOX"], caFile: String? = nil) -> IMAPAccount {
        IMAPAccount(host: host, port: port ?? (security == .implicitTLS ? imapsPort : imapPort), security: security,
                    user: "alice", folders: folders, caFile: caFile ?? self.caFile)
    }

    /// A password command that prints the password.
    var passwordCommand: IMAPPassword { .command(["/bin/sh", "-c", "printf '%s\\n' \"$0\"", password]) }

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
