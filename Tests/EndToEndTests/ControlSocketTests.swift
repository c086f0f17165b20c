import BadgeCore
import BadgeControl
import Glibc
import Testing
import XvfbHarness

/// A raw client of the control socket, written with Python's `socket` module (not by us): each mode
/// prints what it got, one line each, so the test reads it with `readLine`.
private let pythonClient = #"""
import json, socket, sys
path, mode, args = sys.argv[1], sys.argv[2], sys.argv[3:]

def connect():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    s.settimeout(60)
    return s

def lines(s):
    buf = b""
    while True:
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            yield line.decode("utf-8", "replace")
        try:
            data = s.recv(65536)
        except ConnectionResetError:
            data = b""
        if not data:
            if buf:
                yield buf.decode("utf-8", "replace")
            yield "EOF"
            return
        buf += data

if mode == "commands":
    s = connect(); r = lines(s)
    for c in args:
        s.sendall(c.encode() + b"\n")
        print(next(r), flush=True)
elif mode == "raw":
    s = connect()
    print("connected", flush=True)
    try:
        s.sendall(bytes.fromhex(args[0]))
    except OSError as e:
        print("send failed: %s" % e, flush=True)
    wanted = int(args[1]) if len(args) > 1 else None
    for line in lines(s):
        print(line, flush=True)
        if wanted is not None:
            wanted -= 1
            if wanted == 0:
                break
        if line == "EOF":
            break
elif mode == "storm":
    clients, count, batch = int(args[0]), int(args[1]), int(args[2])
    socks = [connect() for _ in range(clients)]
    readers = [lines(s) for s in socks]
    print("connected", flush=True)
    ok, bad = 0, []
    for _ in range(count // batch):
        for s in socks:
            s.sendall(b"inc bell\n" * batch)
        for r in readers:
            for _ in range(batch):
                line = next(r)
                if line == '{"reply":"ok"}':
                    ok += 1
                else:
                    bad.append(line)
    print(json.dumps({"ok": ok, "bad": bad[:5], "badCount": len(bad)}), flush=True)
elif mode == "stuck":
    s = connect()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.sendall(b"subscribe\n")
    print(next(lines(s)), flush=True)
    sys.stdin.readline()
    # Now read: the server must have closed us (EOF or reset after what it had sent).
    s.settimeout(20)
    total, tail = 0, b""
    def last_lines():
        # The last two whole lines it got (the end of what the server wrote before closing).
        whole = [line for line in tail.split(b"\n")[:-1] if line][-2:]
        for name, line in zip(["before", "last"][2 - len(whole):], whole):
            print("%s: %s" % (name, line.decode("utf-8", "replace")), flush=True)
    try:
        while True:
            data = s.recv(1 << 20)
            if not data:
                break
            total += len(data)
            tail = (tail + data)[-65536:]
    except (ConnectionResetError, socket.timeout) as e:
        last_lines()
        print("ended: %s" % type(e).__name__, flush=True)
        sys.exit(0)
    last_lines()
    print("ended: EOF after %d bytes" % total, flush=True)
elif mode == "cap":
    held = []
    for _ in range(int(args[0])):
        s = connect()
        s.sendall(b"hello\n")
        held.append((s, next(lines(s))))
    print(json.dumps({"accepted": sum(1 for _, reply in held if '"protocol":1' in reply)}), flush=True)
    extra = connect()
    for line in lines(extra):
        print(line, flush=True)
        if line == "EOF":
            break
    # A freed place is taken again.
    held[0][0].close()
    # The server may take the next connection before it has seen the close: that one is refused
    # and closed, so its send can fail with a broken pipe. Try again until the place is free.
    while True:
        again = connect()
        try:
            again.sendall(b"hello\n")
        except OSError:
            again.close()
            continue
        reply = next(lines(again))
        if '"protocol":1' in reply:
            print("reconnected", flush=True)
            break
        again.close()
elif mode == "fuzz":
    import random
    rng = random.Random(int(args[0]))
    for _ in range(int(args[1])):
        connect().close()
    socks = []
    for i in range(50):
        s = connect()
        data = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 20000)))
        if i % 3 == 0:
            data = data.replace(b"\n", b"") + b"\n"  # one long line
        elif i % 3 == 1:
            data = b"\n".join(data[j:j + 40] for j in range(0, len(data), 40))  # many short junk lines
        try:
            s.sendall(data)
        except OSError:
            pass
        socks.append(s)
    # A 1 MB line, half a line left hanging, and invalid UTF-8 lines.
    for data in [b"x" * (1 << 20) + b"\n", b"set bell 99", b"\xff\xfe set bell 1\n\xc3\x28\n"]:
        s = connect()
        try:
            s.sendall(data)
        except OSError:
            pass
        socks.append(s)
    for s in socks:
        s.close()
    # Closed clients count against the cap until the server reads their hang-up: retry a refusal.
    for _ in range(100):
        s = connect(); r = lines(s)
        s.sendall(b"hello\n")
        reply = next(r)
        if "too many connections" not in reply:
            break
    print(reply, flush=True)
