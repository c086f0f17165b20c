import BadgeCore
import BadgeControl
import BadgeIO
import BadgeX11
import Glibc

/// One running instance per profile, as GApplication does: the first launch takes the profile's
/// ``InstanceLock`` and binds its control socket before it opens the window; a later launch finds
/// the lock held, hands its `--count` values to the running instance through the socket, asks it
/// to raise its window, and exits 0.
///
/// `--new-instance`, and `--control` (a parent wants a window of its own to drive), take the next
/// free slot of the profile instead (``InstanceProfile/slot(_:)``), with a state file of its own;
/// with an explicit `--state FILE` they must own that file's profile, so no file is ever written by
/// two instances. Without `XDG_RUNTIME_DIR` (or with an unsafe runtime folder) there is no socket
/// and no single-instance rule: the app says so and runs.
enum SingleInstance {
    /// What a launch does.
    enum Claim {
        /// Runs as the instance of `profile`, holding its lock, with the socket bound (nil when it
        /// could not be: `socketProblem` says why).
        case primary(profile: InstanceProfile, lock: InstanceLock, socket: ControlSocketServer?, socketProblem: String?)
        /// Runs with no socket and no lock (no usable runtime folder): why (nil: nothing to say, an
        /// offscreen render).
        case alone(reason: String?)
        /// Another process runs the profile: hand over through the socket at `path`.
        case handOver(profile: InstanceProfile, path: String, lockPath: String)
        /// Cannot run: the message (exit status 2).
        case refused(String)
    }

    /// The application's folder in `$XDG_RUNTIME_DIR`.
    static let app = "badge-demo"

    /// Claims the profile these options mean (see ``Claim``).
    static func claim(options: AppOptions, environment: (String) -> String?) -> Claim {
        let folder: String
        do {
            folder = try ControlSocketServer.folder(app: app)
            try ControlSocketServer.prepareFolder(folder)
        } catch {
            return .alone(reason: "\(error)")
        }
        let base = InstanceProfile.of(profile: options.profile, statePath: options.noState ? nil : options.statePath,
                                      stateFolder: SavedCounts.folder(environment: environment))
        do {
            if let lock = try InstanceLock.acquire(path: folder + "/" + base.lockName) {
                return primary(base, lock: lock, folder: folder)
            }
            guard options.newInstance || options.control else {
                return .handOver(profile: base, path: folder + "/" + base.socketName, lockPath: folder + "/" + base.lockName)
            }
            if let file = options.statePath, !options.noState {
                let owner = (try? ControlSocketClient(path: folder + "/" + base.socketName)).map { " (pid \($0.serverPID))" } ?? ""
                return .refused(Sentence("%1$s is in use by the running badge-demo%2$s; give this instance a state file of its own (--state) or none (--no-state)", .text(file), .text(owner)).localized)
            }
            for n in 2...InstanceProfile.maximumSlots {
                let slot = base.slot(n)
                if let lock = try InstanceLock.acquire(path: folder + "/" + slot.lockName) {
                    return primary(slot, lock: lock, folder: folder)
                }
            }
            let running = InstanceProfile.maximumSlots - 1
            return .refused(Sentence(one: "%s instance of this profile runs already", other: "%s instances of this profile run already",
                                     count: running, .number(running)).localized)
        } catch {
            return .alone(reason: "\(error)")
        }
    }

    private static func primary(_ profile: InstanceProfile, lock: InstanceLock, folder: String) -> Claim {
        do {
            let server = try ControlSocketServer(folder: folder, name: profile.socketName)
            return .primary(profile: profile, lock: lock, socket: server, socketProblem: nil)
        } catch {
            return .primary(profile: profile, lock: lock, socket: nil, socketProblem: "\(error)")
        }
    }

    /// How long a launch waits for a running instance that holds the lock but is not listening
    /// yet (it takes the lock a few milliseconds before it binds the socket), or that died and
    /// whose successor has not bound its socket yet, in seconds.
    static let handOverPatience = 5.0

