import BadgeIO
import CGlibcExtras
import Glibc

/// One run of a program, driven by the event loop: started with posix_spawn (its own process group,
/// an empty signal mask, default dispositions, stdin from /dev/null, close-on-exec pipes for stdout
/// and stderr, every other descriptor closed), read without blocking through ``descriptors``, its
/// end noticed through a pidfd (or, on kernels without one, the pipes' end of file and
/// `waitpid(WNOHANG)` retried on a short deadline), never a SIGCHLD handler.
///
/// Past its time limit, or once its stdout passes the output limit, its whole process group gets
/// SIGTERM, then SIGKILL a second later. Not Sendable: the loop thread owns it.
package final class ChildRun {
    /// The program and its arguments (argv[0] looked up on PATH when it has no slash).
    package let arguments: [String]
    /// The process id (0 when it could not be started).
    package private(set) var pid: pid_t = 0
    /// How it ended; nil while it runs.
    package private(set) var outcome: ChildOutcome?

    private var stdoutFD: Int32 = -1
    private var stderrFD: Int32 = -1
    private var pidFD: Int32 = -1
    private var result = ChildOutcome()
    private var exitSeen = false
    private let outputLimit: Int
    private let secretOutput: SecretBytes?
    private let timeLimit: Double
    /// Monotonic time of the start, and of the time limit.
    private let startedAt: Double
    private var limitAt: Double { startedAt + timeLimit }
    /// When SIGKILL follows the SIGTERM sent at a cutoff.
    private var killAt: Double?
    /// When the pipes still held after the exit (by something the child started) are given up.
    private var leftoverAt: Double?
    /// Without a pidfd: when to try waitpid(WNOHANG) again after the pipes' end of file.
    private var reapAt: Double?
    private var reapRetry = 0.005

    /// How long a stopped group gets between SIGTERM and SIGKILL.
    private static let killGrace = 1.0
    /// How much of stderr is kept.
    private static let errorOutputLimit = 4096

    /// Starts `arguments` now. `environment` adds (or, with nil values, removes) variables of this
    /// process's environment for the child.
    ///
    /// With `secretOutput`, standard output is read straight into it (and never into
    /// ``ChildOutcome/output``), as far as it has room: a password command's answer is then in no
    /// other buffer.
    package init(arguments: [String], environment: [String: String?] = [:], timeLimit: Double, outputLimit: Int,
                 secretOutput: SecretBytes? = nil) {
        self.arguments = arguments
        self.secretOutput = secretOutput
        self.outputLimit = secretOutput.map { min(outputLimit, $0.room) } ?? outputLimit
        self.timeLimit = timeLimit
        startedAt = SystemTime.monotonic
        if let failure = spawn(environment: environment) {
            result.spawnFailure = failure
            outcome = result
        }
    }

    deinit {
        if outcome == nil && pid > 0 {
            kill(-pid, SIGKILL)
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        }
        closeAll()
    }

    /// The descriptors to poll: stdout and stderr until their end, and the pidfd until the exit.
    package var descriptors: [Int32] {
        [stdoutFD, stderrFD, exitSeen ? -1 : pidFD].filter { $0 >= 0 }
    }

    /// Seconds until ``handleDeadline()`` is due; nil once it has ended.
    package var timeUntilDue: Double? {
        guard outcome == nil else { return nil }
        let next = leftoverAt ?? killAt ?? [limitAt, reapAt].compactMap { $0 }.min() ?? limitAt
        return next - SystemTime.monotonic
    }

    /// Reads what is ready on a pipe, or reaps the child when its pidfd is readable.
    package func handle(readable descriptor: Int32) {
        guard outcome == nil else { return }
        if descriptor == stdoutFD || descriptor == stderrFD {
            drain(descriptor)
        } else if descriptor == pidFD {
            reap()
        }
        finishIfDone()
    }

    /// Stops the child past its time limit, kills it after the grace, or checks for its exit.
    package func handleDeadline() {
        guard outcome == nil else { return }
        let now = SystemTime.monotonic
        if let leftoverAt, now >= leftoverAt {
            // It exited, but something it started still holds the pipes: end the group, finish.
            kill(-pid, SIGKILL)
            closePipes()
        } else if let killAt, now >= killAt {
            kill(-pid, SIGKILL)
            self.killAt = now + Self.killGrace  // and again, should it somehow survive
        } else if killAt == nil && now >= limitAt {
            stop(because: .timedOut(timeLimit))
        }
        if let reapAt, now >= reapAt, !exitSeen {
            reap()
            reapRetry = min(reapRetry * 2, 0.2)
            self.reapAt = exitSeen ? nil : now + reapRetry
        }
        finishIfDone()
    }

    /// Stops the run now (SIGTERM to its group, SIGKILL a second later if needed).
    package func cancel() {
        guard outcome == nil else { return }
        stop(because: .timedOut(0))
    }

    private func stop(because cutoff: ChildOutcome.Cutoff) {
        if result.cutoff == nil { result.cutoff = cutoff }
        if killAt == nil {
            killAt = SystemTime.monotonic + Self.killGrace
            kill(-pid, SIGTERM)
            kill(-pid, SIGCONT)  // a stopped process acts on SIGTERM only once it runs
        }
    }

    private func drain(_ descriptor: Int32) {
        if descriptor == stdoutFD, let secretOutput { return drainSecret(into: secretOutput) }
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let got = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if got < 0 && errno == EINTR { continue }
            if got < 0 { return }  // EAGAIN: nothing more now
            if got == 0 {
                closeDescriptor(descriptor)
                if pidFD < 0 && stdoutFD < 0 && stderrFD < 0 && !exitSeen {
                    reap()
                    if !exitSeen { reapAt = SystemTime.monotonic + reapRetry }
                }
                return
            }
            if descriptor == stdoutFD {
                let room = outputLimit - result.output.count
                result.output += chunk[0..<min(got, max(0, room))]
                if got > room {
                    // Stop reading: the child gets EPIPE or SIGPIPE on its next write, and is stopped.
                    closeDescriptor(stdoutFD)
                    stop(because: .tooMuchOutput(outputLimit))
                    return
                }
            } else {
                result.errorOutput += chunk[0..<got]
                if result.errorOutput.count > Self.errorOutputLimit {
                    result.errorOutput.removeFirst(result.errorOutput.count - Self.errorOutputLimit)
                }
            }
        }
    }

    /// Reads stdout into `secret` only; more than it holds stops the child.
    private func drainSecret(into secret: SecretBytes) {
        while true {
            if secret.room == 0 {
                var probe: UInt8 = 0
                let more = read(stdoutFD, &probe, 1)
                probe = 0
                if more > 0 {
                    closeDescriptor(stdoutFD)
                    stop(because: .tooMuchOutput(outputLimit))
                    return
                }
                if more == 0 { closeDescriptor(stdoutFD); finishIfPipesClosed() }
                return
            }
            let got = secret.read(from: stdoutFD)
            if got < 0 && errno == EINTR { continue }
            if got < 0 { return }
            if got == 0 {
                closeDescriptor(stdoutFD)
                finishIfPipesClosed()
                return
            }
        }
    }

    /// After the last pipe's end of file without a pidfd: reaps, or retries shortly.
    private func finishIfPipesClosed() {
        if pidFD < 0 && stdoutFD < 0 && stderrFD < 0 && !exitSeen {
            reap()
            if !exitSeen { reapAt = SystemTime.monotonic + reapRetry }
        }
    }

    /// Collects the exit status if the child has ended (never blocks).
    private func reap() {
        guard !exitSeen, pid > 0 else { return }
        var status: Int32 = 0
        var got: pid_t
        repeat { got = waitpid(pid, &status, WNOHANG) } while got < 0 && errno == EINTR
        guard got == pid else { return }
        exitSeen = true
        if status & 0x7f == 0 {
            result.exitStatus = (status >> 8) & 0xff
        } else {
            result.signal = status & 0x7f
        }
        // What it wrote before it ended is in the pipes now.
        for fd in [stdoutFD, stderrFD] where fd >= 0 { drain(fd) }
        if stdoutFD >= 0 || stderrFD >= 0 {
            // Something it started holds the pipes: give it a moment, then end the group.
            leftoverAt = SystemTime.monotonic + 0.1
        }
    }

    private func finishIfDone() {
        guard outcome == nil, exitSeen, stdoutFD < 0, stderrFD < 0 else { return }
        if killAt != nil { kill(-pid, SIGKILL) }  // what the group started, if anything
        closeAll()
        outcome = result
    }

    private func closeDescriptor(_ descriptor: Int32) {
        if descriptor == stdoutFD { stdoutFD = -1 }
        if descriptor == stderrFD { stderrFD = -1 }
        if descriptor == pidFD { pidFD = -1 }
        close(descriptor)
    }

    private func closePipes() {
        for fd in [stdoutFD, stderrFD] where fd >= 0 { closeDescriptor(fd) }
    }

    private func closeAll() {
        for fd in [stdoutFD, stderrFD, pidFD] where fd >= 0 { closeDescriptor(fd) }
    }

    /// Starts the child; the reason when it could not be.
    private func spawn(environment: [String: String?]) -> String? {
        guard let program = arguments.first, !program.isEmpty else { return "no program given" }
        var outPipe: [Int32] = [-1, -1], errPipe: [Int32] = [-1, -1]
        guard glibcextras_pipe_cloexec(&outPipe) == 0 else { return "cannot make a pipe: \(errorText(errno))" }
        guard glibcextras_pipe_cloexec(&errPipe) == 0 else {
            let reason = errorText(errno)
            close(outPipe[0]); close(outPipe[1])
            return "cannot make a pipe: \(reason)"
        }
        defer { close(outPipe[1]); close(errPipe[1]) }
        stdoutFD = outPipe[0]
        stderrFD = errPipe[0]
        for fd in [stdoutFD, stderrFD] { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }

        switch ProcessSpawn.start(arguments, environment: environment, grouping: .processGroup,
                                  stdout: outPipe[1], stderr: errPipe[1]) {
        case .success(let child):
            pid = child
            pidFD = glibcextras_pidfd_open(child)
            return nil
        case .failure(let reason):
            closeAll()
            return reason.description
        }
    }
}
