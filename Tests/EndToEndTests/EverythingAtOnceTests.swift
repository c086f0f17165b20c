import BadgeCore
import Glibc
import Testing
import XvfbHarness

/// The README's own config, read from README.md, run as a new user would with every source live
/// at once (issue 35): dunst and notify-send, a LauncherEntry sender for the README's id, Maildir
/// deliveries and reads, and the command. After each event every button is exact and current.
@Suite("E2E: everything at once, as the README says", .endToEnd(minutes: 3))
struct EverythingAtOnceTests {
    typealias Folder = SourceBindingTests.Folder

    /// What every button must show, by id: a count (nil: no badge) and the confidence.
    struct Expected: CustomStringConvertible {
        var bell: Int?, mail: Int?, chat: Int?, ci: Int?
        var description: String { "bell \(bell.map(String.init) ?? "-"), mail \(mail.map(String.init) ?? "-"), chat \(chat.map(String.init) ?? "-"), ci \(ci.map(String.init) ?? "-")" }

        /// True when `state` shows exactly this, every button current.
        func isShown(in state: AppState) throws -> Bool {
            for (id, count) in [("bell", bell), ("mail", mail), ("chat", chat), ("ci", ci)] {
                let button = try state.button(id)
                guard button.json["confidence"]?.string == "current" else { return false }
                if let count { guard button.count == count else { return false } } else { guard button.contentKind == "none" else { return false } }
            }
            return true
        }
    }

    static func expect(_ s: DemoSession, _ wanted: Expected, after what: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let deadline = Deadline(seconds: 10)
        var state = try s.state()
        while try !wanted.isShown(in: state), !deadline.hasPassed {
            _ = try? s.app.readEvent(named: "change", timeout: 0.2)
            state = try s.state()
        }
        let shown = state.buttons.map { "\($0.id) \($0.contentKind) \($0.count.map(String.init) ?? "") \($0.json["confidence"]?.string ?? "?") (\($0.description))" }
        #expect(try wanted.isShown(in: state), "after \(what): wanted \(wanted); shown \(shown)", sourceLocation: sourceLocation)
    }