    /// Hands `options`' counts to the instance at `path` and asks it to raise its window. Returns
    /// nil when the instance is gone (the caller claims the profile again: it runs the window and
    /// applies its counts itself), else the exit status.
    ///
    /// Each step has a deadline (``ControlSocketClient/connectTimeout`` to connect,
    /// ``ControlSocketClient/replyTimeout`` for each reply). An instance that dies during the
    /// hand-over (its connection lost, a reply that never comes while the lock is free) is not
    /// the end of the launch: the lock says whether anyone still holds the profile, and the
    /// launch either takes it over or hands its counts, all of them again (they are `set`s), to
    /// the instance that did. A stopped instance that holds the lock and answers nothing ends
    /// the launch with status 4 and a message, never a hang.
    static func handOver(options: AppOptions, path: String, lockPath: String, startupID: String?) -> ExitStatus? {
        let start = SystemTime.monotonic
        var lastProblem: String?
        while true {
            // The profile is free: the instance ended, before or during this hand-over.
            if let lock = try? InstanceLock.acquire(path: lockPath) {
                withExtendedLifetime(lock) {}
                if let lastProblem { StandardError.say(Sentence("the running instance went away (%s); taking the profile over", .text(lastProblem))) }
                return nil
            }
            guard SystemTime.monotonic - start < handOverPatience + ControlSocketClient.connectTimeout else {
                let why = lastProblem.map { " (\($0))" } ?? ""
                StandardError.say(Sentence("another badge-demo holds %1$s but does not answer on %2$s%3$s; it may be stopped: start this one with --new-instance, or end that one", .text(lockPath), .text(path), .text(why)))
                return .setupFailed
            }
            switch attempt(options: options, path: path, startupID: startupID) {
            case .done(let status):
                return status
            case .retry(let problem):
                lastProblem = problem
                var pause = timespec(tv_sec: 0, tv_nsec: 10_000_000)
                nanosleep(&pause, nil)
            case .stuck(let problem):
                // Connected, then no answer in time: the instance is stopped or swamped, unless
                // it died meanwhile (then the lock is free on the next round).
                if let lock = try? InstanceLock.acquire(path: lockPath) {
                    withExtendedLifetime(lock) {}
                    return nil
                }
                StandardError.say(Sentence("handing over to the running instance failed: %s; it may be stopped: start this one with --new-instance, or end that one", .text(problem)))
                return .setupFailed
            }
        }
    }

    private enum Attempt {
        case done(ExitStatus)
        case retry(String)
        case stuck(String)
    }

    /// One try at handing over: connect, the counts, then `activate`.
    private static func attempt(options: AppOptions, path: String, startupID: String?) -> Attempt {
        let client: ControlSocketClient
        do {
            client = try ControlSocketClient(path: path)
        } catch .noInstance {
            return .retry(Sentence("nothing listens on %s", .text(path)).localized)  // between taking the lock and listening, or gone
        } catch .timedOut(let path, let seconds) {
            return .stuck(Sentence("%1$s accepts no connection within %2$s s", .text(path), .text("\(Int(seconds))")).localized)
        } catch {
            return .done(fail(Sentence("cannot reach the running instance: %s", .text("\(error)")).localized))
        }
        do {
            for (id, count) in options.counts.sorted(by: { $0.key < $1.key }) {
                if let reason = errorReason(try client.request("set \(id) \(count)")) {
                    return .done(fail(Sentence("the running instance (pid %1$s) refused --count %2$s=%3$s: %4$s", .text("\(client.serverPID)"), .text(InputEcho.escaped(id, quote: true)), .number(count), .text(reason)).localized, .badArguments))
                }
            }
            let token = startupID.map { " " + $0 } ?? ""
            if let reason = errorReason(try client.request("activate" + token)) {
                StandardError.say(Sentence("the running instance (pid %1$s) could not raise its window: %2$s", .text("\(client.serverPID)"), .text(reason)))
            }
        } catch .timedOut {
            return .stuck(Sentence("the instance (pid %1$s) did not answer within %2$s s", .text("\(client.serverPID)"), .text("\(Int(ControlSocketClient.replyTimeout))")).localized)
        } catch {
            return .retry("\(error)")  // it died mid-way: its successor, or this launch, takes the counts
        }
        let ignored = ignoredOptions(options)
        if !ignored.isEmpty {
            StandardError.say(Sentence("badge-demo runs already (pid %1$s): passed on the counts and raised its window; %2$s apply only to a new window (--new-instance)", .text("\(client.serverPID)"), .text("\(ignored.joined(separator: ", "))")))
        }
        return .done(.closed)
    }

    private static func fail(_ message: String, _ status: ExitStatus = .setupFailed) -> ExitStatus {
        StandardError.write("badge-demo: \(message)")
        return status
    }


    /// The reason of an error reply, or nil for `{"reply":"ok"...}`.
    static func errorReason(_ reply: String) -> String? {
        guard let value = try? JSONValue.parse(Array(reply.utf8)) else { return "unexpected reply \(InputEcho.quoted(reply, limit: 80))" }
        if value["reply"]?.string == "ok" { return nil }
        return value["reason"]?.string ?? "unexpected reply \(InputEcho.quoted(reply, limit: 80))"
    }

    /// The options a running instance does not take over, by flag.
    static func ignoredOptions(_ options: AppOptions) -> [String] {
        var flags: [String] = []
        if options.configPath != nil { flags.append("--config") }
        if !options.icons.isEmpty { flags.append("--icon") }
        if options.themeFromFlag { flags.append("--theme") }
        if options.scale != nil { flags.append("--scale") }
        if options.rightToLeft != nil { flags.append("--rtl/--ltr") }
        return flags
    }
}
