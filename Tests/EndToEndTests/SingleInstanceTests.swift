import BadgeCore
import BadgeControl
import Glibc
import Testing
import XvfbHarness

/// One running instance per profile, and `badge-demo msg` (issue 20, parts 2 and 4): launches
/// without `--control`, as a user or a launcher starts the app, observed through `msg` and the screen.
@Suite("E2E: single instance and badge-demo msg", .endToEnd(minutes: 3))
struct SingleInstanceTests {
    /// A private runtime and state folder shared by the launches of one test, and an X server.
    final class Desktop {
        let server: XvfbServer
        let x: XTestClient
        let base: String
        /// The runtime folder, short wherever the checkout is (socket paths must fit in 107 bytes).
        let runtime: String
        var state: String { base + "/state" }
        private var apps: [ChildProcess] = []

        init(_ name: String) throws {
            server = try XvfbServer.start(width: 640, height: 480)
            x = try XTestClient(display: server.display)
            base = try Artifacts.path(for: "instance-\(name)-\(getpid())")
            runtime = try shortTemporaryFolder("bk-instance")
            removeTree(base)
            for folder in [base, state, base + "/config"] { #expect(mkdir(folder, 0o700) == 0, "mkdir \(folder)") }
        }

        deinit {
            for app in apps {
                app.kill(SIGKILL)
                app.waitForExit(timeout: 5)
            }
            removeTree(base)
            removeTree(runtime)
        }

        var environment: [String: String] {
            ["DISPLAY": server.display, "XDG_RUNTIME_DIR": runtime, "XDG_STATE_HOME": state, "XDG_CONFIG_HOME": base + "/config",
             "BADGE_REDUCE_MOTION": "1"]
        }

        /// Starts badge-demo with `arguments` (no `--control`), as a launcher does.
        func launch(_ arguments: [String] = [], adding: [String: String] = [:]) throws -> ChildProcess {
            let app = try ChildProcess(executable: BuiltProducts.executable(named: "badge-demo"), arguments: arguments,
                                       environment: .inherited(adding: environment.merging(adding) { $1 }))
            apps.append(app)
            return app
        }

        /// Runs `badge-demo msg ARGUMENTS` with no DISPLAY: its output lines and exit status.
        func msg(_ arguments: [String], environment extra: [String: String] = [:], input: String? = nil,
                 prefix: [String] = []) throws -> (lines: [String], status: ProcessTermination?, stderr: String) {
            var variables = environment.merging(extra) { $1 }
            variables["DISPLAY"] = nil
            let executable = try BuiltProducts.executable(named: "badge-demo")
            let client = try ChildProcess(executable: prefix.first ?? executable,
                                          arguments: Array(prefix.dropFirst()) + (prefix.isEmpty ? [] : [executable]) + ["msg"] + arguments,
                                          environment: .inherited(adding: variables, removing: ["DISPLAY"]))
            if let input { try client.writeLine(input) }
            client.closeStdin()
            var lines: [String] = []
            while let line = try client.readLine(timeout: 30) { lines.append(line) }
            return (lines, client.waitForExit(timeout: 10), client.stderrText)
        }

        /// `msg state`, parsed; nil while no instance answers.
        func state(_ arguments: [String] = []) throws -> JSONValue? {
            let answer = try msg(arguments + ["state"])
            guard answer.status == .exited(0), let line = answer.lines.first else { return nil }
            return try JSONValue(parsing: line)
        }

        /// Waits until an instance answers `state` (the window is up), at most `timeout` seconds.
        func waitForInstance(_ arguments: [String] = [], timeout: Double = 15) throws -> JSONValue {
            let deadline = Deadline(seconds: timeout)
            while !deadline.hasPassed {
                if let state = try state(arguments) { return state }
                try x.sync()
            }
            throw HarnessError("no instance answered within \(timeout) s")
        }

        /// The windows of class BadgeDemo that are mapped.
        func visibleWindows() throws -> [String] {
            try runClient("xdotool", ["search", "--onlyvisible", "--class", "BadgeDemo"], display: server.display)
                .split(separator: "\n").map(String.init)
        }
    }

    static func count(_ state: JSONValue?, _ id: String) -> Int? {
        state?["buttons"]?.array?.first { $0["id"]?.string == id }?["content"]?["count"]?.int
    }

