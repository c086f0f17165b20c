import CXvfbHarness
import Glibc

/// A private Xvfb server for one test: `Xvfb -displayfd FD -screen 0 WxHxD -nolisten tcp -noreset`,
/// with no display argument, so Xvfb picks a free display number and writes it to the pipe once it
/// accepts connections. Stopped (SIGTERM, then SIGKILL) and reaped on deinit.
public final class XvfbServer {
    /// The display name, e.g. ":3".
    public let display: String
    /// Screen size in pixels.
    public let width: Int, height: Int
    /// Screen depth (8, 15, 16, 24 or 30).
    public let depth: Int
    /// Path of the server's stderr log (removed on deinit unless the server failed).
    public let logPath: String
    private let process: ChildProcess

    /// The server's process id.
    public var pid: pid_t { process.pid }

    /// Starts a server and waits (poll with deadline `timeout`) until it reports its display number.
    /// `extraArguments` go after the screen's, e.g. `["-cc", "5"]` for a DirectColor default visual
    /// (a screen whose default visual cannot be drawn in directly).
    public static func start(width: Int = 640, height: Int = 480, depth: Int = 24, extraArguments: [String] = [],
                             timeout: Double = 10) throws -> XvfbServer {
        try XvfbServer(width: width, height: height, depth: depth, extraArguments: extraArguments, timeout: timeout)
    }

    private init(width: Int, height: Int, depth: Int, extraArguments: [String], timeout: Double) throws {
        guard findOnPath("Xvfb") != nil else {
            throw HarnessError("Xvfb is not installed or not on PATH: run `apt-get install xvfb`")
        }
        self.width = width
        self.height = height
        self.depth = depth
        logPath = "/tmp/xvfbharness-\(getpid())-\(UInt64.random(in: 0...UInt64.max)).log"

        var fds: [Int32] = [-1, -1]
        guard xvfbharness_pipe_cloexec(&fds) == 0 else { throw HarnessError.posix("pipe2 for -displayfd") }
        let (readEnd, writeEnd) = (fds[0], fds[1])
        defer { close(readEnd) }
        let childFD: Int32 = 3
        do {
            defer { close(writeEnd) }  // the parent must not keep the write end, or EOF never comes
            process = try ChildProcess(
                executable: "Xvfb",
                arguments: ["-displayfd", "\(childFD)", "-screen", "0", "\(width)x\(height)x\(depth)",
                            "-nolisten", "tcp", "-noreset"] + extraArguments,
                stdin: .null, stdout: .null, stderr: .file(logPath),
                extraDescriptors: [childFD: writeEnd])
        }

        // Read "N\n" from the pipe with a deadline.
        let deadline = Deadline(seconds: timeout)
        var text: [UInt8] = []
        var failure: String?
        while !text.contains(0x0A) {
            var pfd = [pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0)]
            let rc = poll(&pfd, 1, deadline.remainingMilliseconds)
            if rc < 0 && errno == EINTR { continue }
            if rc == 0 { failure = "Xvfb did not report a display number within \(timeout) s"; break }
            var buffer = [UInt8](repeating: 0, count: 64)
            let n = buffer.withUnsafeMutableBytes { read(readEnd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { failure = "Xvfb exited or closed the -displayfd pipe before reporting a display"; break }
            text.append(contentsOf: buffer[0..<n])
        }
        let number = String(decoding: text, as: UTF8.self).split(separator: "\n").first.flatMap { Int($0) }
        if failure == nil && number == nil { failure = "Xvfb wrote an unexpected display number: '\(String(decoding: text, as: UTF8.self))'" }
        guard failure == nil, let number else {
            process.kill(SIGKILL)
            let status = process.waitForExit(timeout: 5)
            let log = (try? readSmallFile(logPath)).map { String(decoding: $0.suffix(2000), as: UTF8.self) } ?? ""
            throw HarnessError("\(failure ?? "Xvfb failed") (\(status?.description ?? "not reaped")); log \(logPath):\n\(log)")
        }
        display = ":\(number)"
    }

    deinit {
        stop()
        unlink(logPath)
    }

    /// Whether the server is still running (not reaped).
    public var isRunning: Bool { process.exitStatus == nil && process.waitForExit(timeout: 0) == nil }

    /// Kills the server with SIGKILL (simulates losing the X server) and reaps it.
    public func kill() {
        process.kill(SIGKILL)
        process.waitForExit(timeout: 10)
    }

    /// Stops the server with SIGTERM, then SIGKILL if it has not exited within 5 s, and reaps it.
    public func stop() {
        guard process.exitStatus == nil else { return }
        process.terminate()
        if process.waitForExit(timeout: 5) == nil { kill() }
    }

    /// The server's log (stderr) so far, for failure messages.
    public var log: String {
        (try? readSmallFile(logPath)).map { String(decoding: $0, as: UTF8.self) } ?? ""
    }
}
