import BadgeCore
import CXvfbHarness
import BadgeIO
import Glibc
import BadgeControl

/// A child process started with `posix_spawn`: empty signal mask, default dispositions for SIGTERM,
/// SIGINT, SIGPIPE and SIGCHLD, close-on-exec pipes, every other descriptor closed in the child
/// (only 0, 1, 2 and `extraDescriptors` are open there), reaped with `waitpid`.
///
/// Not thread-safe (and not Sendable): use it from the test that created it. Deinit kills (SIGKILL)
/// and reaps the child if it is still running, and closes the pipes.
///
/// The test process ignores SIGPIPE once the first child is spawned, so that writing to a child
/// that has died fails with EPIPE instead of killing the test runner.
public final class ChildProcess {
    /// Where the child's standard input comes from.
    public enum Input: Sendable {
        /// A pipe the test writes with `writeLine(_:)` and closes with `closeStdin()`.
        case pipe
        /// `/dev/null`.
        case null
    }

    /// Where the child's standard output or error goes.
    public enum Output: Sendable {
        /// A pipe the test reads (stdout with `readLine`, stderr with `stderrText`).
        case pipe
        /// `/dev/null`.
        case null
        /// A file, created or truncated.
        case file(String)
    }

    /// The child's process id.
    public let pid: pid_t
    /// The program path.
    public let executable: String
    /// The arguments (without argv[0]).
    public let arguments: [String]

    private var stdinFD: Int32 = -1
    private var stdoutFD: Int32 = -1
    private var stderrFD: Int32 = -1
    private var pidFD: Int32 = -1
    private var stdoutBuffer: [UInt8] = []
    private var stdoutEOF = false
    private var stderrBytes: [UInt8] = []
    private var stderrEOF = false
    private var linesRead = 0

    /// The exit status once reaped.
    public private(set) var exitStatus: ProcessTermination?
    /// Every JSON event read so far by `readEvent`, in order (consumed or not).
    package internal(set) var allEvents: [JSONValue] = []
    /// Whether `allEvents` keeps every event read; turn off for long runs (soak tests) so the test's
    /// own memory stays flat.
    public var recordsAllEvents = true
    /// Events read while looking for another one, not yet returned by `readEvent`.
    package internal(set) var pendingEvents: [JSONValue] = []
    /// Stdout lines that were not valid JSON objects with an "event" field.
    public internal(set) var otherLines: [String] = []

    private static let ignoreSIGPIPE: Void = { _ = signal(SIGPIPE, SIG_IGN) }()

