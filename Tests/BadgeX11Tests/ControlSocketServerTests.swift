import Glibc
import Testing
import XvfbHarness
@testable import BadgeX11

/// The control socket's setup, without a display: folder checks, a live socket, a stale one.
@Suite struct ControlSocketServerTests {
    private static func temporaryFolder() throws -> String {
        var template = Array("/tmp/badgekit-css-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress.flatMap { mkdtemp($0) }.map { String(cString: $0) }
        }
        return try #require(made, "mkdtemp: \(String(cString: strerror(errno)))")
    }

    private static func remove(_ folder: String) {
        for name in ["app/control.sock", "app", "target/control.sock", "target", "link"] { unlink(folder + "/" + name); rmdir(folder + "/" + name) }
        rmdir(folder)
    }

    @Test func createsAPrivateFolderAndSocket() throws {
        let base = try Self.temporaryFolder()
        defer { Self.remove(base) }
        let server = try ControlSocketServer(folder: base + "/app")
        var info = stat()
        #expect(lstat(base + "/app", &info) == 0 && info.st_mode & 0o777 == 0o700)
        #expect(lstat(server.path, &info) == 0 && info.st_mode & S_IFMT == S_IFSOCK && info.st_mode & 0o777 == 0o600)
        // The umask is given back after bind.
        let mask = umask(0o022)
        umask(mask)
        #expect(mask != 0o177)
        // A second server finds the first one listening; once it is gone, the stale path is taken over.
        #expect(throws: ControlSocketError.alreadyRunning(path: server.path)) { try ControlSocketServer(folder: base + "/app") }
        server.shutdown()
        #expect(access(server.path, F_OK) != 0, "shutdown removes the socket file")
        // A stale socket file (bound, never listened, closed) is replaced.
        let stale = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        try #require(stale >= 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in for (i, b) in server.path.utf8.enumerated() { raw[i] = b } }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(stale, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        close(stale)
        try #require(bound == 0)
        let again = try ControlSocketServer(folder: base + "/app")
        #expect(again.path == server.path && again.clientCount == 0)
        #expect(again.timeUntilDue == nil, "no client: no deadline")
    }