    @Test("msg: set, inc, state and errors with their exit statuses, no DISPLAY needed; 1 with no instance")
    func messages() throws {
        let d = try Desktop("msg")
        let none = try d.msg(["set", "mail", "3"])
        #expect(none.status == .exited(1) && none.stderr.contains("no instance is running"), "\(none)")
        let app = try d.launch(["--no-state"])
        let first = try d.waitForInstance()
        #expect(first["controlSocket"]?["profile"]?.string == "default")
        #expect(try d.msg(["set", "mail", "3"]).status == .exited(0))
        let inc = try d.msg(["inc", "mail"])
        #expect(inc.status == .exited(0) && inc.lines.isEmpty, "\(inc)")
        #expect(Self.count(try d.state(), "mail") == 4)
        let bad = try d.msg(["set", "nosuch", "1"])
        #expect(bad.status == .exited(2) && bad.stderr.contains("unknown button \"nosuch\""), "\(bad)")
        let junk = try d.msg(["frobnicate"])
        #expect(junk.status == .exited(2) && junk.stderr.contains("unknown command"), "\(junk)")
        // Input echoed in an error is escaped: one line on stderr, whatever it held (issue 38).
        let forged = try d.msg(["inc\nmail"])
        #expect(forged.status == .exited(2) && forged.stderr.contains(#"unknown command "inc\nmail""#), "\(forged)")
        #expect(forged.stderr.split(separator: "\n").count == 1, "\(forged.stderr.debugDescription)")
        // A negative number is refused as D-Bus refuses it, and changes nothing (it used to add 3).
        let negative = try d.msg(["dec", "mail", "-3"])
        #expect(negative.status == .exited(2) && negative.stderr.contains("dec: the step must be 0 or more, not -3"), "\(negative)")
        let below = try d.msg([], input: "set mail -1\n")
        #expect(below.status == .exited(2) && below.stderr.contains("set: the count must be 0 or more"), "\(below)")
        #expect(Self.count(try d.state(), "mail") == 4)
        let option = try d.msg(["--bogus", "state"])
        #expect(option.status == .exited(2) && option.stderr.contains("unknown option"), "\(option)")
        // Lines on standard input: each answered; the worst status wins.
        let batch = try d.msg([], input: "inc bell 5\nset chat 2\nset nosuch 1\nstate")
        #expect(batch.status == .exited(2) && batch.lines.count == 1, "\(batch)")
        #expect(Self.count(try JSONValue(parsing: batch.lines.first ?? "{}"), "chat") == 2)
        // Cron has no XDG_RUNTIME_DIR: msg looks in /run/user/UID, where nothing runs here.
        let cron = try d.msg(["state"], environment: ["XDG_RUNTIME_DIR": ""])
        #expect(cron.status == .exited(1) && cron.stderr.contains("/run/user/\(getuid())/badge-demo/control.sock"), "\(cron)")
        // The pixels follow a msg like a click: the mail badge's text changes.
        let window = try #require(UInt32(try d.visibleWindows().first ?? ""))
        let before = try d.x.capture(window: window)
        #expect(try d.msg(["set", "mail", "88"]).status == .exited(0))
        #expect(try d.msg(["sync", "drawn"]).status == .exited(0))
        #expect(try d.x.capture(window: window) != before, "the window shows the new count")
        // quit through msg: the app exits 0, and msg again finds nobody (the socket file is gone).
        #expect(try d.msg(["quit"]).status == .exited(0))
        #expect(app.waitForExit(timeout: 10) == .exited(0), "\(app.stderrText)")
        #expect(access(d.runtime + "/badge-demo/control.sock", F_OK) != 0)
        #expect(try d.msg(["state"]).status == .exited(1))
    }