    @Test("The README's 'Use it every day' config, verbatim: notifications, Maildir, launcher and command all live, every count exact and current",
          .enabled(if: findOnPath("dunst") != nil && findOnPath("notify-send") != nil && findOnPath("dunstctl") != nil && findOnPath("busctl") != nil,
                   "dunst, notify-send, dunstctl or busctl is not installed"))
    func readmeConfig() throws {
        let f = try Folder("everything")
        let config = try SourceBindingTests.readmeConfig()
        for folder in ["/.config", "/.config/badge-demo", "/.local", "/.local/state", "/.local/share", "/bin", "/Maildir"] { #expect(mkdir(f.path + folder, 0o700) == 0) }
        f.write(".config/badge-demo/config.json", config)
        // The command the README names, on PATH: the CI's count, from a file the test writes.
        f.write("ci-count", "1\n")
        f.write("bin/ci-status", "#!/bin/sh\n[ \"$1\" = --count ] || exit 2\nexec cat \"\(f.path)/ci-count\"\n")
        #expect(chmod(f.path + "/bin/ci-status", 0o700) == 0)
        try f.mailbox("Maildir/INBOX", "for i in range(2): m.add('From: a@example.org\\nSubject: %d\\n\\nbody' % i)")
        let bus = try SessionBus()
        let environment = ["DBUS_SESSION_BUS_ADDRESS": bus.address, "HOME": f.path, "XDG_CONFIG_HOME": f.path + "/.config",
                           "XDG_STATE_HOME": f.path + "/.local/state", "XDG_DATA_HOME": f.path + "/.local/share",
                           "PATH": f.path + "/bin:" + (getenv("PATH").map { String(cString: $0) } ?? "/usr/bin:/bin")]
        let tools = ChildEnvironment.inherited(adding: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        var daemon: ChildProcess?
        defer { daemon?.kill(SIGKILL); daemon?.waitForExit(timeout: 5) }
        let s = try DemoSession("everything", environment: environment) { server, _ in
            daemon = try ChildProcess(executable: "dunst", arguments: [],
                                      environment: .inherited(adding: ["DISPLAY": server.display, "DBUS_SESSION_BUS_ADDRESS": bus.address]))
            try bus.waitForOwner(of: "org.freedesktop.Notifications")
        }
        func run(_ arguments: [String]) throws {
            let tool = try ChildProcess(executable: arguments[0], arguments: Array(arguments.dropFirst()), environment: tools, stdout: .null)
            #expect(tool.waitForExit(timeout: 10) == .exited(0), "\(arguments): \(tool.stderrText)")
        }
        // Telegram, as a python3-dbus sender of the README's id.
        let telegram = try LauncherSender.start(bus: bus, desktopID: "org.telegram.desktop")
        defer { telegram.kill(SIGKILL); telegram.waitForExit(timeout: 5) }
        var wanted = Expected(bell: nil, mail: 2, chat: nil, ci: 1)
        try LauncherSender.broadcast(7, from: telegram) { (try? s.state().button("chat").count) == 7 }
        wanted.chat = 7
        try Self.expect(s, wanted, after: "the start and Telegram's first count")

        for n in 1...3 {
            try run(["notify-send", "-u", "critical", "message \(n)"])
            wanted.bell = n
            try Self.expect(s, wanted, after: "notify-send \(n)")
        }
        // Peers come and go on the bus (each notify-send did too): nothing changes.
        try run(["busctl", "--address=" + bus.address, "call", "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "ListNames"])
        try s.sync()
        try Self.expect(s, wanted, after: "busctl came and went")
        try s.command("explain bell")
        let explained = try s.app.readEvent(named: "explain", timeout: 10)["text"]?.string ?? ""
        #expect(explained.contains("in dunst") && !explained.contains("no notification daemon"), "\(explained)")

        try telegram.writeLine("count 9")
        _ = try telegram.readLine(timeout: 10)
        wanted.chat = 9
        try Self.expect(s, wanted, after: "Telegram's new count")

        try f.mailbox("Maildir/INBOX", "m.add('From: b@example.org\\nSubject: new\\n\\nbody')")
        wanted.mail = 3
        try Self.expect(s, wanted, after: "a delivery")
        try f.mailbox("Maildir/INBOX", "k = sorted(m.keys())[0]\nmsg = m[k]\nmsg.set_subdir('cur')\nmsg.add_flag('S')\nm[k] = msg")
        wanted.mail = 2
        try Self.expect(s, wanted, after: "a message read")

        f.write("ci-count", "4\n")
        try s.command("refresh ci")
        wanted.ci = 4
        try Self.expect(s, wanted, after: "the command's new count")

        try run(["dunstctl", "close"])
        wanted.bell = 2
        try Self.expect(s, wanted, after: "dunstctl close")

        telegram.closeStdin()
        #expect(telegram.waitForExit(timeout: 10) == .exited(0))
        wanted.chat = nil
        try Self.expect(s, wanted, after: "Telegram quit")
    }
}

/// Other Debian notification daemons, each with a launcher button beside the bell on one bus.
@Suite("E2E: notification daemons beside a launcher button", .endToEnd(minutes: 2))
struct DaemonsBesideLauncherTests {
    static let daemons = ["/usr/lib/notification-daemon/notification-daemon", "/usr/lib/x86_64-linux-gnu/xfce4/notifyd/xfce4-notifyd"]

    @Test("notification-daemon and xfce4-notifyd: the bell counts exactly beside a launcher count, peers coming and going",
          .enabled(if: findOnPath("notify-send") != nil && findOnPath("busctl") != nil, "notify-send or busctl is not installed"),
          arguments: Self.daemons)
    func daemon(_ path: String) throws {
        try #require(access(path, X_OK) == 0, "\(path) is not installed (make test-deps installs it)")
        let name = path.split(separator: "/").last.map(String.init) ?? "daemon"
        let f = try SourceBindingTests.Folder("beside-\(name)")
        f.write("config.json", #"""
            {"buttons": [{"id": "bell", "icon": "bell", "source": {"notifications": true}},
                         {"id": "chat", "icon": "chat", "source": {"launcher": "org.example.Chat"}}]}
            """#)
        let bus = try SessionBus()
        var daemon: ChildProcess?
        defer { daemon?.kill(SIGKILL); daemon?.waitForExit(timeout: 5) }
        let s = try DemoSession("beside-\(name)", arguments: ["--config", f.path + "/config.json", "--no-state"],
                                environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address]) { server, _ in
            daemon = try ChildProcess(executable: path, arguments: [],
                                      environment: .inherited(adding: ["DISPLAY": server.display, "DBUS_SESSION_BUS_ADDRESS": bus.address,
                                                                       "XDG_CONFIG_HOME": f.path, "XDG_CACHE_HOME": f.path]))
            try bus.waitForOwner(of: "org.freedesktop.Notifications")
        }
        // The generic driver counts from when its monitor is in place: it says 0 then.
        _ = try SourceBindingTests.waitFor(s, "the bell watches \(name)") {
            try $0.button("bell").json["source"]?["kind"]?.string == "notifications" && $0.button("bell").json["confidence"]?.string == "current"
        }
        let app = try LauncherSender.start(bus: bus, desktopID: "org.example.Chat")
        defer { app.kill(SIGKILL); app.waitForExit(timeout: 5) }
        #expect(try LauncherSender.broadcast(3, from: app) { (try? s.state().button("chat").count) == 3 })
        let tools = ChildEnvironment.inherited(adding: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        for n in 1...2 {
            let notify = try ChildProcess(executable: "notify-send", arguments: ["-u", "critical", "message \(n)"], environment: tools)
            #expect(notify.waitForExit(timeout: 10) == .exited(0), "\(notify.stderrText)")
            let state = try SourceBindingTests.waitFor(s, "\(name) shows \(n)") { try $0.button("bell").count == n }
            #expect(try state.button("bell").json["confidence"]?.string == "current" && state.button("chat").count == 3)
        }
        let busctl = try ChildProcess(executable: "busctl", arguments: ["--address=" + bus.address, "call", "org.freedesktop.DBus",
                                                                         "/org/freedesktop/DBus", "org.freedesktop.DBus", "ListNames"],
                                      environment: tools, stdout: .null)
        #expect(busctl.waitForExit(timeout: 10) == .exited(0))
        try s.sync()
        let state = try s.state()
        let bell = try state.button("bell")
        #expect(bell.count == 2 && bell.json["confidence"]?.string == "current", "\(bell.json)")
        #expect(try state.button("chat").count == 3)
    }
}

/// Every kind of source on one toolbar at once (so every pair of kinds shares a toolbar):
/// notifications (dunst), Maildir, notmuch, a launcher count, a command and IMAP on Dovecot; after
/// an event on each, every button is exact and current.
@Suite("E2E: every kind of source on one toolbar", .endToEnd(minutes: 4),
       .enabled(if: access("/usr/sbin/dovecot", X_OK) == 0 && access("/usr/bin/notmuch", X_OK) == 0 && findOnPath("dunst") != nil
                && findOnPath("notify-send") != nil, "needs dovecot-imapd, notmuch, dunst and notify-send"))
struct EveryKindAtOnceTests {
    static func isShown(_ wanted: [String: Int?], in state: AppState) throws -> Bool {
        for (id, count) in wanted {
            let button = try state.button(id)
            guard button.json["confidence"]?.string == "current" else { return false }
            if let count { guard button.count == count else { return false } } else { guard button.contentKind == "none" else { return false } }
        }
        return true
    }

    static func expect(_ s: DemoSession, _ wanted: [String: Int?], after what: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let deadline = Deadline(seconds: 15)
        var state = try s.state()
        while try !isShown(wanted, in: state), !deadline.hasPassed {
            _ = try? s.app.readEvent(named: "change", timeout: 0.2)
            state = try s.state()
        }
        let shown = state.buttons.map { "\($0.id) \($0.count.map(String.init) ?? $0.contentKind) \($0.json["confidence"]?.string ?? "?") (\($0.description))" }
        #expect(try isShown(wanted, in: state), "after \(what): wanted \(wanted.sorted { $0.key < $1.key }); shown \(shown)", sourceLocation: sourceLocation)
    }

    @Test("dunst, Maildir, notmuch, a launcher, a command and IMAP live together: an event on each leaves every button exact")
    func sixKinds() throws {
        let live = try SixKinds("six-kinds")
        let (f, imap, s, chat) = (live.f, live.imap, live.s, live.chat)
        func notmuch(_ arguments: [String]) throws -> String { try live.notmuch(arguments) }
        var wanted: [String: Int?] = ["bell": nil, "mail": 2, "nm": 1, "chat": 5, "ci": 1, "imap": 1]
        try Self.expect(s, wanted, after: "the start")

        let notify = try ChildProcess(executable: "notify-send", arguments: ["-u", "critical", "hello"], environment: live.tools)
        #expect(notify.waitForExit(timeout: 10) == .exited(0))
        wanted["bell"] = 1
        try Self.expect(s, wanted, after: "a notification")

        try f.mailbox("Maildir/INBOX", "m.add('Subject: new\\n\\nbody')")
        wanted["mail"] = 3
        try Self.expect(s, wanted, after: "a Maildir delivery")

        try f.mailbox("mail/INBOX", "m.add('From: b@example.org\\nSubject: nm 2\\n\\nbody')")
        _ = try notmuch(["new", "--quiet"])
        wanted["nm"] = 2
        try Self.expect(s, wanted, after: "notmuch new")
        let first = try notmuch(["search", "--output=messages", "--limit=1", "tag:unread"])
        _ = try notmuch(["tag", "-unread", "--", first])
        wanted["nm"] = 1
        try Self.expect(s, wanted, after: "notmuch tag -unread")

        try chat.writeLine("count 6")
        _ = try chat.readLine(timeout: 10)
        wanted["chat"] = 6
        try Self.expect(s, wanted, after: "a new launcher count")

        f.write("ci-count", "3\n")
        try s.command("refresh ci")
        wanted["ci"] = 3
        try Self.expect(s, wanted, after: "the command's new count")

        try imap.deliver("Bob <bob@example.org>", "second")
        wanted["imap"] = 2
        try Self.expect(s, wanted, after: "an IMAP delivery")
    }
}

/// The six kinds' toolbar running (``EveryKindAtOnceTests`` and the live soak): the app on its own
/// bus with dunst, a launcher sender (`org.example.Chat`), Dovecot, a Maildir, a notmuch database
/// and a command; `extraButtons` adds buttons without a source (for producers).
final class SixKinds {
    let f: SourceBindingTests.Folder
    let imap: IMAPEndToEndTests.Server
    let bus: SessionBus
    let s: DemoSession
    let chat: ChildProcess
    let notmuchEnvironment: [String: String]
    /// For tools on the app's bus (and with its runtime folder, so `msg` finds its socket).
    let tools: ChildEnvironment
    /// The app's XDG_RUNTIME_DIR (its control socket is in there).
    let runtime: String
    /// The config file's text.
    let config: String
    private var daemon: ChildProcess?

    init(_ name: String, extraButtons: String = "") throws {
        f = try SourceBindingTests.Folder(name)
        imap = try IMAPEndToEndTests.Server(name)
        try imap.deliver("Ann <ann@example.org>", "first")
        for folder in ["/mail", "/Maildir", "/run"] { #expect(mkdir(f.path + folder, 0o700) == 0) }
        runtime = f.path + "/run"
        try f.mailbox("Maildir/INBOX", "for i in range(2): m.add('Subject: %d\\n\\nbody' % i)")
        try f.mailbox("mail/INBOX", "m.add('From: a@example.org\\nSubject: nm\\n\\nbody')")
        f.write("notmuch-config", "[database]\npath=\(f.path)/mail\n[user]\nname=Test\nprimary_email=test@example.org\n[new]\ntags=unread;inbox;\n[maildir]\nsynchronize_flags=true\n")
        notmuchEnvironment = ["NOTMUCH_CONFIG": f.path + "/notmuch-config", "HOME": f.path]
        _ = try Self.notmuch(["new", "--quiet"], environment: notmuchEnvironment)
        f.write("ci-count", "1\n")
        let imapSource = #"{"imap": {"host": "localhost", "port": \#(imap.port), "user": "alice", "caFile": "\#(imap.folder)/cert.pem", "keepalive": 2, "timeout": 2, "password": {"command": ["cat", "\#(imap.folder)/password"]}}}"#
        config = #"""
            {"buttons": [{"id": "bell", "icon": "bell", "source": {"notifications": true}},
                         {"id": "mail", "icon": "mail", "source": {"maildir": "\#(f.path)/Maildir", "folders": ["INBOX"]}},
                         {"id": "nm", "icon": "mail", "source": {"notmuch": "tag:unread"}},
                         {"id": "chat", "icon": "chat", "source": {"launcher": "org.example.Chat"}},
                         {"id": "ci", "icon": "updates", "source": {"command": ["cat", "\#(f.path)/ci-count"], "interval": 60}},
                         {"id": "imap", "icon": "mail", "source": \#(imapSource)}\#(extraButtons)]}
            """#
        f.write("config.json", config)
        let bus = try SessionBus()
        self.bus = bus
        tools = ChildEnvironment.inherited(adding: ["DBUS_SESSION_BUS_ADDRESS": bus.address, "XDG_RUNTIME_DIR": runtime])
        var started: ChildProcess?
        s = try DemoSession(name, arguments: ["--config", f.path + "/config.json", "--no-state"], screenWidth: 800,
                            environment: notmuchEnvironment.merging(["DBUS_SESSION_BUS_ADDRESS": bus.address, "XDG_RUNTIME_DIR": runtime]) { $1 }) { server, _ in
            started = try ChildProcess(executable: "dunst", arguments: [],
                                       environment: .inherited(adding: ["DISPLAY": server.display, "DBUS_SESSION_BUS_ADDRESS": bus.address]))
            try bus.waitForOwner(of: "org.freedesktop.Notifications")
        }
        daemon = started
        chat = try LauncherSender.start(bus: bus, desktopID: "org.example.Chat")
        try LauncherSender.broadcast(5, from: chat) { (try? s.state().button("chat").count) == 5 }
    }

    deinit {
        daemon?.kill(SIGKILL); daemon?.waitForExit(timeout: 5)
        chat.kill(SIGKILL); chat.waitForExit(timeout: 5)
    }

    /// Runs notmuch on the test's database; its first line of output.
    func notmuch(_ arguments: [String]) throws -> String { try Self.notmuch(arguments, environment: notmuchEnvironment) }

    static func notmuch(_ arguments: [String], environment: [String: String]) throws -> String {
        let tool = try ChildProcess(executable: "/usr/bin/notmuch", arguments: arguments, environment: .inherited(adding: environment))
        let output = try tool.readLine(timeout: 20) ?? ""
        #expect(tool.waitForExit(timeout: 20) == .exited(0), "notmuch \(arguments): \(tool.stderrText)")
        return output
    }
}
