import BadgeCore
import BadgeControl
import Glibc
import Testing
import XvfbHarness

/// badge-demo's buttons bound to real sources (issue 21): Maildir deliveries by Python's `mailbox`,
/// command sources, the last session's counts, Do Not Disturb from a real dunst, launcher counts.
@Suite("E2E: buttons bound to sources", .endToEnd(minutes: 3))
struct SourceBindingTests {
    /// A private folder for a test's config, Maildir and state.
    final class Folder {
        let path: String
        init(_ name: String) throws {
            path = try Artifacts.path(for: "sources-\(name)-\(getpid())")
            removeTree(path)
            #expect(mkdir(path, 0o700) == 0)
        }
        deinit { removeTree(path) }

        func write(_ name: String, _ text: String) {
            let file = fopen(path + "/" + name, "w")
            fputs(text, file)
            fclose(file)
        }

        /// Runs Python with `mailbox` on the Maildir `name` (created when missing).
        func mailbox(_ name: String, _ body: String) throws {
            let script = "import mailbox, sys\nm = mailbox.Maildir(sys.argv[1], create=True)\n" + body
            let python = try ChildProcess(executable: "/usr/bin/python3", arguments: ["-c", script, path + "/" + name])
            #expect(python.waitForExit(timeout: 20) == .exited(0), "\(python.stderrText)")
        }
    }

    static func waitFor(_ s: DemoSession, timeout: Double = 10, _ what: String, _ condition: (AppState) throws -> Bool) throws -> AppState {
        let deadline = Deadline(seconds: timeout)
        while true {
            let state = try s.state()
            if try condition(state) { return state }
            if deadline.hasPassed { throw HarnessError("\(what): not within \(timeout) s; last state: \(state.buttons.map { $0.json })") }
            _ = try? s.app.readEvent(named: "change", timeout: 0.2)
        }
    }

    @Test("Maildir: deliveries, reading (cur/ with S) and deletes counted exactly; a producer overrides and says so; explain says where and when")
    func maildir() throws {
        let f = try Folder("maildir")
        try f.mailbox("Mail", "for i in range(3): m.add('Subject: %d\\n\\nbody' % i)")
        f.write("config.json", #"{"buttons": [{"id": "mail", "icon": "mail", "label": "Mail", "source": {"maildir": "\#(f.path)/Mail"}}, {"id": "bell", "icon": "bell"}]}"#)
        let s = try DemoSession("source-maildir", arguments: ["--config", f.path + "/config.json", "--no-state"])
        var state = try Self.waitFor(s, "three unread") { try $0.button("mail").count == 3 }
        let mail = try state.button("mail")
        #expect(mail.description == "Mail, 3 unread, from \(f.path)/Mail", "\(mail.description)")
        #expect(mail.json["source"]?["kind"]?.string == "maildir" && mail.json["confidence"]?.string == "current")
        // The first message read by a mail client: moved to cur/ with the S flag.
        try f.mailbox("Mail", "k = sorted(m.keys())[0]\nmsg = m[k]\nmsg.set_subdir('cur')\nmsg.add_flag('S')\nm[k] = msg")
        state = try Self.waitFor(s, "two unread after reading one") { try $0.button("mail").count == 2 }
        // Trashed, then deleted: still two, then one.
        try f.mailbox("Mail", "k = sorted(m.keys())[1]\nmsg = m[k]\nmsg.set_subdir('cur')\nmsg.add_flag('T')\nm[k] = msg")
        state = try Self.waitFor(s, "a trashed message does not count") { try $0.button("mail").count == 1 }
        // A producer overrides the source until its next reading, and the badge says so.
        try s.command("set mail 40")
        state = try Self.waitFor(s, "overridden") { try $0.button("mail").json["source"]?["overriddenBy"]?.string == "control" }
        #expect(try state.button("mail").description.contains("changed by control"))
        try s.command("explain mail")
        let explained = try s.app.readEvent(named: "explain", timeout: 10)
        let text = explained["text"]?.string ?? ""
        #expect(text.hasPrefix("Mail, 40 unread, from \(f.path)/Mail, ") && text.contains(" s ago") && text.contains("overridden by control"), "\(text)")
        // refresh takes a new reading and ends the override, though nothing changed in the folder.
        try s.command("refresh mail")
        state = try Self.waitFor(s, "refresh ends the override") { try $0.button("mail").count == 1 }
        #expect(try state.button("mail").json["source"]?["overriddenBy"] == nil, "\((try? state.button("mail").json).map { "\($0)" } ?? "")")
        // A click on a bound button is its action (a new reading here), never +1 on the source's number.
        try s.click(MouseButton.left, on: "mail")
        try s.click(MouseButton.middle, on: "mail")
        try s.click(MouseButton.wheelUp, on: "mail")
        try s.sync()
        state = try s.state()
        #expect(try state.button("mail").count == 1 && state.button("mail").json["source"]?["overriddenBy"] == nil,
                "\((try? state.button("mail").json).map { "\($0)" } ?? "")")
        try f.mailbox("Mail", "m.add('Subject: late\\n\\nbody')")
        state = try Self.waitFor(s, "the source's next reading") { try $0.button("mail").count == 2 }
        #expect(try state.button("mail").json["source"]?["overriddenBy"] == nil)
        // The bell has no source: explain says so.
        try s.command("explain bell")
        #expect(try s.app.readEvent(named: "explain", timeout: 10)["source"]?.isNull == true)
        // The folder goes away (an unmounted disk, a sync tool replacing it): the count is kept but
        // marked, and the badge drawn grey.
        #expect(rename(f.path + "/Mail", f.path + "/Mail.away") == 0)
        state = try Self.waitFor(s, "stale once the folder is gone") { try $0.button("mail").json["confidence"]?.string == "stale" }
        let stale = try state.button("mail")
        #expect(stale.count == 2 && stale.description.hasSuffix("not up to date"), "\(stale.description)")
        try s.sync()
        let badge = try #require(stale.badge)
        let pixels = try s.x.capture(window: s.window, rect: badge)
        #expect(pixels.count(where: isBadgeRed) == 0, "a stale badge is not drawn red")
        #expect(pixels.count { $0.r == 117 && $0.g == 117 && $0.b == 117 } > 20, "it is drawn in the stale grey")
    }

