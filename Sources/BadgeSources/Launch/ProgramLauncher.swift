import BadgeIO
import CGlibcExtras
import Glibc

/// Starts applications the way a desktop launcher does, for a toolbar button that stands for an
/// application that is not running: without a shell (an argument vector, e.g. a desktop file's
/// ``DesktopEntry/arguments()``), in a session of its own (so it outlives the app and gets none of
/// its signals), with an empty signal mask and default dispositions, standard input from
/// /dev/null, standard output and error shared with the app (as a launcher's children log to the
/// session's log), and no other descriptor of the app. Nothing waits for the program.
///
/// Ended programs are reaped without blocking and without a SIGCHLD handler: each one's pidfd is
/// in one epoll set, ``descriptor``, which the loop watches (``source(named:)`` for BadgeIO's
/// `EventLoop`, or ``descriptor`` and ``reapEnded()`` for a loop of your own); it is readable
/// when one has ended, and ``reapEnded()`` collects it with `waitpid(WNOHANG)`. On a kernel
/// without pidfds (before 5.3) ended programs are reaped at the next ``launch(_:environment:workingDirectory:)``
/// and each ``reapEnded()``. Not Sendable: the loop thread owns it.
public final class ProgramLauncher {
    /// The pids started and not yet reaped, with their pidfds (-1 without one).
    private var children: [(pid: pid_t, pidFD: Int32)] = []
    /// The epoll set of the children's pidfds; nil until the first launch, or when it could not be made.
    private var epoll: EpollSet?
    /// Numbers the startup ids this launcher makes.
    private var launches = 0

    /// Creates a launcher; nothing is opened until the first launch.
    public init() {}

    deinit {
        // The programs live on; whatever has ended by now is reaped, the rest by init once the app is gone.
        reapEnded()
        for child in children where child.pidFD >= 0 { close(child.pidFD) }
    }

    /// The programs started and not yet reaped (running, or ended and waiting for ``reapEnded()``).
    public var runningPIDs: [Int32] { children.map(\.pid) }

    /// The descriptor to poll for readability: ready when a launched program has ended. nil while
    /// none is running (or pidfds are not available).
    public var descriptor: Int32? {
        children.contains { $0.pidFD >= 0 } ? epoll?.descriptor : nil
    }

    /// A source for BadgeIO's `EventLoop` that reaps ended programs as they end; add it once.
    public func source(named name: String = "launched-programs") -> EventLoop.Source {
        EventLoop.Source(name: name, descriptor: { [weak self] in self?.descriptor },
                         interest: { .readable }, handle: { [weak self] _ in self?.reapEnded() })
    }

    /// Starts `arguments` (the first looked up on `PATH` when it has no "/"), with `environment`
    /// added to this process's environment, in `workingDirectory` (nil: the app's); returns its pid.
    /// Throws ``LaunchFailure`` naming the program when it cannot be started.
    @discardableResult
    public func launch(_ arguments: [String], environment: [String: String] = [:],
                       workingDirectory: String? = nil) throws(LaunchFailure) -> Int32 {
        reapEnded()
        let changes = environment.mapValues { Optional($0) }
        let pid: pid_t
        switch ProcessSpawn.start(arguments, environment: changes, grouping: .session, workingDirectory: workingDirectory) {
        case .success(let child): pid = child
        case .failure(let reason): throw LaunchFailure(reason.description)
        }
        launches += 1
        children.append((pid, watch(pid)))
        return pid
    }

    /// Starts the application of `entry` (``DesktopEntry/arguments()``, in its `Path` folder) with
    /// `DESKTOP_STARTUP_ID` set to `startupID` when given (see ``startupID(for:time:)``); returns
    /// its pid. Throws ``DesktopEntryError/cannotLaunch(path:reason:)`` when the entry cannot be
    /// started (not an application, no or a bad `Exec`, `Terminal=true`, the program missing).
    @discardableResult
    public func launch(_ entry: DesktopEntry, startupID: String?) throws(DesktopEntryError) -> Int32 {
        guard !entry.terminal else {
            throw .cannotLaunch(path: entry.path, reason: "it asks for a terminal (Terminal=true), which is not provided")
        }
        let arguments = try entry.arguments()
        do {
            return try launch(arguments, environment: startupID.map { ["DESKTOP_STARTUP_ID": $0] } ?? [:],
                              workingDirectory: entry.workingDirectory)
        } catch {
            throw .cannotLaunch(path: entry.path, reason: error.description)
        }
    }

    /// A startup-notification id for launching `program` after a user action at X time `time`
    /// (the event's timestamp; 0 when unknown), unique to this launch:
    /// `badgekit-PID-HOST-PROGRAM-N_TIMEtime`. The `_TIME` part lets the window manager's
    /// focus-stealing prevention give the new window the focus.
    public func startupID(for program: String, time: UInt32) -> String {
        var host = [CChar](repeating: 0, count: 256)
        let hostName = gethostname(&host, host.count - 1) == 0
            ? String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : "localhost"
        let safe = { (text: String) in String(text.map { $0.isLetter || $0.isNumber || $0 == "." ? $0 : "_" }) }
        let name = safe(FilePaths.split(program).name)
        return "badgekit-\(getpid())-\(safe(hostName))-\(name)-\(launches + 1)_TIME\(time)"
    }

    /// Reaps every launched program that has ended (`waitpid(WNOHANG)`, never blocking) and stops
    /// watching it.
    public func reapEnded() {
        // The set is level-triggered: it stops being readable once the ended programs' pidfds,
        // dropped below, are out of it. Nothing needs to be read from it.
        children.removeAll { child in
            var status: Int32 = 0
            var got: pid_t
            repeat { got = waitpid(child.pid, &status, WNOHANG) } while got < 0 && errno == EINTR
            // ECHILD: someone else reaped it (a caller's own waitpid(-1)); it is gone either way.
            guard got == child.pid || (got < 0 && errno == ECHILD) else { return false }
            if child.pidFD >= 0 {
                epoll?.remove(child.pidFD)
                close(child.pidFD)
            }
            return true
        }
    }

    /// A pidfd for `pid` in the epoll set, or -1 (then it is reaped at the next launch).
    private func watch(_ pid: pid_t) -> Int32 {
        if epoll == nil { epoll = try? EpollSet() }
        let pidFD = glibcextras_pidfd_open(pid)
        guard pidFD >= 0 else { return -1 }
        guard let epoll, epoll.add(pidFD) else {
            close(pidFD)
            return -1
        }
        return pidFD
    }
}