    @Test func refusesUnsafeFolders() throws {
        let base = try Self.temporaryFolder()
        defer { Self.remove(base) }
        #expect(mkdir(base + "/target", 0o700) == 0 && symlink(base + "/target", base + "/link") == 0)
        #expect(throws: ControlSocketError.unsafeFolder(path: base + "/link", reason: "it is a symbolic link")) {
            try ControlSocketServer(folder: base + "/link")
        }
        #expect(chmod(base + "/target", 0o750) == 0)
        #expect(throws: ControlSocketError.unsafeFolder(path: base + "/target", reason: "its mode is 0750, open to group or others")) {
            try ControlSocketServer(folder: base + "/target")
        }
        #expect(access(base + "/target/control.sock", F_OK) != 0)
        if getuid() == 0 {
            #expect(chmod(base + "/target", 0o700) == 0 && chown(base + "/target", 65534, 65534) == 0)
            #expect(throws: ControlSocketError.unsafeFolder(path: base + "/target", reason: "it belongs to uid 65534, not 0")) {
                try ControlSocketServer(folder: base + "/target")
            }
        }
        let long = base + "/" + String(repeating: "x", count: 120)
        #expect(throws: ControlSocketError.self) { try ControlSocketServer(folder: long) }
        rmdir(long)
    }

    /// A server with a small output limit whose clients subscribe with "subscribe", driven by
    /// hand (no loop): `pump` waits on its descriptor up to `seconds` and handles what is ready.
    private final class DrivenServer {
        let server: ControlSocketServer
        let source: EventLoop.Source
        var logs: [String] = []
        /// When the server logged that it dropped a subscriber.
        var droppedAt: Double?

        init(folder: String, limits: ControlSocketServer.Limits) throws {
            server = try ControlSocketServer(folder: folder, limits: limits)
            source = server.source()
            server.onLine = { [unowned server] id, line in
                if line == "subscribe" { server.subscribe(id) }
                server.reply(#"{"reply":"ok"}"#, to: id)
            }
            server.onLog = { [unowned self] message in
                self.logs.append(message)
                if message.contains("dropped subscriber") { self.droppedAt = SystemTime.monotonic }
            }
        }

        func pump(_ seconds: Double) throws {
            let descriptor = try #require(source.descriptor())
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            if poll(&entry, 1, Int32((max(0, seconds) * 1000).rounded(.up))) > 0 {
                try source.handle(EventLoop.Readiness(readable: true, writable: false, failed: false))
            }
            _ = server.expire()
        }

        /// The client's next line while the server runs; nil at end of file.
        func next(_ client: ControlSocketClient, within seconds: Double = 10) throws -> String? {
            let deadline = SystemTime.monotonic + seconds
            while true {
                switch Result(catching: { () throws(ControlSocketClientError) in try client.readLine(timeout: 0) }) {
                case .success(let line):
                    return line
                case .failure(.timedOut):
                    guard SystemTime.monotonic < deadline else { throw HarnessError("no line within \(seconds) s") }
                    try pump(0.02)
                case .failure(let error):
                    throw error
                }
            }
        }
    }

    @Test("A subscriber that reads too slowly gets one last line that says why (the events queued for it are left out), then end of file")
    func slowSubscriberIsToldWhy() throws {
        let base = try Self.temporaryFolder()
        defer { Self.remove(base) }
        var limits = ControlSocketServer.Limits()
        limits.maximumOutput = 4096
        let driven = try DrivenServer(folder: base + "/app", limits: limits)
        let client = try ControlSocketClient(path: driven.server.path)
        try client.send("subscribe")
        #expect(try driven.next(client) == #"{"reply":"ok"}"#)
        // Far more than the socket's buffers and the 4 KiB queue hold, while the client reads nothing.
        let event = #"{"event":"change","id":"bell","text":""# + String(repeating: "x", count: 200) + #""}"#
        let sent = 10_000
        for _ in 0..<sent { driven.server.broadcast(event) }
        #expect(driven.logs.contains { $0.contains("dropped subscriber pid \(getpid()): it left over 4096 bytes unread") }, "\(driven.logs)")
        #expect(driven.server.timeUntilDue != nil, "the dropped subscriber's last line has a deadline")
        var lines: [String] = []
        while let line = try driven.next(client) { lines.append(line) }
        let last = try #require(lines.last)
        #expect(last.hasPrefix(#"{"event":"error","line":0,"source":"socket","cause":"dropped","reason":"this subscriber read too slowly: "#)
                && last.contains("KiB waited unread (the limit is 4 KiB)"), "\(last)")
        // Every line before it whole (the one being written when it was dropped was finished), and not all sent.
        #expect(lines.dropLast().allSatisfy { $0 == event }, "a line was cut: \(lines.dropLast().first { $0 != event } ?? "")")
        #expect(lines.count > 1 && lines.count < sent, "\(lines.count) lines")
        try driven.pump(0)
        #expect(driven.server.clientCount == 0)
        #expect(driven.server.timeUntilDue == nil)
    }

    @Test("A dropped subscriber that never reads again is closed at the farewell timeout")
    func droppedSubscriberThatNeverReads() throws {
        let base = try Self.temporaryFolder()
        defer { Self.remove(base) }
        var limits = ControlSocketServer.Limits()
        limits.maximumOutput = 4096
        limits.farewellTimeout = 0.3
        let driven = try DrivenServer(folder: base + "/app", limits: limits)
        let client = try ControlSocketClient(path: driven.server.path)
        try client.send("subscribe")
        #expect(try driven.next(client) == #"{"reply":"ok"}"#)
        for _ in 0..<10_000 { driven.server.broadcast(String(repeating: "y", count: 200)) }
        let dropped = try #require(driven.droppedAt, "\(driven.logs)")
        #expect(driven.server.clientCount == 1, "kept until its last line is read or the timeout")
        let wait = try #require(driven.server.timeUntilDue)
        #expect(wait <= 0.3)
        while driven.server.clientCount > 0, SystemTime.monotonic - dropped < 10 { try driven.pump(driven.server.timeUntilDue ?? 0.05) }
        #expect(driven.server.clientCount == 0)
        #expect(SystemTime.monotonic - dropped >= 0.29)
    }

    @Test func errorLinesAreJSON() {
        // The reason is made one line first (InputEcho.line: the newline written as \n), then JSON-escaped.
        #expect(ControlSocketServer.errorLine("bad \"x\"\n\\") == #"{"reply":"error","reason":"bad \"x\"\\n\\"}"#)
    }
}

/// The client's side of the framing: BadgeIO's line reader, bounded.
@Suite struct ControlSocketClientFramingTests {
    @Test("Lines that come in one read are returned one by one; a line past the limit is an error, not memory",
          .enabled(if: access("/usr/bin/python3", X_OK) == 0, "needs python3"))
    func boundedLines() throws {
        var template = Array("/tmp/badgekit-csc-XXXXXX".utf8CString)
        let folder = try #require(template.withUnsafeMutableBufferPointer { $0.baseAddress.flatMap { mkdtemp($0) } }.map { String(cString: $0) })
        let path = folder + "/control.sock"
        defer { unlink(path); rmdir(folder) }
        // A stand-in server: two lines in one write, then a line longer than the client keeps.
        let script = """
        import socket, sys, os
        s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(1)
        print("listening", flush=True)
        c, _ = s.accept()
        c.sendall(b"first\\nsecond\\n")
        sys.stdin.readline()
        c.sendall(b"x" * (int(sys.argv[2]) + 1))
        sys.stdin.readline()
        """
        let server = try ChildProcess(executable: "/usr/bin/python3",
                                      arguments: ["-c", script, path, String(ControlSocketClient.maximumLineLength)])
        defer { server.kill(SIGKILL); server.waitForExit(timeout: 5) }
        #expect(try server.readLine(timeout: 10) == "listening")
        let client = try ControlSocketClient(path: path, owner: getuid())
        #expect(try client.readLine(timeout: 10) == "first")
        #expect(try client.readLine(timeout: 10) == "second")
        try server.writeLine("go")
        #expect(throws: ControlSocketClientError.lineTooLong(path: path, limit: ControlSocketClient.maximumLineLength)) {
            _ = try client.readLine(timeout: 20)
        }
        try server.writeLine("done")
    }
}