    /// Spawns `executable` (an absolute path, or a name looked up on PATH) with `arguments`.
    ///
    /// - Parameters:
    ///   - environment: the child's environment (default: this process's).
    ///   - extraDescriptors: child descriptor → parent descriptor to pass on (e.g. `[3: pipeWriteEnd]`).
    ///     The parent keeps ownership of the parent descriptors.
    ///   - ownProcessGroup: starts the child in a process group of its own, so that ``killGroup(_:)``
    ///     also ends what it starts (at-spi-bus-launcher's bus daemon and registry outlive it otherwise).
    public init(
        executable: String,
        arguments: [String] = [],
        environment: ChildEnvironment = .inherited(),
        stdin: Input = .pipe,
        stdout: Output = .pipe,
        stderr: Output = .pipe,
        extraDescriptors: [Int32: Int32] = [:],
        ownProcessGroup: Bool = false
    ) throws {
        self.ownsProcessGroup = ownProcessGroup
        ChildProcess.ignoreSIGPIPE
        guard let path = findOnPath(executable) else {
            throw HarnessError("cannot run '\(executable)': not found or not executable (check PATH / install it)")
        }
        self.executable = path
        self.arguments = arguments

        var toCloseInParent: [Int32] = []   // child ends of pipes and temporary duplicates
        var parentEnds: [Int32] = []        // closed on failure
        defer { for fd in toCloseInParent { close(fd) } }

        var actions = posix_spawn_file_actions_t()
        guard posix_spawn_file_actions_init(&actions) == 0 else { throw HarnessError.posix("posix_spawn_file_actions_init") }
        defer { posix_spawn_file_actions_destroy(&actions) }

        func makePipe() throws -> (read: Int32, write: Int32) {
            var fds: [Int32] = [-1, -1]
            guard xvfbharness_pipe_cloexec(&fds) == 0 else { throw HarnessError.posix("pipe2(O_CLOEXEC)") }
            return (fds[0], fds[1])
        }
        func check(_ rc: Int32, _ what: String) throws {
            if rc != 0 { throw HarnessError.posix(what, errno: rc) }
        }

        do {
            switch stdin {
            case .pipe:
                let p = try makePipe()
                stdinFD = p.write; parentEnds.append(p.write); toCloseInParent.append(p.read)
                try check(posix_spawn_file_actions_adddup2(&actions, p.read, 0), "adddup2 stdin")
            case .null:
                try check(posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0), "addopen stdin")
            }
            for (target, output) in [(Int32(1), stdout), (Int32(2), stderr)] {
                switch output {
                case .pipe:
                    let p = try makePipe()
                    parentEnds.append(p.read); toCloseInParent.append(p.write)
                    _ = fcntl(p.read, F_SETFL, fcntl(p.read, F_GETFL) | O_NONBLOCK)
                    if target == 1 { stdoutFD = p.read } else { stderrFD = p.read }
                    try check(posix_spawn_file_actions_adddup2(&actions, p.write, target), "adddup2 fd \(target)")
                case .null:
                    try check(posix_spawn_file_actions_addopen(&actions, target, "/dev/null", O_WRONLY, 0), "addopen fd \(target)")
                case .file(let file):
                    try check(posix_spawn_file_actions_addopen(&actions, target, file, O_WRONLY | O_CREAT | O_TRUNC, 0o644),
                              "addopen \(file)")
                }
            }
            // Duplicate extra descriptors high first, so a source never equals another mapping's target
            // (dup2(fd, fd) would keep close-on-exec set).
            for (target, source) in extraDescriptors.sorted(by: { $0.key < $1.key }) {
                let high = fcntl(source, F_DUPFD_CLOEXEC, 200)
                guard high >= 0 else { throw HarnessError.posix("fcntl(F_DUPFD_CLOEXEC) for child fd \(target)") }
                toCloseInParent.append(high)
                try check(posix_spawn_file_actions_adddup2(&actions, high, target), "adddup2 fd \(target)")
            }
            // Close everything else the test process has open (X sockets of parallel tests, runner pipes).
            let firstUnused = (extraDescriptors.keys.max() ?? 2) + 1
            try check(xvfbharness_spawn_addclosefrom(&actions, firstUnused), "addclosefrom_np(\(firstUnused))")
            if stdoutFD < 0 { stdoutEOF = true }
            if stderrFD < 0 { stderrEOF = true }

            var attributes = posix_spawnattr_t()
            try check(posix_spawnattr_init(&attributes), "posix_spawnattr_init")
            defer { posix_spawnattr_destroy(&attributes) }
            var emptyMask = sigset_t()
            sigemptyset(&emptyMask)
            try check(posix_spawnattr_setsigmask(&attributes, &emptyMask), "posix_spawnattr_setsigmask")
            var defaults = sigset_t()
            sigemptyset(&defaults)
            for sig in [SIGTERM, SIGINT, SIGPIPE, SIGCHLD] { sigaddset(&defaults, sig) }
            try check(posix_spawnattr_setsigdefault(&attributes, &defaults), "posix_spawnattr_setsigdefault")
            var flags = Int32(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF)
            if ownProcessGroup {
                try check(posix_spawnattr_setpgroup(&attributes, 0), "posix_spawnattr_setpgroup")
                flags |= Int32(POSIX_SPAWN_SETPGROUP)
            }
            try check(posix_spawnattr_setflags(&attributes, Int16(flags)), "posix_spawnattr_setflags")

            let argv = ([path] + arguments).map { strdup($0) }
            // Hermetic: folders of its own, and none of the user's buses or mail.
            let (entries, folder) = environment.hermeticEntries()
            privateFolder = folder
            let envp = entries.map { strdup($0) }
            defer { for p in argv { free(p) }; for p in envp { free(p) } }
            var childPID: pid_t = 0
            let rc: Int32 = (argv + [nil]).withUnsafeBufferPointer { argvBuffer in
                (envp + [nil]).withUnsafeBufferPointer { envBuffer in
                    guard let argvBase = argvBuffer.baseAddress, let envBase = envBuffer.baseAddress else { return EINVAL }
                    return posix_spawn(&childPID, path, &actions, &attributes, argvBase, envBase)
                }
            }
            if rc != 0 {
                throw HarnessError.posix("posix_spawn(\(path))", errno: rc)
            }
            pid = childPID
        } catch {
            for fd in parentEnds { close(fd) }
            throw error
        }
        pidFD = xvfbharness_pidfd_open(pid)
        if pidFD >= 0 { _ = fcntl(pidFD, F_SETFD, FD_CLOEXEC) }
    }

    deinit {
        if ownsProcessGroup { Glibc.kill(-pid, SIGKILL) }
        if exitStatus == nil {
            Glibc.kill(pid, SIGKILL)
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        }
        for fd in [stdinFD, stdoutFD, stderrFD, pidFD] where fd >= 0 { close(fd) }
        if let privateFolder { removeTree(privateFolder) }
    }

    /// The child's own XDG folders (removed with it), or nil when the test gave its own.
    public private(set) var privateFolder: String?

    // MARK: stdin

    /// Writes `line` plus a newline to the child's stdin. Throws if stdin is closed or the child
    /// has closed its end (EPIPE).
    public func writeLine(_ line: String) throws {
        guard stdinFD >= 0 else { throw HarnessError("writeLine(\(line)): stdin of \(executable) is closed or not a pipe") }
        try writeAll(stdinFD, Array((line + "\n").utf8), what: "stdin of \(executable) (pid \(pid))")
    }

    /// Writes `bytes` to the child's stdin while reading its stdout and stderr meanwhile, so a child
    /// that answers every line can never deadlock against the test (both pipes full). Throws if the
    /// child closes stdin or `timeout` passes.
    public func writeDraining(_ bytes: [UInt8], timeout: Double = 30) throws {
        guard stdinFD >= 0 else { throw HarnessError("writeDraining: stdin of \(executable) is closed or not a pipe") }
        let deadline = Deadline(seconds: timeout)
        var offset = 0
        while offset < bytes.count {
            if deadline.hasPassed { throw HarnessError("writeDraining: \(executable) did not read its input within \(timeout) s") }
            var fds = [pollfd(fd: stdinFD, events: Int16(POLLOUT), revents: 0),
                       pollfd(fd: stdoutEOF ? -1 : stdoutFD, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: stderrEOF ? -1 : stderrFD, events: Int16(POLLIN), revents: 0)]
            let rc = poll(&fds, 3, deadline.remainingMilliseconds)
            if rc < 0 {
                if errno == EINTR { continue }
                throw HarnessError.posix("poll on the pipes of \(executable)")
            }
            if fds[1].revents != 0 { drain(stderr: false) }
            if fds[2].revents != 0 { drain(stderr: true) }
            if fds[0].revents & Int16(POLLERR | POLLHUP) != 0 { throw HarnessError("stdin of \(executable) was closed by the child") }
            if fds[0].revents & Int16(POLLOUT) != 0 {
                // POLLOUT promises room for PIPE_BUF (4096) bytes: a write that size never blocks.
                let count = min(4096, bytes.count - offset)
                let written = bytes.withUnsafeBytes { write(stdinFD, $0.baseAddress.map { $0 + offset }, count) }
                if written < 0 {
                    if errno == EINTR || errno == EAGAIN { continue }
                    throw HarnessError.posix("write to stdin of \(executable)")
                }
                offset += written
            }
        }
    }

    /// Closes the child's stdin, so it reads end of file.
    public func closeStdin() {
        if stdinFD >= 0 { close(stdinFD); stdinFD = -1 }
    }

    // MARK: stdout

    /// Reads one line from stdout (without the newline). Returns nil at end of file; throws when
    /// `timeout` seconds pass first. Stderr is drained meanwhile so the child never blocks on it.
    public func readLine(timeout: Double) throws -> String? {
        let deadline = Deadline(seconds: timeout)
        while true {
            if let newline = stdoutBuffer.firstIndex(of: 0x0A) {
                let line = String(decoding: stdoutBuffer[..<newline], as: UTF8.self)
                stdoutBuffer.removeSubrange(...newline)
                linesRead += 1
                return line
            }
            if stdoutEOF {
                if stdoutBuffer.isEmpty { return nil }
                let line = String(decoding: stdoutBuffer, as: UTF8.self)
                stdoutBuffer.removeAll()
                return line
            }
            if deadline.hasPassed {
                throw HarnessError("no line from \(executable) (pid \(pid)) on stdout within \(timeout) s; "
                    + "partial: '\(String(decoding: stdoutBuffer, as: UTF8.self))'; stderr: '\(stderrText)'")
            }
            try pollOutputs(milliseconds: deadline.remainingMilliseconds)
        }
    }

    /// Waits until stdout or stderr is readable (or the time runs out) and reads what is there.
    private func pollOutputs(milliseconds: Int32) throws {
        var fds = [pollfd(fd: stdoutFD, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: stderrEOF ? -1 : stderrFD, events: Int16(POLLIN), revents: 0)]
        let rc = poll(&fds, 2, milliseconds)
        if rc < 0 {
            if errno == EINTR { return }
            throw HarnessError.posix("poll on the pipes of \(executable)")
        }
        if fds[1].revents != 0 { drain(stderr: true) }
        if fds[0].revents != 0 { drain(stderr: false) }
    }

    /// Reads everything available now from stdout or stderr (non-blocking).
    private func drain(stderr: Bool) {
        let fd = stderr ? stderrFD : stdoutFD
        guard fd >= 0, !(stderr ? stderrEOF : stdoutEOF) else { return }
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n > 0 {
                if stderr { stderrBytes.append(contentsOf: chunk[0..<n]) } else { stdoutBuffer.append(contentsOf: chunk[0..<n]) }
                continue
            }
            if n == 0 {
                if stderr { stderrEOF = true } else { stdoutEOF = true }
                return
            }
            if errno == EINTR { continue }
            if errno != EAGAIN && errno != EWOULDBLOCK {
                if stderr { stderrEOF = true } else { stdoutEOF = true }
            }
            return
        }
    }

    // MARK: stderr

    /// Everything the child wrote to stderr so far (drained now, without blocking).
    public var stderrText: String {
        drain(stderr: true)
        return String(decoding: stderrBytes, as: UTF8.self)
    }

    // MARK: exit

    var exitDescription: String {
        if let exitStatus { return exitStatus.description }
        return "still running"
    }

    /// Waits up to `timeout` seconds for the child to end; returns its status, or nil if it is
    /// still running. After the exit, stderr is read to end of file (bounded by a short deadline).
    @discardableResult
    public func waitForExit(timeout: Double) -> ProcessTermination? {
        if let exitStatus { return exitStatus }
        let deadline = Deadline(seconds: timeout)
        while true {
            var status: Int32 = 0
            let rc = waitpid(pid, &status, WNOHANG)
            if rc == pid, let decoded = ProcessTermination(waitStatus: status) {
                exitStatus = decoded
                finishReadingStderr()
                return decoded
            }
            if rc < 0 && errno != EINTR {
                return nil  // ECHILD: someone else reaped it; nothing sensible to report
            }
            if deadline.hasPassed { return nil }
            if pidFD >= 0 {
                var fds = [pollfd(fd: pidFD, events: Int16(POLLIN), revents: 0)]
                _ = poll(&fds, 1, deadline.remainingMilliseconds)
            } else {
                // No pidfd (old kernel): fall back to short polls of waitpid.
                _ = poll(nil, 0, min(5, deadline.remainingMilliseconds))
            }
        }
    }

    private func finishReadingStderr() {
        let deadline = Deadline(seconds: 0.5)
        while !stderrEOF && stderrFD >= 0 && !deadline.hasPassed {
            var fds = [pollfd(fd: stderrFD, events: Int16(POLLIN), revents: 0)]
            _ = poll(&fds, 1, deadline.remainingMilliseconds)
            drain(stderr: true)
        }
    }

    /// Sends `signal` to the child (no effect once it has been reaped).
    public func kill(_ signal: Int32) {
        if exitStatus == nil { Glibc.kill(pid, signal) }
    }

    /// Sends SIGTERM.
    public func terminate() { kill(SIGTERM) }

    /// The child's memory map (/proc/PID/maps): which libraries it has loaded.
    public func memoryMaps() throws -> String {
        String(decoding: try readSmallFile("/proc/\(pid)/maps"), as: UTF8.self)
    }

    /// True when the child leads a process group of its own.
    public let ownsProcessGroup: Bool

    /// Sends `signal` to the child's whole process group (a child started with `ownProcessGroup`).
    public func killGroup(_ signal: Int32) {
        guard ownsProcessGroup else { return kill(signal) }
        Glibc.kill(-pid, signal)
    }
}
