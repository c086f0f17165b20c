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

    @Test func errorLinesAreJSON() {
        #expect(ControlSocketServer.errorLine("bad \"x\"\n\\") == #"{"reply":"error","reason":"bad \"x\"\u000a\\"}"#)
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
