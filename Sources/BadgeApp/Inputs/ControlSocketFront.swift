import BadgeControl
import BadgeIO

/// The control socket's side of the app, one owner for what the launch claimed: the profile this
/// instance runs and its lock (held for the app's life), the bound socket, why there is none, and
/// what `state` says of it. The lines it reads go to the app's one command executor.
/// Not Sendable: the loop's thread only.
final class ControlSocketFront {
    /// The profile this instance runs (``SingleInstance``).
    private(set) var profile = InstanceProfile.default
    /// The profile's lock, held for the app's life.
    private var lock: InstanceLock?
    /// The socket, bound at start and served from the first frame on; nil when there is none.
    private(set) var server: ControlSocketServer?
    /// Why there is no socket, said once the window is up.
    private var warning: String?
    /// Where the socket is, or why there is none (`state`'s `controlSocket`).
    private(set) var status: JSONValue = .object([("status", .string("starting"))])

    /// Takes what the launch claimed: the profile, its lock and the bound socket; or why there is
    /// no socket. Root is let in as `allowsRoot` says.
    func adopt(_ claim: SingleInstance.Claim, allowsRoot: Bool) {
        switch claim {
        case .primary(let profile, let lock, let server, let problem):
            self.profile = profile
            self.lock = lock
            self.server = server
            if let problem {
                warning = problem
                status = .object([("status", .string("off")), ("reason", .string(problem)), ("profile", .string(profile.name))])
            }
            server?.allowsRoot = allowsRoot
        case .alone(let reason):
            warning = reason
            status = .object([("status", .string("off")), ("reason", .string(reason ?? "offscreen"))])
        case .handOver, .refused:
            break
        }
    }

    /// Serves the socket on `loop` (from the first frame on: clients that came earlier wait in its
    /// backlog): each line to `onLine`, each log line to `onLog`; reading pauses while `paused`.
    func start(on loop: EventLoop, allowsRoot: Bool, paused: @escaping () -> Bool,
               onLine: @escaping (String, ControlSocketServer.ClientID, ControlSocketServer) -> Void,
               onLog: @escaping (String) -> Void) {
        // Said once the window is up: without a display, the display's error is the first line.
        if let warning {
            StandardError.write("badge-demo: \(warning)")
            self.warning = nil
        }
        guard let server, server.onLine == nil else { return }
        server.onLine = { [weak server] client, line in
            guard let server else { return }
            onLine(line, client, server)
        }
        server.onLog = onLog
        server.words = AppWords.words
        loop.add(server.source(paused: paused))
        loop.addDeadline(named: "control-socket") { [weak server] in server?.timeUntilDue }
        loop.addPreparation(named: "control-socket") { [weak server] in server?.expire() ?? false }
        updateStatus(allowsRoot: allowsRoot)
    }

    /// Root may use the socket, or not (a reload changed the config's `allowRoot`).
    func allowRoot(_ allowsRoot: Bool) {
        server?.allowsRoot = allowsRoot
        if server?.onLine != nil { updateStatus(allowsRoot: allowsRoot) }
    }

    /// Every subscriber gets `line`.
    func broadcast(_ line: String) { server?.broadcast(line) }

    /// Closes the socket (at exit).
    func shutdown() { server?.shutdown() }

    private func updateStatus(allowsRoot: Bool) {
        guard let server else { return }
        status = .object([("status", .string("listening")), ("path", .string(server.path)),
                          ("protocol", .int(ControlSocketServer.protocolVersion)), ("profile", .string(profile.name)),
                          ("allowsRoot", .bool(allowsRoot))])
    }
}