elif mode == "connect":
    try:
        s = connect()
    except OSError as e:
        print("connect failed: %s" % e.strerror, flush=True)
        sys.exit(0)
    for line in lines(s):
        print(line, flush=True)
        if line == "EOF":
            break
"""#

/// The control socket (issue 20, part 1): a reply to every command, many clients, hostile clients.
@Suite("E2E: control socket", .endToEnd(minutes: 3))
struct ControlSocketTests {
    /// The socket path from `state` (status "listening").
    private func socketPath(_ s: DemoSession) throws -> String {
        try s.app.writeLine("state")
        let state = try s.app.readEvent(named: "state", timeout: 10)
        guard state["controlSocket"]?["status"]?.string == "listening", let path = state["controlSocket"]?["path"]?.string else {
            throw HarnessError("no listening control socket in state: \(state["controlSocket"].map { "\($0)" } ?? "nil"); stderr: \(s.app.stderrText)")
        }
        return path
    }

    private func python(_ path: String, _ mode: String, _ arguments: [String] = [], prefix: [String] = []) throws -> ChildProcess {
        let command = prefix.isEmpty ? "/usr/bin/python3" : prefix[0]
        let arguments = Array(prefix.dropFirst()) + (prefix.isEmpty ? [] : ["/usr/bin/python3"]) + ["-c", pythonClient, path, mode] + arguments
        return try ChildProcess(executable: command, arguments: arguments)
    }

    private func readAll(_ client: ChildProcess, timeout: Double = 30) throws -> [String] {
        var lines: [String] = []
        while let line = try client.readLine(timeout: timeout) { lines.append(line) }
        return lines
    }

    @Test("Every command gets a reply; set and inc from the socket change the badge; state names the socket")
    func replies() throws {
        let s = try DemoSession("socket-replies")
        let path = try socketPath(s)
        #expect(path.hasSuffix("/badge-demo/control.sock"))
        var info = stat()
        #expect(lstat(path, &info) == 0 && info.st_mode & 0o777 == 0o600, "socket mode 0\(String(info.st_mode & 0o777, radix: 8))")
        let client = try python(path, "commands", ["hello", "set mail 7", "inc bell 2", "frobnicate", "set nosuch 1", "state", "sync t1",
                                                   "dec mail", "text mail hi", "clear all"])
        let replies = try readAll(client)
        try #require(replies.count == 10, "\(replies); stderr: \(client.stderrText)")
        #expect(replies[0] == #"{"reply":"ok","protocol":1,"pid":\#(s.app.pid),"profile":"default"}"#)
        #expect(replies[1] == #"{"reply":"ok"}"# && replies[2] == #"{"reply":"ok"}"#)
        for (index, needle) in [(3, "frobnicate"), (4, "nosuch")] {
            let reply = try JSONValue(parsing: replies[index])
            #expect(reply["reply"]?.string == "error" && (reply["reason"]?.string ?? "").contains(needle), "\(replies[index])")
        }
        let state = try JSONValue(parsing: replies[5])
        #expect(state["reply"]?.string == "ok" && state["controlSocket"]?["path"]?.string == path)
        let mail = state["buttons"]?.array?.first { $0["id"]?.string == "mail" }
        #expect(mail?["content"]?["count"]?.int == 7, "\(replies[5])")
        #expect(try JSONValue(parsing: replies[6])["token"]?.string == "t1")
        #expect(replies[7...].allSatisfy { $0 == #"{"reply":"ok"}"# }, "\(replies)")
        // The same changes are seen by the stdin channel, with cause "control".
        let change = try s.nextChange()
        #expect(change["id"]?.string == "mail" && change["cause"]?.string == "control" && change["text"]?.string == "7")
        let cleared = try s.state().button("mail")
        #expect(cleared.contentKind == "none" || cleared.count == 0, "\(cleared.json)")
    }

    @Test("100 clients × 1,000 inc bell: exactly +100,000, and a click during the storm counts")
    func storm() throws {
        let s = try DemoSession("socket-storm")
        s.app.recordsAllEvents = false
        let path = try socketPath(s)
        let before = try #require(try s.state().button("bell").count)
        let bell = try s.state().button("bell")
        let storm = try python(path, "storm", ["100", "1000", "100"])
        #expect(try storm.readLine(timeout: 30) == "connected")
        try s.x.click(button: MouseButton.left, atRoot: s.rootCenter(of: bell.button))
        var result: String?
        // Drain the app's events while the storm runs (its stdout would fill and pause the socket).
        while result == nil {
            _ = try? s.app.readLine(timeout: 0.05)
            if let line = try? storm.readLine(timeout: 0) { result = line }
            _ = s.app.takePendingEvents()
            if storm.waitForExit(timeout: 0) != nil, result == nil { result = try storm.readLine(timeout: 1) }
        }
        let summary = try JSONValue(parsing: try #require(result))
        #expect(summary["ok"]?.int == 100_000 && summary["badCount"]?.int == 0, "\(summary); stderr: \(storm.stderrText)")
        try s.sync(timeout: 60)
        _ = s.app.takePendingEvents()
        #expect(try s.state().button("bell").count == before + 100_001)
    }

    @Test("A subscriber that never reads is dropped; other clients and the window still answer")
    func stuckSubscriber() throws {
        let s = try DemoSession("socket-stuck")
        s.app.recordsAllEvents = false
        let path = try socketPath(s)
        let stuck = try python(path, "stuck")
        #expect(try stuck.readLine(timeout: 10) == #"{"reply":"ok"}"#)
        try burst(s, path)
        #expect(s.app.stderrText.contains("dropped subscriber pid \(stuck.pid): it left over 65536 bytes unread"), "stderr: \(s.app.stderrText)")
        try stuck.writeLine("read now")
        // What it reads ends with whole events and then one line that says why it was dropped.
        var told: [String] = []
        while let line = try stuck.readLine(timeout: 30), !line.hasPrefix("ended") { told.append(line) }
        let before = try JSONValue(parsing: String(try #require(told.first { $0.hasPrefix("before: ") }, "\(told)").dropFirst(8)))
        #expect(before["event"]?.string == "change", "\(told)")
        let last = try JSONValue(parsing: String(try #require(told.last { $0.hasPrefix("last: ") }, "\(told)").dropFirst(6)))
        #expect(last["event"]?.string == "error" && last["source"]?.string == "socket" && last["cause"]?.string == "dropped", "\(told)")
        #expect(last["reason"]?.string?.hasPrefix("this subscriber read too slowly: ") == true
                && last["reason"]?.string?.contains("KiB waited unread (the limit is 64 KiB)") == true, "\(told)")
        // Still serving.
        #expect(try readAll(python(path, "commands", ["inc mail"])) == [#"{"reply":"ok"}"#])
        #expect(try s.x.isViewable(window: s.window))
        let rss = try s.app.residentKilobytes()
        // AddressSanitizer's shadow memory counts as resident too.
        #expect(rss < (runsUnderSanitizer ? 450_000 : 150_000), "resident memory \(rss) kB after dropping the stuck subscriber")
    }

    /// Change events past a subscriber's 64 KiB (each over 100 bytes), from another client, the
    /// app's own output read meanwhile; returns once every command was answered and drawn.
    private func burst(_ s: DemoSession, _ path: String) throws {
        let producer = try python(path, "storm", ["1", "12000", "1000"])
        #expect(try producer.readLine(timeout: 30) == "connected")
        var result: String?
        while result == nil {
            _ = try? s.app.readLine(timeout: 0.05)
            _ = s.app.takePendingEvents()
            if let line = try? producer.readLine(timeout: 0) { result = line }
            if producer.waitForExit(timeout: 0) != nil, result == nil { result = try producer.readLine(timeout: 1) }
        }
        #expect(try JSONValue(parsing: try #require(result))["ok"]?.int == 12_000)
        try s.sync()
    }

    @Test("msg --watch that reads too slowly is dropped: it prints the events it got, then why, and exits 3")
    func slowWatcher() throws {
        let s = try DemoSession("socket-slow-watch")
        s.app.recordsAllEvents = false
        let path = try socketPath(s)
        let watcher = try ChildProcess(executable: BuiltProducts.executable(named: "badge-demo"), arguments: ["msg", "--watch", "--socket", path])
        defer { watcher.kill(SIGKILL); watcher.waitForExit(timeout: 5) }
        // Subscribed once the state event is printed; from here on nothing reads its output
        // until the burst is over: its stdout pipe fills, and it stops reading the socket.
        let first = try #require(try watcher.readLine(timeout: 10))
        #expect(try JSONValue(parsing: first)["event"]?.string == "state", "\(first)")
        try burst(s, path)
        #expect(s.app.stderrText.contains("dropped subscriber pid \(watcher.pid): it left over 65536 bytes unread"), "stderr: \(s.app.stderrText)")
        let printed = try readAll(watcher)
        #expect(watcher.waitForExit(timeout: 10) == .exited(3))
        let last = try JSONValue(parsing: try #require(printed.last))
        #expect(last["event"]?.string == "error" && last["cause"]?.string == "dropped", "\(printed.last ?? "")")
        let said = watcher.stderrText
        #expect(said.contains("badge-demo msg: this subscriber read too slowly: ") && said.contains("so the instance dropped it"), "stderr: \(said)")
        #expect(!said.contains("closed the connection"), "stderr: \(said)")
    }

    @Test("An over-long line gets an error and a disconnect; invalid UTF-8 an error reply")
    func hostileLines() throws {
        let s = try DemoSession("socket-hostile")
        let path = try socketPath(s)
        let long = String(repeating: "61", count: 5000) + "0a"
        let tooLong = try readAll(python(path, "raw", [long]))
        #expect(tooLong.contains { $0.contains("error") && $0.contains("longer than 4096") }, "\(tooLong)")
        #expect(tooLong.last == "EOF")
        let junk = try readAll(python(path, "raw", ["fffe00010a737461746520780a", "2"]))
        #expect(junk.count >= 3 && junk[1].contains("not valid UTF-8") && junk[2].contains("error"), "\(junk)")
        #expect(s.app.stderrText.contains("longer than 4096"))
        // The app still counts.
        #expect(try readAll(python(path, "commands", ["set mail 3"])) == [#"{"reply":"ok"}"#])
        #expect(try s.state().button("mail").count == 3)
    }

    @Test("Another uid is refused (mode 0600, and SO_PEERCRED when the mode is opened)",
          .enabled(if: getuid() == 0, "setpriv needs root to change uid"))
    func otherUser() throws {
        let s = try DemoSession("socket-uid")
        let path = try socketPath(s)
        let nobody = ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
        let blocked = try readAll(python(path, "connect", prefix: nobody))
        // The folder is 0700 root's and the socket 0600: nobody cannot even reach it.
        #expect(blocked.first?.hasPrefix("connect failed") == true, "\(blocked)")
        // Open the way for the test (the app checked its folder when it started).
        var folder = path
        for _ in 0..<3 {
            folder = String(folder.prefix(upTo: try #require(folder.lastIndex(of: "/"))))
            #expect(chmod(folder, 0o711) == 0, "chmod \(folder)")
        }
        #expect(chmod(path, 0o666) == 0)
        let refused = try readAll(python(path, "connect", prefix: nobody))
        #expect(refused.first?.contains("uid 65534 may not control") == true, "\(refused)")
        #expect(refused.last == "EOF")
        let error = try s.app.readEvent(named: "error", timeout: 10) { $0["source"]?.string == "socket" }
        #expect((error["reason"]?.string ?? "").contains("uid 65534"))
        #expect(s.app.stderrText.contains("refused pid"))
    }

    @Test("Unsafe runtime folders and no XDG_RUNTIME_DIR: a clear message, no socket, the app works")
    func unsafeFolders() throws {
        let base = try Self.temporaryFolder()
        defer { _ = try? ChildProcess(executable: "/bin/rm", arguments: ["-rf", base]).waitForExit(timeout: 10) }
        // A symlink in place of the app's folder.
        let linked = base + "/linked"
        #expect(mkdir(linked, 0o700) == 0 && mkdir(base + "/elsewhere", 0o700) == 0)
        #expect(symlink(base + "/elsewhere", linked + "/badge-demo") == 0)
        // A group-writable folder.
        let open = base + "/open"
        #expect(mkdir(open, 0o700) == 0 && mkdir(open + "/badge-demo", 0o700) == 0 && chmod(open + "/badge-demo", 0o770) == 0)
        for (runtime, needle) in [(linked, "symbolic link"), (open, "mode is 0770"), ("", "XDG_RUNTIME_DIR is not set")] {
            let s = try DemoSession("socket-unsafe", environment: ["XDG_RUNTIME_DIR": runtime])
            try s.app.writeLine("state")
            let state = try s.app.readEvent(named: "state", timeout: 10)
            #expect(state["controlSocket"]?["status"]?.string == "off", "\(runtime)")
            #expect((state["controlSocket"]?["reason"]?.string ?? "").contains(needle), "\(state["controlSocket"].map { "\($0)" } ?? "")")
            #expect(s.app.stderrText.contains(needle), "stderr: \(s.app.stderrText)")
            try s.command("set mail 2")
            #expect(try s.nextChange()["text"]?.string == "2")
        }
        #expect(access(base + "/elsewhere/control.sock", F_OK) != 0)
    }

    @Test("A stale socket file is replaced, a live one is left alone; socat is a client too")
    func staleSocket() throws {
        let base = try Self.temporaryFolder()
        defer { _ = try? ChildProcess(executable: "/bin/rm", arguments: ["-rf", base]).waitForExit(timeout: 10) }
        #expect(mkdir(base + "/badge-demo", 0o700) == 0)
        // A socket bound and closed without unlinking: nobody listens.
        let stale = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        try #require(stale >= 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let path = base + "/badge-demo/control.sock"
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(stale, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        close(stale)
        try #require(bound == 0)
        let s = try DemoSession("socket-stale", environment: ["XDG_RUNTIME_DIR": base])
        #expect(try socketPath(s) == path)
        if findOnPath("socat") != nil {
            let socat = try ChildProcess(executable: "socat", arguments: ["-t", "5", "-", "UNIX-CONNECT:" + path])
            try socat.writeLine("set mail 5")
            #expect(try socat.readLine(timeout: 10) == #"{"reply":"ok"}"#)
            socat.closeStdin()
            #expect(try s.nextChange()["text"]?.string == "5")
        }
        // A second --control app with the same runtime folder finds the profile running: its parent
        // wants a window to drive, so it runs beside it, as the profile's slot 2 with a socket of its own.
        let second = try DemoSession("socket-second", environment: ["XDG_RUNTIME_DIR": base])
        #expect(try socketPath(second) == base + "/badge-demo/control-2.sock")
        #expect(second.app.stderrText.isEmpty, "\(second.app.stderrText)")
        #expect(try readAll(python(path, "commands", ["hello"])) == [#"{"reply":"ok","protocol":1,"pid":\#(s.app.pid),"profile":"default"}"#])
        #expect(try readAll(python(base + "/badge-demo/control-2.sock", "commands", ["hello"]))
                == [#"{"reply":"ok","protocol":1,"pid":\#(second.app.pid),"profile":"2"}"#])
    }

    @Test("Connection cap: the 129th client gets an error line; a freed place is taken again")
    func connectionCap() throws {
        let s = try DemoSession("socket-cap")
        let path = try socketPath(s)
        let lines = try readAll(python(path, "cap", ["128"]))
        try #require(lines.count >= 3, "\(lines)")
        #expect(try JSONValue(parsing: lines[0])["accepted"]?.int == 128, "\(lines)")
        #expect(lines[1].contains("too many connections (limit 128)") && lines[2] == "EOF", "\(lines)")
        #expect(lines.last == "reconnected", "\(lines)")
        #expect(s.app.stderrText.contains("128 clients already connected"))
    }

    @Test("Idle with a quiet subscriber: 0 CPU ticks; a partial line is dropped after 10 s")
    func idleAndPartialLine() throws {
        let s = try DemoSession("socket-idle")
        s.app.recordsAllEvents = false
        let path = try socketPath(s)
        let quiet = try python(path, "stuck")
        #expect(try quiet.readLine(timeout: 10) == #"{"reply":"ok"}"#)
        try s.sync()
        #expect(try s.app.waitUntilIdle(timeout: 10, quiet: 60), "the loop keeps a deadline within a minute")
        let before = try s.app.cpuTicks()
        let switches = try s.app.contextSwitches()
        measureInterval(seconds: 1.0)
        #expect(try s.app.cpuTicks() - before == 0, "idle with a subscriber used CPU")
        #expect(try s.app.contextSwitches() - switches == 0, "idle with a subscriber woke up")
        // A partial line ("inc" with no newline) is dropped with an error after the stated 10 s.
        let start = ContinuousClock.now
        let partial = try readAll(python(path, "raw", ["696e63"]))
        let elapsed = secondsSince(start)
        #expect(partial.contains { $0.contains("partial line timed out") } && partial.last == "EOF", "\(partial)")
        #expect(elapsed >= 9.5 && elapsed < 20, "dropped after \(elapsed) s")
        #expect(s.app.stderrText.contains("partial line left hanging"))
        // The quiet subscriber is still connected.
        try quiet.writeLine("read now")
        #expect(quiet.waitForExit(timeout: 0) == nil)
        try s.command("inc mail")
        _ = try s.nextChange()
    }

    @Test("Fuzz: 10,000 connects, random bytes, 1 MB and junk lines, half lines, invalid UTF-8: no crash, counts unchanged")
    func fuzz() throws {
        let s = try DemoSession("socket-fuzz")
        s.app.recordsAllEvents = false
        let path = try socketPath(s)
        let before = try s.state().buttons.map { "\($0.id)=\($0.contentKind):\($0.count ?? -1)" }
        let fuzz = try python(path, "fuzz", ["20", "10000"])
        let answer = try fuzz.readLine(timeout: 60)
        #expect(answer == #"{"reply":"ok","protocol":1,"pid":\#(s.app.pid),"profile":"default"}"#, "\(answer ?? "EOF"); stderr: \(fuzz.stderrText); app: \(s.app.stderrText.suffix(600))")
        #expect(s.app.waitForExit(timeout: 0) == nil)
        try s.sync()
        _ = s.app.takePendingEvents()
        #expect(try s.state().buttons.map { "\($0.id)=\($0.contentKind):\($0.count ?? -1)" } == before)
        #expect(try readAll(python(path, "commands", ["inc bell"])) == [#"{"reply":"ok"}"#])
    }

    private static func temporaryFolder() throws -> String { try shortTemporaryFolder("badgekit-socket") }
}
