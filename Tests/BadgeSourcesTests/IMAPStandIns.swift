import BadgeIO
@testable import BadgeSources
import Glibc

/// Programs the IMAP tests put between the source and a server, or in a server's place: a TCP
/// proxy that can cut its connections or stall them without closing, and an IMAP stand-in that
/// greets late, or sends malformed or endless responses. Python 3, on loopback, released with the test.
final class IMAPStandIn {
    let port: Int
    private let run: ChildRun

    /// A proxy from a free port to `target`: SIGUSR1 stalls every connection open now (no byte
    /// forwarded again, none closed), SIGUSR2 closes them; new connections are forwarded.
    static func proxy(to target: Int) throws -> IMAPStandIn { try IMAPStandIn(script: proxyScript, String(target)) }

    /// A proxy to `target` (a cleartext IMAP port) that answers every `UID STORE` itself with
    /// `NO [NOPERM]`, as a server does for a read-only folder, and forwards the rest.
    static func refusingStore(to target: Int) throws -> IMAPStandIn { try IMAPStandIn(script: proxyScript, String(target), "refuse-store") }

    /// An IMAP server of its own: `mode` is "slow" (greets after `delay` s, then counts 3 unseen),
    /// "malformed" (a greeting that is no IMAP), "endless" (a line that never ends), "literal"
    /// (announces a literal of 2 GB), "nested" (lists nested 10,000 deep in a SEARCH answer).
    static func server(_ mode: String, delay: Double = 0) throws -> IMAPStandIn {
        try IMAPStandIn(script: serverScript, mode, String(delay))
    }

    private init(script: String, _ arguments: String...) throws {
        port = try freePorts(1)[0]
        let interpreter = access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3"
        run = ChildRun(arguments: [interpreter, "-c", script, String(port)] + arguments, timeLimit: 600, outputLimit: 1 << 20)
        try python("""
        import socket, sys, time
        end = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=1).close(); break
            except OSError:
                if time.monotonic() > end: sys.exit("the stand-in never listened")
                time.sleep(0.02)
        """, String(port))
    }

    /// Sends `signal` to the stand-in.
    func signal(_ number: Int32) { if run.pid > 0 { kill(run.pid, number) } }

    deinit { run.cancel() }

    private static let proxyScript = """
    import select, signal, socket, sys
    listen = socket.socket(); listen.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listen.bind(("127.0.0.1", int(sys.argv[1]))); listen.listen(16)
    target = int(sys.argv[2])
    refuse = len(sys.argv) > 3 and sys.argv[3] == "refuse-store"
    pairs = {}     # socket -> its peer
    clients = {}   # client socket -> the bytes of its unfinished line (refuse-store)
    stalled = set()
    def stall(*_):
        stalled.update(pairs.keys())
    def cut(*_):
        for s in list(pairs): s.close()
        pairs.clear(); stalled.clear()
    signal.signal(signal.SIGUSR1, stall)
    signal.signal(signal.SIGUSR2, cut)
    while True:
        try:
            ready, _, _ = select.select([listen] + [s for s in pairs if s not in stalled], [], [])
        except (InterruptedError, OSError, ValueError):
            continue
        for s in ready:
            if s is listen:
                client, _ = listen.accept()
                try:
                    server = socket.create_connection(("127.0.0.1", target))
                except OSError:
                    client.close(); continue
                pairs[client] = server; pairs[server] = client
                clients[client] = b""
                continue
            if s not in pairs or s in stalled: continue
            try:
                data = s.recv(65536)
            except OSError:
                data = b""
            peer = pairs[s]
            if not data:
                for x in (s, peer):
                    pairs.pop(x, None); x.close()
                continue
            try:
                if refuse and s in clients:
                    clients[s] += data
                    while b"\\n" in clients[s]:
                        line, clients[s] = clients[s].split(b"\\n", 1)
                        words = line.split(b" ")
                        if len(words) > 2 and words[1].upper() == b"UID" and words[2].upper() == b"STORE":
                            s.sendall(words[0] + b" NO [NOPERM] read-only folder (the test's proxy)\\r\\n")
                        else:
                            peer.sendall(line + b"\\n")
                else:
                    peer.sendall(data)
            except OSError: pass
    """

    private static let serverScript = """
    import socket, sys, threading, time
    listen = socket.socket(); listen.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listen.bind(("127.0.0.1", int(sys.argv[1]))); listen.listen(16)
    mode, delay = sys.argv[2], float(sys.argv[3])
    def serve(c):
        try:
            if mode == "malformed":
                c.sendall(b"HTTP/1.1 400 Bad Request\\r\\n\\r\\n"); time.sleep(30); return
            if mode == "endless":
                c.sendall(b"* OK ")
                while True: c.sendall(b"x" * 65536)
            if mode == "literal":
                c.sendall(b"* OK [CAPABILITY IMAP4rev1 AUTH=PLAIN SASL-IR] hi\\r\\n")
                c.recv(4096)
                c.sendall(b"* 1 FETCH (BODY[] {2000000000}\\r\\n")
                while True: c.sendall(b"y" * 65536)
            time.sleep(delay)
            c.sendall(b"* OK [CAPABILITY IMAP4rev1 AUTH=PLAIN SASL-IR IDLE] slow but here\\r\\n")
            f = c.makefile("rb")
            idle = b"?"
            while True:
                line = f.readline()
                if not line: break
                words = line.decode().split()
                if not words: continue
                tag, command = words[0], " ".join(words[1:3]).upper()
                if command.startswith("AUTHENTICATE"):
                    c.sendall(b"%s OK [CAPABILITY IMAP4rev1 IDLE AUTH=PLAIN] in\\r\\n" % tag.encode())
                elif command.startswith("EXAMINE"):
                    c.sendall(b"* 3 EXISTS\\r\\n* OK [UIDVALIDITY 7] v\\r\\n%s OK [READ-ONLY] done\\r\\n" % tag.encode())
                elif command.startswith("UID SEARCH"):
                    if mode == "nested":
                        c.sendall(b"* SEARCH " + b"(" * 10000 + b"\\r\\n")
                    c.sendall(b"* SEARCH 1 2 3\\r\\n%s OK done\\r\\n" % tag.encode())
                elif command.startswith("UID FETCH"):
                    out = b""
                    for uid in (1, 2, 3):
                        h = b"From: Stand In %d <s@example.org>\\r\\nSubject: =?UTF-8?B?w7xiZXI=?=\\r\\n" % uid
                        out += b"* %d FETCH (UID %d BODY[HEADER.FIELDS (FROM SUBJECT DATE MESSAGE-ID)] {%d}\\r\\n%s)\\r\\n" % (uid, uid, len(h), h)
                    c.sendall(out + b"%s OK done\\r\\n" % tag.encode())
                elif command.startswith("IDLE"):
                    c.sendall(b"+ idling\\r\\n"); idle = tag.encode()
                elif words[0].upper() == "DONE":
                    c.sendall(b"%s OK idle done\\r\\n" % idle)
                else:
                    c.sendall(b"%s BAD what\\r\\n" % tag.encode())
        except OSError:
            pass
        finally:
            c.close()
    while True:
        c, _ = listen.accept()
        threading.Thread(target=serve, args=(c,), daemon=True).start()
    """
}
