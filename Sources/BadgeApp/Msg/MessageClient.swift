import BadgeCore
import BadgeControl
import BadgeX11
import Glibc

/// `badge-demo msg`: sends control commands to the running instance through its socket and prints
/// the answers, as `i3-msg`, `polybar-msg` and `dunstctl` do. It needs no display (cron jobs and
/// mail hooks have none), nor `XDG_RUNTIME_DIR` (it falls back to `/run/user/UID`).
enum MessageClient {
    /// The exit statuses (the man page's table).
    enum Status: Int32 {
        /// Every command was answered "ok".
        case ok = 0
        /// No instance runs (nothing listens on the socket; a stale socket counts as none).
        case noInstance = 1
        /// A bad command or option, or the instance refused (an error reply, another user's socket).
        case refused = 2
        /// The connection was lost (or the instance stopped answering) before every answer came.
        case connectionLost = 3
    }

    /// What `msg` was asked.
    struct Options: Equatable {
        var profile: String?
        var statePath: String?
        var socketPath: String?
        var user: String?
        var watch = false
        var format = BarFormat.json
        /// `--button ID`: the bar formats show this button alone.
        var button: String?
        /// `--no-separator`: i3bar's blocks without separator lines.
        var separator = true
        /// `--start`: start the default instance through D-Bus activation when none runs.
        var start = false
        var help = false
        var command: [String] = []
    }

    static let usage = """
        usage: badge-demo msg [--start | --profile NAME | --state FILE | --socket PATH] [--user NAME]
                              [--watch [--format F] [--button ID] [--no-separator]] [COMMAND...]
          COMMAND: \(commandList(indent: 11)),
                   hello (the protocol version and the instance's pid); N is 0 or more;
                   without COMMAND, each line of standard input is sent
          --profile NAME   the instance started with --profile NAME (default: the default profile)
          --state FILE     the instance started with --state FILE
          --socket PATH    the socket at PATH
          --start          when no instance runs, have the session bus start one (D-Bus
                           activation of io.github.badgekit.BadgeDemo), then send COMMAND
          --user NAME      NAME's instance, through /run/user/UID (for root; NAME must allow root)
          --watch          print the instance's events as JSON lines until interrupted
          --format F       with --watch: json (default), or a bar's own protocol: i3bar (i3bar's
                           and swaybar's status_command, with clicks read from standard input),
                           i3blocks (persistent JSON blocks), polybar and lemonbar (text with
                           click tags), waybar (return-type json); a bar format waits for the
                           instance, follows it across restarts, and shows nothing while none
                           runs (waybar: class "offline")
          --button ID      with a bar format: only button ID (a waybar module per button)
          --no-separator   with --format i3bar: no separator line after each block
        exit status: 0 ok, 1 no running instance, 2 bad command or refused, 3 connection lost or no
                     answer in time (5 s to connect, 10 s for each reply)
        """

    /// The control commands and `hello`, wrapped to fit 100 columns after `indent` spaces.
    static func commandList(indent: Int) -> String {
        var lines: [String] = []
        var line = ""
        for form in ControlCommand.forms {
            let piece = line.isEmpty ? form : line + ", " + form
            if piece.count + indent > 98, !line.isEmpty {
                lines.append(line + ",")
                line = form
            } else {
                line = piece
            }
        }
        lines.append(line)
        return lines.joined(separator: "\n" + String(repeating: " ", count: indent))
    }

    /// The control line for a command given as arguments: its words joined by spaces, except
    /// `add ID KEY TITLE [DETAIL]`, whose title and detail are each one argument (spaces kept)
    /// and are joined by the tab the protocol separates them with.
    static func line(for words: [String]) -> String {
        guard words.first == "add", words.count == 4 || words.count == 5, !words[2].hasPrefix("{") else {
            return words.joined(separator: " ")
        }
        let oneLine = { (text: String) in String(text.map { $0 == "\t" || $0.isNewline ? " " : $0 }) }
        let head = words[0...2].joined(separator: " ")
        return head + " " + oneLine(words[3]) + (words.count == 5 ? "\t" + oneLine(words[4]) : "")
    }

