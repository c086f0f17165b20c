import BadgeControl
import Glibc
import Synchronization
import Testing
import XvfbHarness

/// The bell bound to notifications counts from the first notification after the app starts or the
/// daemon appears (issue 27): dunst and notification-daemon started after the app, restarted, and
/// started by D-Bus activation from a `.service` file on the test's own bus.
@Suite("E2E: notifications counted from the first", .endToEnd(minutes: 2))
struct NotificationStartTests {
    static let config = #"{"buttons": [{"id": "bell", "icon": "bell", "label": "Notifications", "source": {"notifications": true}}]}"#
    static let dunstPresent = findOnPath("dunst") != nil && findOnPath("notify-send") != nil
    static let genericDaemon = "/usr/lib/notification-daemon/notification-daemon"
    /// A number per notification sent by this process.
    static let serial = Atomic<Int>(0)

    static func session(_ name: String, bus: SessionBus) throws -> (DemoSession, SourceBindingTests.Folder) {
        let f = try SourceBindingTests.Folder(name)
        f.write("config.json", config)
        let s = try DemoSession(name, arguments: ["--config", f.path + "/config.json", "--no-state"],
                                environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        return (s, f)
    }

    /// Sends `n` notifications, each with a text of its own (dunst stacks identical ones into one).
    /// No daemon yet, and the bell's source is watching for one (not current, never a confident 0).
    static func watching(_ state: AppState) throws -> Bool {
        let bell = try state.button("bell")
        return bell.json["confidence"]?.string == "stale" && bell.json["source"]?["error"]?.string?.contains("watching for one") == true
    }

    static func notify(_ n: Int, bus: SessionBus) throws {
        for _ in 1...n {
            let child = try ChildProcess(executable: "notify-send", arguments: ["-u", "critical", "message \(Self.serial.add(1, ordering: .relaxed).newValue)"],
                                         environment: .inherited(adding: ["DBUS_SESSION_BUS_ADDRESS": bus.address]))
            #expect(child.waitForExit(timeout: 10) == .exited(0), "notify-send: \(child.stderrText)")
        }
    }

    static func daemon(_ executable: String, arguments: [String] = [], display: String, bus: SessionBus) throws -> ChildProcess {
        let child = try ChildProcess(executable: executable, arguments: arguments,
                                     environment: .inherited(adding: ["DISPLAY": display, "DBUS_SESSION_BUS_ADDRESS": bus.address]))
        try bus.waitForOwner(of: "org.freedesktop.Notifications")
        return child
    }

    @Test("dunst started after the app, then restarted: every notification from the first is counted; no daemon is not current",
          .enabled(if: dunstPresent, "dunst or notify-send is not installed"))
    func dunstAfterTheApp() throws {
        let bus = try SessionBus()
        let (s, _) = try Self.session("notify-after", bus: bus)
        var state = try SourceBindingTests.waitFor(s, "no daemon yet: not current") { try Self.watching($0) }
        #expect(try state.button("bell").badge != nil, "the unknown mark, never a confident nothing")
        var dunst = try Self.daemon("dunst", display: s.server.display, bus: bus)
        defer { dunst.kill(SIGKILL); dunst.waitForExit(timeout: 5) }
        // At once after the daemon appears: none of them may be lost.
        try Self.notify(5, bus: bus)
        state = try SourceBindingTests.waitFor(s, "all five counted") { try $0.button("bell").count == 5 }
        #expect(try state.button("bell").json["confidence"]?.string == "current")
        // Restarted: the new daemon shows none of the old ones; its own are counted from the first.
        dunst.kill(SIGTERM)
        #expect(dunst.waitForExit(timeout: 10) != nil)
        _ = try SourceBindingTests.waitFor(s, "the daemon left: not current") { try Self.watching($0) }
        dunst = try Self.daemon("dunst", display: s.server.display, bus: bus)
        try Self.notify(2, bus: bus)
        state = try SourceBindingTests.waitFor(s, "the new daemon's two") { try $0.button("bell").count == 2 }
        #expect(try state.button("bell").json["confidence"]?.string == "current")
    }

    @Test("notification-daemon started after the app: every notification from the first is counted",
          .enabled(if: access(genericDaemon, X_OK) == 0 && findOnPath("notify-send") != nil, "notification-daemon or notify-send is not installed"))
    func genericDaemonAfterTheApp() throws {
        let bus = try SessionBus()
        let (s, _) = try Self.session("notify-generic-after", bus: bus)
        _ = try SourceBindingTests.waitFor(s, "no daemon yet") { try Self.watching($0) }
        let daemon = try Self.daemon(Self.genericDaemon, arguments: ["--replace"], display: s.server.display, bus: bus)
        defer { daemon.kill(SIGKILL); daemon.waitForExit(timeout: 5) }
        try Self.notify(4, bus: bus)
        let state = try SourceBindingTests.waitFor(s, "all four counted") { try $0.button("bell").count == 4 }
        #expect(try state.button("bell").json["confidence"]?.string == "current")
    }

    @Test("dunst started by D-Bus activation at the first notification (Debian's default): that first one is counted",
          .enabled(if: dunstPresent, "dunst or notify-send is not installed"))
    func dunstByActivation() throws {
        let services = try SourceBindingTests.Folder("notify-activation-services")
        let dunst = try #require(findOnPath("dunst"))
        // The display is known once the session runs: the script reads it when the bus starts it.
        services.write("start-dunst.sh", "#!/bin/sh\necho $$ > \(services.path)/pid\nDISPLAY=$(cat \(services.path)/display) exec \(dunst)\n")
        #expect(chmod(services.path + "/start-dunst.sh", 0o755) == 0)
        services.write("org.freedesktop.Notifications.service",
                       "[D-BUS Service]\nName=org.freedesktop.Notifications\nExec=\(services.path)/start-dunst.sh\n")
        let bus = try SessionBus(serviceFolder: services.path)
        let (s, _) = try Self.session("notify-activation", bus: bus)
        defer {
            if let pid = Int32(String(decoding: (try? readProcFile(services.path + "/pid")) ?? [], as: UTF8.self).split(separator: "\n").first ?? "") {
                kill(pid, SIGKILL)
            }
        }
        services.write("display", s.server.display)
        _ = try SourceBindingTests.waitFor(s, "no daemon yet") { try Self.watching($0) }
        try Self.notify(1, bus: bus)
        var state = try SourceBindingTests.waitFor(s, "the notification that started dunst is counted") { try $0.button("bell").count == 1 }
        try Self.notify(2, bus: bus)
        state = try SourceBindingTests.waitFor(s, "and the next ones") { try $0.button("bell").count == 3 }
        #expect(try state.button("bell").json["confidence"]?.string == "current")
    }
}
