import CGlibcExtras
import Glibc

/// posix_spawn as every child of BadgeSources is started: an empty signal mask and default
/// dispositions (an app that ignores SIGPIPE or blocks SIGTERM does not pass that on), standard
/// input from /dev/null, standard output and error as given (or this process's), and every other
/// descriptor closed in the child, so nothing the app holds open (the X connection, sockets,
/// pipes) leaks into it. The child gets a process group of its own (``Grouping/processGroup``, so
/// it can be stopped with everything it started) or a session of its own (``Grouping/session``,
/// for a program launched to outlive the app).
package enum ProcessSpawn {
    /// How the child is set apart from this process.
    package enum Grouping: Sendable {
        /// Its own process group (POSIX_SPAWN_SETPGROUP), in this process's session.
        case processGroup
        /// Its own session (POSIX_SPAWN_SETSID): no controlling terminal, not in this process's group.
        case session
    }

    /// Starts `arguments` (argv[0] looked up on `PATH` when it has no "/") with this process's
    /// environment changed by `environment` (nil values remove a variable), in `workingDirectory`
    /// when given. Returns the pid, or a one-line reason.
    package static func start(_ arguments: [String], environment: [String: String?], grouping: Grouping,
                              stdout: Int32? = nil, stderr: Int32? = nil, workingDirectory: String? = nil) -> Result<pid_t, ReasonError> {
        guard let program = arguments.first, !program.isEmpty else { return .failure(ReasonError("no program given")) }
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        guard posix_spawn_file_actions_init(&actions) == 0 else { return .failure(ReasonError("posix_spawn_file_actions_init failed")) }
        defer { posix_spawn_file_actions_destroy(&actions) }
        guard posix_spawnattr_init(&attributes) == 0 else { return .failure(ReasonError("posix_spawnattr_init failed")) }
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t(), defaults = sigset_t()
        sigemptyset(&empty)
        sigemptyset(&defaults)
        for signal in [SIGPIPE, SIGTERM, SIGINT, SIGHUP, SIGCHLD, SIGQUIT, SIGUSR1, SIGUSR2] { sigaddset(&defaults, signal) }
        let separation = grouping == .session ? Int32(glibcextras_spawn_setsid) : POSIX_SPAWN_SETPGROUP
        let flags = Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | separation)
        var setup: [Int32] = [posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)]
        if let stdout { setup.append(posix_spawn_file_actions_adddup2(&actions, stdout, 1)) }
        if let stderr { setup.append(posix_spawn_file_actions_adddup2(&actions, stderr, 2)) }
        if let workingDirectory { setup.append(glibcextras_spawn_addchdir(&actions, workingDirectory)) }
        setup += [
            glibcextras_spawn_addclosefrom(&actions, 3),
            posix_spawnattr_setsigmask(&attributes, &empty),
            posix_spawnattr_setsigdefault(&attributes, &defaults),
            grouping == .processGroup ? posix_spawnattr_setpgroup(&attributes, 0) : 0,
            posix_spawnattr_setflags(&attributes, flags),
        ]
        if let failed = setup.first(where: { $0 != 0 }) {
            return .failure(ReasonError("cannot prepare to start \(program): \(errorText(failed))"))
        }
        let argv = arguments.map { strdup($0) }
        let envp = Self.environment(adding: environment).map { strdup($0) }
        defer { for pointer in argv + envp { free(pointer) } }
        var child: pid_t = 0
        let code = (argv + [nil]).withUnsafeBufferPointer { argvBuffer in
            (envp + [nil]).withUnsafeBufferPointer { envBuffer -> Int32 in
                guard let argvBase = argvBuffer.baseAddress, let envBase = envBuffer.baseAddress else { return EINVAL }
                return posix_spawnp(&child, program, &actions, &attributes, argvBase, envBase)
            }
        }
        guard code == 0 else { return .failure(ReasonError("cannot run \(program): \(errorText(code))")) }
        return .success(child)
    }

    /// This process's environment with `changes` applied ("NAME=value" entries).
    package static func environment(adding changes: [String: String?]) -> [String] {
        var entries: [String] = []
        var index = 0
        while let entry = environ[index] {
            let text = String(cString: entry)
            let name = text.split(separator: "=", maxSplits: 1).first.map(String.init) ?? text
            if changes[name] == nil { entries.append(text) }
            index += 1
        }
        for (name, value) in changes.sorted(by: { $0.key < $1.key }) {
            if let value { entries.append(name + "=" + value) }
        }
        return entries
    }
}