    /// Parses `msg`'s arguments (after "msg").
    static func parse(_ arguments: [String]) -> Result<Options, AppOptions.Error> {
        var options = Options()
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            guard options.command.isEmpty, argument.hasPrefix("-") else {
                options.command.append(argument)
                index += 1
                continue
            }
            func value() -> String? {
                index += 1
                return index < arguments.count ? arguments[index] : nil
            }
            switch argument {
            case "--watch": options.watch = true
            case "--format":
                guard let text = value(), let format = BarFormat(rawValue: text) else {
                    return .failure(.init(Sentence("--format must be one of %s", .text(BarFormat.allCases.map(\.rawValue).joined(separator: ", ")))))
                }
                options.format = format
            case "--no-separator": options.separator = false
            case "--start": options.start = true
            case "--button":
                guard let text = value(), !text.isEmpty else { return .failure(.init(Sentence("--button needs a button's id"))) }
                options.button = text
            case "--help", "-h": options.help = true
            case "--": options.command = Array(arguments[(index + 1)...]); index = arguments.count; continue
            case "--profile", "--state", "--socket", "--user":
                guard let text = value(), !text.isEmpty else { return .failure(.init(Sentence("%s needs a value", .text(argument)))) }
                switch argument {
                case "--profile":
                    if let problem = InstanceProfile.problem(with: text) { return .failure(.init(problem)) }
                    options.profile = text == "default" ? nil : text
                case "--state": options.statePath = text
                case "--socket": options.socketPath = text
                default: options.user = text
                }
            default:
                return .failure(.init(Sentence("unknown option \"%s\"", .text(InputEcho.escaped(argument, quote: true)))))
            }
            index += 1
        }
        if [options.profile, options.statePath, options.socketPath].compactMap({ $0 }).count > 1 {
            return .failure(.init(Sentence("give one of --profile, --state and --socket")))
        }
        if options.start, options.profile != nil || options.statePath != nil || options.socketPath != nil || options.user != nil {
            return .failure(.init(Sentence("--start starts the default instance (the bus name %s): it cannot be combined with --profile, --state, --socket or --user", .text("io.github.badgekit.BadgeDemo"))))
        }
        return .success(options)
    }

    /// Runs `msg` and returns its exit status.
    static func run(arguments: [String]) -> Status {
        restoreSignals()
        let options: Options
        switch parse(arguments) {
        case .failure(let error):
            StandardError.write("badge-demo msg: \(error.message)")
            StandardError.write(usage, to: 2)
            return .refused
        case .success(let parsed):
            options = parsed
        }
        if options.help {
            print(usage)
            return .ok
        }
        // A command given on the command line is checked here first, so a typo or a negative
        // number is exit 2 with its reason even when no instance runs.
        if !options.command.isEmpty, let reason = problem(with: line(for: options.command)) {
            StandardError.say(reason, program: "badge-demo msg")
            return .refused
        }
        let owner: uid_t
        let path: String
        switch socketPath(options) {
        case .failure(let error):
            StandardError.write("badge-demo msg: \(error.message)")
            return .refused
        case .success(let found):
            (path, owner) = found
        }
        // A bar module outlives the instance: it waits for one and follows it across restarts.
        if options.watch, options.command.isEmpty, options.format != .json {
            let actions = BarActions(program: ownPath, socket: path)
            return followInstance(path: path, owner: owner, format: options.format,
                                  settings: BarFormat.Settings(actions: actions, separator: options.separator), only: options.button)
        }
        if options.start, let (status, message) = startIfNeeded(socket: path) {
            StandardError.say(message, program: "badge-demo msg")
            return status
        }
        let client: ControlSocketClient
        do {
            client = try ControlSocketClient(path: path, owner: owner)
        } catch {
            var said = error.sentence
            if case .noInstance = error { said = startHint(said, options) }
            StandardError.say(said, program: "badge-demo msg")
            switch error {
            case .noInstance: return .noInstance
            case .timedOut: return .connectionLost
            default: return .refused
            }
        }
        var worst = Status.ok
        var lines: [String] = []
        if !options.command.isEmpty {
            lines = [line(for: options.command)]
        } else if !options.watch {
            while let line = Swift.readLine(strippingNewline: true) { lines.append(line) }
        }
        for line in lines where !line.allSatisfy({ $0 == " " || $0 == "\t" }) {
            let status = exchange(line, with: client)
            if status == .connectionLost { return status }
            if status != .ok { worst = status }
        }
        if options.watch, options.format != .json {
            // The commands are sent; the bar stream follows the instance from here.
            client.close()
            let actions = BarActions(program: ownPath, socket: path)
            return followInstance(path: path, owner: owner, format: options.format,
                                  settings: BarFormat.Settings(actions: actions, separator: options.separator), only: options.button)
        }
        if options.watch {
            let status = exchange("subscribe", with: client)
            guard status == .ok else { return status }
            // The instance's last line to a subscriber it drops says why (read too slowly).
            var dropped: String?
            while true {
                do {
                    guard let event = try client.readLine(timeout: nil) else {
                        StandardError.write("badge-demo msg: " + (dropped ?? Sentence("the instance closed the connection").localized))
                        return .connectionLost
                    }
                    if let reason = droppedReason(event) { dropped = reason }
                    StandardError.write(event, to: 1)
                } catch {
                    StandardError.say(error.sentence, program: "badge-demo msg")
                    return .connectionLost
                }
            }
        }
        return worst
    }

    /// What to do when no instance runs: how to start one (`--start` only reaches the default
    /// profile, the one the bus name belongs to).
    static func startHint(_ said: Sentence, _ options: Options) -> Sentence {
        let own = [options.profile.map { "--profile " + $0 }, options.statePath.map { "--state " + $0 }]
            .compactMap { $0 }.first
        if let own { return Sentence("%1$s; start it with \"badge-demo %2$s\"", .sentence(said), .text(own)) }
        if options.socketPath != nil || options.user != nil { return said }
        return Sentence("%s; start it with \"badge-demo\", or add --start to have the session bus start it (docs/session.md)", .sentence(said))
    }

    /// This program's absolute path (for the commands a bar runs on a click: the bar's PATH may
    /// not hold it), or the name it was started by when the kernel does not say.
    static var ownPath: String {
        var buffer = [CChar](repeating: 0, count: 4097)
        let count = buffer.withUnsafeMutableBufferPointer { pointer in
            pointer.baseAddress.map { readlink("/proc/self/exe", $0, 4096) } ?? -1
        }
        guard count > 0 else { return CommandLine.arguments.first ?? "badge-demo" }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The reason in the last line the instance sends a subscriber it drops (an error event from
    /// the socket with cause "dropped"), or nil for any other line.
    static func droppedReason(_ event: String) -> String? {
        guard let parsed = try? JSONValue.parse(Array(event.utf8)), parsed["event"]?.string == "error",
              parsed["source"]?.string == "socket", parsed["cause"]?.string == "dropped" else { return nil }
        return parsed["reason"]?.string
    }

    /// Why the instance would refuse `line`, or nil when it is a command it takes (the socket's
    /// own `hello` and `subscribe` included).
    static func problem(with line: String) -> Sentence? {
        let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
        if words == ["hello"] || words == ["subscribe"] { return nil }
        guard case .failure(let error) = ControlCommand.parse(line) else { return nil }
        return error.sentence
    }

    /// Sends one line and prints its answer: nothing for a plain "ok", the JSON for an answer with
    /// content (`state`), the reason on standard error for an error.
    static func exchange(_ line: String, with client: ControlSocketClient) -> Status {
        let reply: String
        do {
            reply = try client.request(line)
        } catch {
            StandardError.say(error.sentence, program: "badge-demo msg")
            return .connectionLost
        }
        if let reason = SingleInstance.errorReason(reply) {
            StandardError.write("badge-demo msg: \(reason)")
            return .refused
        }
        if reply != #"{"reply":"ok"}"# {
            StandardError.write(reply, to: 1)
        }
        return .ok
    }

    /// The socket to talk to, and the uid that must serve it.
    static func socketPath(_ options: Options) -> Result<(String, uid_t), AppOptions.Error> {
        var owner = getuid()
        var runtime = Environment.value("XDG_RUNTIME_DIR").flatMap { $0.hasPrefix("/") ? $0 : nil }
        if let user = options.user {
            guard let entry = getpwnam(user) else { return .failure(.init(Sentence("no user named \"%s\"", .text(InputEcho.escaped(user, quote: true))))) }
            owner = entry.pointee.pw_uid
            runtime = "/run/user/\(owner)"
        }
        if let path = options.socketPath { return .success((path, owner)) }
        // Cron jobs and hooks often have no XDG_RUNTIME_DIR: the place systemd-logind makes it.
        let folder = (runtime ?? "/run/user/\(owner)") + "/" + SingleInstance.app
        let stateFolder = options.user == nil ? SavedCounts.folder(environment: Environment.value) : nil
        let profile = InstanceProfile.of(profile: options.profile, statePath: options.statePath, stateFolder: stateFolder)
        return .success((folder + "/" + profile.socketName, owner))
    }

    /// TERM, INT and HUP were blocked before main (for the window's clean exit); the client ends
    /// on them at once, as any command-line tool does.
    static func restoreSignals() {
        var set = sigset_t()
        sigemptyset(&set)
        for signal in [SIGTERM, SIGINT, SIGHUP] { sigaddset(&set, signal) }
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }
}