    @Test("msg --watch prints the state, then change events until the instance goes (status 3)")
    func watch() throws {
        let d = try Desktop("watch")
        let app = try d.launch(["--no-state"])
        _ = try d.waitForInstance()
        var variables = d.environment
        variables["DISPLAY"] = nil
        let watcher = try ChildProcess(executable: BuiltProducts.executable(named: "badge-demo"), arguments: ["msg", "--watch"],
                                       environment: .inherited(adding: variables, removing: ["DISPLAY"]))
        // The stream starts with the state as it is (a bar shows the counts at once)…
        let first = try JSONValue(parsing: try #require(try watcher.readLine(timeout: 10)))
        #expect(first["event"]?.string == "state" && first["buttons"]?.array?.count == 4, "\(first)")
        // …then every change.
        var seen: JSONValue?
        for attempt in 0..<50 where seen == nil {
            #expect(try d.msg(["set", "bell", "\(100 + attempt)"]).status == .exited(0))
            // Urgency events come too (a count rose while the window was unfocused): the changes are what is looked for.
            while let line = (try? watcher.readLine(timeout: 0.2)) ?? nil {
                let event = try JSONValue(parsing: line)
                if event["event"]?.string == "change" { seen = event; break }
            }
        }
        let event = try #require(seen, "no event from msg --watch; stderr: \(watcher.stderrText)")
        #expect(event["event"]?.string == "change" && event["id"]?.string == "bell" && event["cause"]?.string == "control", "\(event)")
        app.kill(SIGKILL)
        #expect(app.waitForExit(timeout: 10) == .signaled(SIGKILL))
        while try watcher.readLine(timeout: 10) != nil {}
        #expect(watcher.waitForExit(timeout: 10) == .exited(3), "\(watcher.stderrText)")
    }

    @Test("A second launch hands over its --count, raises nothing new and exits 0; --new-instance opens a second window with its own state file")
    func secondLaunch() throws {
        let d = try Desktop("second")
        let first = try d.launch(["--count", "bell=1"])
        let state = try d.waitForInstance()
        #expect(state["controlSocket"]?["status"]?.string == "listening")
        let pid = first.pid
        let second = try d.launch(["--count", "mail=42", "--count", "bell=7"])
        #expect(second.waitForExit(timeout: 10) == .exited(0), "\(second.stderrText)")
        #expect(second.stderrText.isEmpty, "\(second.stderrText)")
        let after = try d.state()
        #expect(Self.count(after, "mail") == 42 && Self.count(after, "bell") == 7, "\(after.map { "\($0)" } ?? "nil")")
        #expect(try d.visibleWindows().count == 1)
        // A --count the running instance has no button for is refused: status 2, naming it; and the
        // options only a new window could take are named as ignored.
        let config = d.base + "/extra.json"
        let file = fopen(config, "w")
        fputs(#"{"buttons": [{"id": "extra"}]}"#, file)
        fclose(file)
        let bad = try d.launch(["--config", config, "--count", "extra=1"])
        #expect(bad.waitForExit(timeout: 10) == .exited(2))
        #expect(bad.stderrText.contains("refused --count extra=1: unknown button \"extra\""), "\(bad.stderrText)")
        let themed = try d.launch(["--theme", "dark"])
        #expect(themed.waitForExit(timeout: 10) == .exited(0))
        #expect(themed.stderrText.contains("--theme apply only to a new window (--new-instance)"), "\(themed.stderrText)")
        // --new-instance: a window of its own, as slot 2, with state-2.json.
        let other = try d.launch(["--new-instance", "--count", "chat=5"])
        let slot = try d.waitForInstance(["--profile", "2"])
        #expect(slot["controlSocket"]?["profile"]?.string == "2")
        let main = try d.state()
        #expect(Self.count(slot, "chat") == 5 && Self.count(main, "chat") != 5)
        #expect(try d.visibleWindows().count == 2)
        // Its own state file; an explicit --state of the running instance is refused.
        let clash = try d.launch(["--new-instance", "--state", d.state + "/badge-demo/state.json"])
        #expect(clash.waitForExit(timeout: 10) == .exited(2))
        #expect(clash.stderrText.contains("is in use by the running badge-demo (pid \(pid))"), "\(clash.stderrText)")
        #expect(try d.msg(["quit"]).status == .exited(0) && (try d.msg(["--profile", "2", "quit"])).status == .exited(0))
        #expect(first.waitForExit(timeout: 10) == .exited(0) && other.waitForExit(timeout: 10) == .exited(0))
        let mainFile = try String(decoding: readProcFile(d.state + "/badge-demo/state.json"), as: UTF8.self)
        let ownFile = try String(decoding: readProcFile(d.state + "/badge-demo/state-2.json"), as: UTF8.self)
        #expect(mainFile.contains("\"mail\"") && mainFile.contains("42"), "\(mainFile)")
        #expect(ownFile.contains("\"chat\"") && ownFile.contains("5") && !ownFile.contains("42"), "\(ownFile)")
    }

    @Test("Two launches in the same instant end with one window and both counts")
    func simultaneousLaunches() throws {
        let d = try Desktop("race")
        for round in 0..<3 {
            let a = try d.launch(["--no-state", "--count", "bell=\(round + 1)"])
            let b = try d.launch(["--no-state", "--count", "mail=\(round + 50)"])
            _ = try d.waitForInstance()
            // One of them hands over and exits 0; the other is the instance.
            let deadline = Deadline(seconds: 10)
            var ended: [ProcessTermination?] = [nil, nil]
            while !deadline.hasPassed && ended.allSatisfy({ $0 == nil }) {
                ended = [a.waitForExit(timeout: 0.05), b.waitForExit(timeout: 0.05)]
            }
            #expect(ended.compactMap { $0 } == [.exited(0)], "round \(round): \(ended); \(a.stderrText) \(b.stderrText)")
            #expect(try d.visibleWindows().count == 1, "round \(round)")
            let state = try d.state()
            #expect(Self.count(state, "bell") == round + 1 && Self.count(state, "mail") == round + 50, "round \(round)")
            #expect(try d.msg(["quit"]).status == .exited(0))
            for app in [a, b] { #expect(app.waitForExit(timeout: 10) == .exited(0)) }
        }
    }

    @Test("kill -9 leaves a stale socket; the next launch takes it over instead of handing its counts to the dead")
    func staleSocketTakeover() throws {
        let d = try Desktop("stale")
        let first = try d.launch(["--no-state"])
        _ = try d.waitForInstance()
        first.kill(SIGKILL)
        #expect(first.waitForExit(timeout: 10) == .signaled(SIGKILL))
        var info = stat()
        #expect(lstat(d.runtime + "/badge-demo/control.sock", &info) == 0, "the dead instance's socket is still there")
        #expect(try d.msg(["state"]).status == .exited(1), "a stale socket counts as no instance")
        let next = try d.launch(["--no-state", "--count", "mail=9"])
        let state = try d.waitForInstance()
        #expect(Self.count(state, "mail") == 9)
        #expect(next.waitForExit(timeout: 0) == nil, "the new launch is the instance")
        let hello = try d.msg(["hello"])
        #expect(hello.lines.first?.contains("\"pid\":\(next.pid)") == true, "\(hello)")
    }

    @Test("Under openbox, a second launch brings the first window to the front (_NET_ACTIVE_WINDOW)",
          .enabled(if: findOnPath("openbox") != nil, "openbox is not installed"))
    func activation() throws {
        let d = try Desktop("activate")
        let wm = try WindowManager("openbox", display: d.server.display, x: d.x)
        defer { wm.kill() }
        _ = try d.launch(["--no-state"])
        _ = try d.waitForInstance()
        let window = try #require(UInt32(try d.visibleWindows().first ?? ""))
        // Another managed window (a second instance) takes the focus.
        // nil while xdotool finds no _NET_ACTIVE_WINDOW yet (openbox slow under load): waited on.
        func active() throws -> UInt32? {
            guard let text = try? runClient("xdotool", ["getactivewindow"], display: d.server.display) else { return nil }
            return UInt32(text.split(separator: "\n").first.map(String.init) ?? "")
        }
        _ = try d.launch(["--no-state", "--new-instance"])
        _ = try d.waitForInstance(["--profile", "2"])
        let deadline = Deadline(seconds: 10)
        while try active() == window || active() == nil, !deadline.hasPassed { try d.x.sync() }
        #expect(try active().map { $0 != window } == true, "the new window has the focus")
        let second = try d.launch(["--count", "bell=3"], adding: ["DESKTOP_STARTUP_ID": "test-launch_TIME0"])
        #expect(second.waitForExit(timeout: 10) == .exited(0), "\(second.stderrText)")
        let raised = Deadline(seconds: 10)
        while try active() != window, !raised.hasPassed { try d.x.sync() }
        #expect(try active() == window, "openbox activated the running window")
        #expect(Self.count(try d.state(), "bell") == 3)
    }

    @Test("Root reaches another user's instance (msg --user) only when its config allows it, and only to change and read counts",
          .enabled(if: getuid() == 0 && findOnPath("setpriv") != nil, "needs root and setpriv"))
    func rootOptIn() throws {
        let nobody: uid_t = 65534
        let runtime = "/run/user/\(nobody)"
        let madeRuntime = mkdir(runtime, 0o700) == 0
        if madeRuntime { #expect(chown(runtime, nobody, nobody) == 0) }
        defer { if madeRuntime { removeTree(runtime) } }
        var template = Array("/tmp/badgekit-nobody-XXXXXX".utf8CString)
        let home = try #require(template.withUnsafeMutableBufferPointer { $0.baseAddress.flatMap { mkdtemp($0) }.map { String(cString: $0) } })
        defer { removeTree(home) }
        #expect(chmod(home, 0o755) == 0 && chown(home, nobody, nobody) == 0)
        let config = home + "/badges.json"
        func writeConfig(allowRoot: Bool) {
            let temporary = config + ".new"
            let file = fopen(temporary, "w")
            fputs(#"{"buttons": [{"id": "bell"}, {"id": "mail"}], "control": {"allowRoot": \#(allowRoot)}}"#, file)
            fclose(file)
            chown(temporary, nobody, nobody)
            rename(temporary, config)
        }
        writeConfig(allowRoot: false)
        let server = try XvfbServer.start(width: 640, height: 480)
        let executable = try BuiltProducts.executable(named: "badge-demo")
        let app = try ChildProcess(executable: "/usr/bin/setpriv",
                                   arguments: ["--reuid=\(nobody)", "--regid=\(nobody)", "--clear-groups", executable, "--no-state", "--config", config],
                                   environment: .inherited(adding: ["DISPLAY": server.display, "XDG_RUNTIME_DIR": runtime, "HOME": home,
                                                                    "XDG_CONFIG_HOME": home + "/config", "XDG_STATE_HOME": home + "/state",
                                                                    "BADGE_REDUCE_MOTION": "1"]))
        defer { app.kill(SIGKILL); app.waitForExit(timeout: 5) }
        func msg(_ arguments: [String]) throws -> (status: ProcessTermination?, out: [String], err: String) {
            let client = try ChildProcess(executable: executable, arguments: ["msg", "--user", "nobody"] + arguments,
                                          environment: .inherited(adding: ["XDG_RUNTIME_DIR": "/nonexistent"], removing: ["DISPLAY"]))
            client.closeStdin()
            var lines: [String] = []
            while let line = try client.readLine(timeout: 30) { lines.append(line) }
            return (client.waitForExit(timeout: 10), lines, client.stderrText)
        }
        // Until the window is up, nobody listens (1); then root is refused (2).
        var answer = try msg(["state"])
        let deadline = Deadline(seconds: 15)
        while answer.status == .exited(1), !deadline.hasPassed { answer = try msg(["state"]) }
        #expect(answer.status == .exited(2) && answer.err.contains("root may not control uid \(nobody)'s instance"), "\(answer); app: \(app.stderrText)")
        #expect(app.stderrText.contains("uid 0: root may not connect"), "\(app.stderrText)")
        // The user allows root in the config: read again on its own, then root may set and read counts…
        writeConfig(allowRoot: true)
        let allowed = Deadline(seconds: 15)
        while try msg(["set", "bell", "5"]).status != .exited(0), !allowed.hasPassed {}
        let state = try msg(["state"])
        #expect(state.status == .exited(0))
        let parsed = try JSONValue(parsing: state.out.first ?? "{}")
        #expect(Self.count(parsed, "bell") == 5 && parsed["controlSocket"]?["allowsRoot"] == .bool(true), "\(state)")
        // …but not quit the app or raise its window.
        for command in [["quit"], ["activate"]] {
            let refused = try msg(command)
            #expect(refused.status == .exited(2) && refused.err.contains("root may only change and read counts"), "\(refused)")
        }
        #expect(app.waitForExit(timeout: 0) == nil)
        // A socket that is not the named user's is never talked to.
        let spoof = try ChildProcess(executable: executable, arguments: ["msg", "--user", "root", "--socket", runtime + "/badge-demo/control.sock", "state"],
                                     environment: .inherited(removing: ["DISPLAY"]))
        #expect(spoof.waitForExit(timeout: 10) == .exited(2))
        #expect(spoof.stderrText.contains("served by uid \(nobody), not uid 0"), "\(spoof.stderrText)")
    }
}