    @Test("Commands: a count, a failure (stale, with the reason), refresh on demand; a restored count is 'last session' until its command answers")
    func commands() throws {
        let f = try Folder("commands")
        let marker = f.path + "/runs"
        f.write("config.json", #"""
            {"buttons": [{"id": "ci", "icon": "updates", "label": "CI", "source": {"command": "echo run >> \#(marker); sleep 1; echo 4"}},
                         {"id": "bad", "icon": "bell", "label": "Bad", "source": {"command": ["/bin/sh", "-c", "echo oops >&2; exit 3"]}},
                         {"id": "junk", "icon": "chat", "label": "Junk", "source": {"command": "echo not-a-number"}}]}
            """#)
        f.write("state.json", #"{"version": 1, "buttons": {"ci": {"kind": "count", "count": 7, "from": "command"}}}"#)
        let s = try DemoSession("source-commands", arguments: ["--config", f.path + "/config.json", "--state", f.path + "/state.json"])
        // The restored 7 is shown as last session while the command runs (a second).
        let first = try s.state().button("ci")
        #expect(first.count == 7 && first.json["confidence"]?.string == "lastSession", "\(first.json)")
        #expect(first.description.hasSuffix("last session"), "\(first.description)")
        // The first reading's change says what is true then: current, not "last session".
        let confirmed = try s.app.readEvent(named: "change", timeout: 10) { $0["id"]?.string == "ci" && $0["text"]?.string == "4" }
        #expect(confirmed["cause"]?.string == "source")
        let announced = confirmed["description"]?.string ?? ""
        #expect(announced.hasPrefix("CI, 4 unread") && !announced.contains("last session"), "\(confirmed)")
        let state = try Self.waitFor(s, "the command's count") { try $0.button("ci").count == 4 }
        #expect(try state.button("ci").json["confidence"]?.string == "current")
        let bad = try state.button("bad")
        #expect(bad.json["confidence"]?.string == "stale" && bad.contentKind == "none", "never a confident number: \(bad.json)")
        #expect(bad.json["source"]?["error"]?.string?.contains("status 3") == true, "\(bad.json)")
        // A source that never succeeded is not "0, all fine": a grey "?" is drawn, and the reason is
        // in the tooltip's and the screen reader's words.
        #expect(bad.description.contains("status 3") && bad.description.hasSuffix("not up to date"), "\(bad.description)")
        try s.sync()
        let mark = try #require(bad.badge, "a failing source shows a mark: \(bad.json)")
        let pixels = try s.x.capture(window: s.window, rect: mark)
        #expect(pixels.count { $0.r == 117 && $0.g == 117 && $0.b == 117 } > 20, "the mark is drawn in the stale grey")
        let junk = try state.button("junk")
        #expect(junk.json["source"]?["stale"]?.bool == true && junk.json["source"]?["error"] != nil, "\(junk.json)")
        // Refresh runs it again: one more line in the marker file.
        let before = (try? String(decoding: readProcFile(marker), as: UTF8.self))?.split(separator: "\n").count ?? 0
        try s.command("refresh ci")
        let deadline = Deadline(seconds: 10)
        var runs = before
        while runs == before, !deadline.hasPassed {
            try s.sync()
            runs = (try? String(decoding: readProcFile(marker), as: UTF8.self))?.split(separator: "\n").count ?? 0
        }
        #expect(runs == before + 1)
        try s.command("refresh nosuch")
        #expect(try s.app.readEvent(named: "error", timeout: 10)["reason"]?.string?.contains("unknown button") == true)
    }

    @Test("Demo counts stay in the demo: a restored demo 3 and a config's count never show on a button bound to a source; explain names the demo")
    func demoCountsStayInTheDemo() throws {
        let f = try Folder("demo-leak")
        // A first run of the bundled demo: its sample counts are saved.
        let demo = try DemoSession("source-demo-first", arguments: ["--state", f.path + "/state.json"])
        try demo.command("explain bell")
        let sample = try demo.app.readEvent(named: "explain", timeout: 10)
        #expect(sample["text"]?.string == "Notifications, 3 unread, the demo's sample value (no source)", "\(sample)")
        try demo.command("quit")
        #expect(demo.app.waitForExit(timeout: 10) == .exited(0))
        let saved = String(decoding: try readProcFile(f.path + "/state.json"), as: UTF8.self)
        #expect(saved.contains(#""bell":{"kind":"count","count":3,"from":"demo"}"#), "\(saved)")
        // The user binds the bell to a command that fails, and mail to one that is slow, with a count in the file.
        f.write("config.json", #"""
            {"buttons": [{"id": "bell", "icon": "bell", "label": "Bell", "source": {"command": "exit 3"}},
                         {"id": "mail", "icon": "mail", "label": "Mail", "content": {"kind": "count", "count": 9},
                          "source": {"command": "sleep 30; echo 1"}}]}
            """#)
        let s = try DemoSession("source-demo-then-real", arguments: ["--config", f.path + "/config.json", "--state", f.path + "/state.json"])
        #expect(s.app.stderrText.contains("buttons[1].content: not shown: the button's source gives its value"), "\(s.app.stderrText)")
        let first = try s.state()
        let bell = try first.button("bell"), mail = try first.button("mail")
        #expect(bell.count == nil && mail.count == nil, "no count a source never gave: \(bell.json) \(mail.json)")
        let state = try Self.waitFor(s, "the failing bell") { try $0.button("bell").json["confidence"]?.string == "stale" }
        #expect(try state.button("bell").count == nil, "the demo's 3 is not drawn as the source's")
    }

    @Test("Do Not Disturb from dunst: badges show as each button chose (dot by default, hidden when asked) while it lasts",
          .enabled(if: findOnPath("dunst") != nil && findOnPath("dunstctl") != nil, "dunst or dunstctl is not installed"))
    func doNotDisturb() throws {
        let f = try Folder("dnd")
        try f.mailbox("Mail", "for i in range(5): m.add('Subject: %d\\n\\nbody' % i)")
        f.write("config.json", #"""
            {"buttons": [{"id": "bell", "icon": "bell", "source": {"notifications": true}},
                         {"id": "mail", "icon": "mail", "source": {"maildir": "\#(f.path)/Mail"}},
                         {"id": "chat", "icon": "chat", "doNotDisturb": "hidden", "content": {"kind": "count", "count": 2}}]}
            """#)
        let bus = try SessionBus()
        var daemon: ChildProcess?
        defer { daemon?.kill(SIGKILL); daemon?.waitForExit(timeout: 5) }
        let s = try DemoSession("source-dnd", arguments: ["--config", f.path + "/config.json", "--no-state"],
                                environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address]) { server, _ in
            daemon = try ChildProcess(executable: "dunst", arguments: [],
                                      environment: .inherited(adding: ["DISPLAY": server.display, "DBUS_SESSION_BUS_ADDRESS": bus.address]))
            try bus.waitForOwner(of: "org.freedesktop.Notifications")
        }
        func dunst(_ arguments: [String]) throws {
            let tool = try ChildProcess(executable: arguments[0], arguments: Array(arguments.dropFirst()),
                                        environment: .inherited(adding: ["DBUS_SESSION_BUS_ADDRESS": bus.address]))
            #expect(tool.waitForExit(timeout: 10) == .exited(0), "\(arguments): \(tool.stderrText)")
        }
        try dunst(["notify-send", "-u", "critical", "one"])
        try dunst(["notify-send", "-u", "critical", "two"])
        var state = try Self.waitFor(s, "the bell counts dunst's notifications") { try $0.button("bell").count == 2 && $0.button("mail").count == 5 }
        #expect(try state.button("bell").description.contains("in dunst"))
        try dunst(["dunstctl", "set-paused", "true"])
        state = try Self.waitFor(s, "Do Not Disturb") { try $0.button("mail").text == "" && $0.button("mail").badge != nil }
        #expect(try state.button("bell").badge != nil && state.button("bell").text == "", "a dot, without a number")
        #expect(try state.button("chat").badge == nil, "hidden, as the config asks")
        #expect(try state.button("mail").count == 5, "the count is kept underneath")
        try dunst(["dunstctl", "set-paused", "false"])
        state = try Self.waitFor(s, "Do Not Disturb ended") { try $0.button("mail").text == "5" && $0.button("chat").text == "2" }
    }

    @Test("A launcher count (python3-dbus sender) shows on its button and goes when the sender leaves")
    func launcherHub() throws {
        let f = try Folder("hub")
        f.write("config.json", #"{"buttons": [{"id": "chat", "icon": "chat", "label": "Chat", "source": {"launcher": "org.example.Chat"}}]}"#)
        let bus = try SessionBus()
        let s = try DemoSession("source-hub", arguments: ["--config", f.path + "/config.json", "--no-state"],
                                environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        _ = try Self.waitFor(s, "the launcher source is waiting") { try $0.button("chat").json["source"]?["kind"]?.string == "launcher" }
        let app = try LauncherSender.start(bus: bus, desktopID: "org.example.Chat")
        defer { app.kill(SIGKILL); app.waitForExit(timeout: 5) }
        #expect(try LauncherSender.broadcast(23, from: app) { (try? s.state().button("chat").count) == 23 })
        app.closeStdin()
        #expect(app.waitForExit(timeout: 10) == .exited(0))
        let state = try Self.waitFor(s, "the count goes with its sender") { try $0.button("chat").contentKind == "none" }
        #expect(try state.button("chat").description.contains("left the bus"))
    }

    /// The config block of the README's "Use it every day", as written there.
    static func readmeConfig() throws -> String {
        let root = #filePath.split(separator: "/", omittingEmptySubsequences: false).dropLast(3).joined(separator: "/")
        let readme = String(decoding: try readProcFile(root + "/README.md"), as: UTF8.self)
        let after = try #require(readme.firstRange(of: "### Use it every day"))
        let start = try #require(readme[after.upperBound...].firstRange(of: "```json\n"))
        let end = try #require(readme[start.upperBound...].firstRange(of: "```"))
        return String(readme[start.upperBound..<end.lowerBound])
    }

    @Test("The README's launcher button follows Telegram's broadcasts, in each form of its id; no desktop file is a warning naming it",
          arguments: ["README", "org.telegram.desktop.desktop", "application://org.telegram.desktop.desktop"])
    func readmeLauncherConfig(form: String) throws {
        let f = try Folder("hub-readme-" + (form.hasPrefix("app") ? "uri" : form.hasSuffix(".desktop") ? "file" : "id"))
        var config = try Self.readmeConfig()
        #expect(config.contains(#""launcher": "org.telegram.desktop""#), "the README still shows Telegram's id")
        if form != "README" { config = config.replacing(#""launcher": "org.telegram.desktop""#, with: #""launcher": "\#(form)""#) }
        f.write("config.json", config)
        let bus = try SessionBus()
        let data = f.path + "/data"
        #expect(mkdir(data, 0o700) == 0)
        let s = try DemoSession("source-hub-readme", arguments: ["--config", f.path + "/config.json", "--no-state"],
                                environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address, "XDG_DATA_HOME": data, "XDG_DATA_DIRS": data])
        #expect(s.app.stderrText.contains("buttons[2].source.launcher: no desktop file for \"\(form == "README" ? "org.telegram.desktop" : form)\""),
                "\(s.app.stderrText)")
        _ = try Self.waitFor(s, "the launcher source is waiting") { try $0.button("chat").json["source"]?["kind"]?.string == "launcher" }
        // Telegram's own broadcast: application://org.telegram.desktop.desktop.
        let app = try LauncherSender.start(bus: bus, desktopID: "org.telegram.desktop")
        defer { app.kill(SIGKILL); app.waitForExit(timeout: 5) }
        #expect(try LauncherSender.broadcast(7, from: app) { (try? s.state().button("chat").count) == 7 },
                "\(form): Telegram's count reaches the chat button")
    }

    @Test("No config: the bell follows the notification daemon on the bus, mail follows $MAILDIR; the rest is today's demo",
          .enabled(if: findOnPath("dunst") != nil, "dunst is not installed"))
    func defaults() throws {
        let f = try Folder("defaults")
        try f.mailbox("Maildir", "for i in range(4): m.add('Subject: %d\\n\\nbody' % i)")
        let bus = try SessionBus()
        var daemon: ChildProcess?
        defer { daemon?.kill(SIGKILL); daemon?.waitForExit(timeout: 5) }
        let s = try DemoSession("source-defaults", arguments: ["--no-state"],
                                environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address, "MAILDIR": f.path + "/Maildir"]) { server, _ in
            daemon = try ChildProcess(executable: "dunst", arguments: [],
                                      environment: .inherited(adding: ["DISPLAY": server.display, "DBUS_SESSION_BUS_ADDRESS": bus.address]))
            try bus.waitForOwner(of: "org.freedesktop.Notifications")
        }
        let state = try Self.waitFor(s, "bell and mail bound") {
            try $0.button("bell").json["source"]?["kind"]?.string == "notifications" && $0.button("mail").count == 4
        }
        #expect(try state.button("bell").contentKind == "none", "no notification waits: no badge")
        #expect(try state.button("chat").text == "New" && state.button("updates").contentKind == "dot", "the rest is the demo's")
        let notify = try ChildProcess(executable: "notify-send", arguments: ["-u", "critical", "hello"],
                                      environment: .inherited(adding: ["DBUS_SESSION_BUS_ADDRESS": bus.address]))
        #expect(notify.waitForExit(timeout: 10) == .exited(0))
        _ = try Self.waitFor(s, "the bell counts it") { try $0.button("bell").count == 1 }
    }

    @Test("Before its source answers a bound button is 'pending', never 'current': a command that never finishes, one that fails at once")
    func pendingUntilTheSourceAnswers() throws {
        let f = try Folder("pending")
        f.write("config.json", #"""
            {"buttons": [{"id": "ci", "icon": "updates", "source": {"command": "sleep 600", "interval": 60}},
                         {"id": "bad", "icon": "bell", "source": {"command": "false", "interval": 60}}]}
            """#)
        let s = try DemoSession("source-pending", arguments: ["--config", f.path + "/config.json", "--no-state"])
        let state = try Self.waitFor(s, "the failing command is stale") { try $0.button("bad").json["confidence"]?.string == "stale" }
        let ci = try state.button("ci")
        #expect(ci.json["confidence"]?.string == "pending", "\(ci.json)")
        #expect(ci.contentKind == "none" && ci.count == nil, "nothing drawn: \(ci.json)")
        #expect(ci.description.contains("waiting for its source"), "\(ci.description)")
        try s.command("explain ci")
        let explained = try s.app.readEvent(named: "explain", timeout: 10)
        #expect((explained["text"]?.string ?? "\(explained)").contains("no reading yet"), "\(explained)")
    }

    @Test("No config: the bell taken by a daemon goes back to the demo's own count when that daemon quits (a window manager's daemon)",
          .enabled(if: findOnPath("dunst") != nil, "dunst is not installed"))
    func defaultBellWhenTheDaemonQuits() throws {
        let f = try Folder("defaults-gone")
        let bus = try SessionBus()
        var daemon: ChildProcess?
        defer { daemon?.kill(SIGKILL); daemon?.waitForExit(timeout: 5) }
        let s = try DemoSession("source-defaults-gone", arguments: ["--no-state"],
                                environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address, "MAILDIR": f.path + "/none", "HOME": f.path]) { server, _ in
            daemon = try ChildProcess(executable: "dunst", arguments: [],
                                      environment: .inherited(adding: ["DISPLAY": server.display, "DBUS_SESSION_BUS_ADDRESS": bus.address]))
            try bus.waitForOwner(of: "org.freedesktop.Notifications")
        }
        _ = try Self.waitFor(s, "the bell follows dunst") { try $0.button("bell").json["source"]?["kind"]?.string == "notifications" }
        daemon?.kill(SIGTERM)
        #expect(daemon?.waitForExit(timeout: 10) != nil)
        let state = try Self.waitFor(s, "the bell is the demo's again") { try $0.button("bell").count == 3 }
        let bell = try state.button("bell")
        #expect(bell.json["confidence"]?.string == "current" && bell.json["source"] == .null, "\(bell.json)")
        #expect(!bell.description.contains("not up to date"), "\(bell.description)")
    }

    @Test("A launcher button takes its app's name and icon from its desktop file; a click raises its window (openbox), else launches it",
          .enabled(if: findOnPath("openbox") != nil && findOnPath("xdotool") != nil, "openbox or xdotool is not installed"))
    func launcherButtonClicks() throws {
        let f = try Folder("hub-click")
        let data = f.path + "/data"
        for folder in ["", "/applications", "/icons", "/icons/hicolor", "/icons/hicolor/scalable", "/icons/hicolor/scalable/apps"] {
            #expect(mkdir(data + folder, 0o700) == 0)
        }
        let marker = f.path + "/launched"
        f.write("data/applications/org.example.Chat.desktop", """
            [Desktop Entry]
            Type=Application
            Name=Example Chat
            Name[de]=Beispiel-Chat
            Icon=example-chat
            StartupWMClass=ExampleChat
            Exec=/bin/sh -c "echo launched >> \(marker)" %U

            """)
        // A square icon: nothing like the bundled chat bubble.
        f.write("data/icons/hicolor/scalable/apps/example-chat.svg",
                #"<svg xmlns="http://www.w3.org/2000/svg" width="24" height="24"><rect x="2" y="2" width="20" height="20"/></svg>"#)
        f.write("config.json", #"{"buttons": [{"id": "tg", "source": {"launcher": "org.example.Chat"}}, {"id": "bell", "icon": "bell"}]}"#)
        var manager: WindowManager?
        defer { manager?.kill() }
        let s = try DemoSession("source-hub-click", arguments: ["--config", f.path + "/config.json", "--no-state"],
                                environment: ["XDG_DATA_HOME": data, "XDG_DATA_DIRS": data, "LANGUAGE": "", "LC_ALL": "C"]) { server, x in
            manager = try WindowManager("openbox", display: server.display, x: x)
        }
        let button = try s.state().button("tg")
        #expect(button.json["label"]?.string == "Example Chat", "the desktop file's name: \(button.json)")
        // No window of that class yet: a click launches the application (its Exec, field codes dropped).
        let point = try s.x.rootPoint(inWindow: s.window, x: button.button.x + button.button.width / 2, y: button.button.y + button.button.height / 2)
        try s.x.click(button: MouseButton.left, atRoot: point)
        let launched = Deadline(seconds: 10)
        func launches() -> String { String(decoding: (try? readProcFile(marker)) ?? [], as: UTF8.self) }
        while launches() != "launched\n", !launched.hasPassed { try s.x.sync() }
        #expect(launches() == "launched\n", "\(s.app.stderrText)")
        #expect(try s.state().button("tg").contentKind == "none", "a click on a launcher button does not count")
        // Its window exists now (a managed window of that class): the click raises it instead.
        let chat = try TestWindow(display: s.server.display, x: 300, y: 200, title: "Example Chat", managed: true,
                                  wmClass: ("examplechat", "ExampleChat"))
        try s.x.waitForProperty(window: chat.window, name: "WM_STATE", timeout: 10) { $0 != nil }
        try s.x.click(button: MouseButton.left, atRoot: point)  // the demo's window comes first (it takes the focus)
        let other = try TestWindow(display: s.server.display, x: 300, y: 300, title: "Other", managed: true, wmClass: ("other", "Other"))
        try s.x.waitForProperty(window: other.window, name: "WM_STATE", timeout: 10) { $0 != nil }
        try s.x.click(button: MouseButton.left, atRoot: point)
        let raised = Deadline(seconds: 10)
        // nil while xdotool finds no _NET_ACTIVE_WINDOW yet (openbox slow under load): waited on.
        func active() throws -> UInt32? {
            guard let output = try? runClient("xdotool", ["getactivewindow"], display: s.server.display) else { return nil }
            return UInt32(output.split(separator: "\n").first.map(String.init) ?? "")
        }
        while try active() != chat.window, !raised.hasPassed { try s.x.sync() }
        #expect(try active() == chat.window, "the click raised the application's window")
        #expect(launches() == "launched\n", "not launched twice")
    }
}
