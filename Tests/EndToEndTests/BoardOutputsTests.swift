import BadgeControl
import BadgeCore
import Glibc
import Testing
import XvfbHarness

/// One board (issue 27): whatever the input, every output shows the same final state: the window's
/// pixels, `state`, a socket subscriber, the D-Bus property and the saved file.
@Suite("E2E: every output sees every input's change", .endToEnd(minutes: 2),
       .enabled(if: BusClients.available, "needs busctl, gdbus, dbus-send and dbus-daemon"))
struct BoardOutputsTests {
    @Test("The control channel, a click, the socket and D-Bus: state, a --watch subscriber, D-Bus, the saved file and the pixels agree")
    func everyInputReachesEveryOutput() throws {
        let runtime = try Artifacts.path(for: "board-\(getpid())")
        removeTree(runtime)
        #expect(mkdir(runtime, 0o700) == 0)
        defer { removeTree(runtime) }
        let statePath = runtime + "/badge-demo/state.json"
        let bus = try SessionBus()
        // The default profile (its bus name), its state file in the test's own XDG_STATE_HOME.
        let s = try DBusInterfaceTests.start("board", bus: bus, arguments: [],
                                             environment: ["XDG_RUNTIME_DIR": runtime, "XDG_STATE_HOME": runtime])
        let clients = BusClients(address: bus.address)
        let demo = try BuiltProducts.executable(named: "badge-demo")
        let watcher = try ChildProcess(executable: demo, arguments: ["msg", "--watch"],
                                       environment: .inherited(adding: ["XDG_RUNTIME_DIR": runtime], removing: ["DISPLAY"]))
        defer { watcher.kill(SIGKILL); watcher.waitForExit(timeout: 5) }
        #expect(try JSONValue(parsing: try #require(try watcher.readLine(timeout: 10)))["event"]?.string == "state")
        try s.moveAwayAndSync()
        let mail = try s.state().button("mail")
        var lastPixels = try s.capture(mail.badge ?? mail.button).pixels

        let inputs: [(String, Int, () throws -> Void)] = [
            ("control", 20, { try s.command("set mail 20") }),
            ("click", 21, { try s.click(MouseButton.left, on: "mail") }),
            ("socket", 30, {
                let msg = try ChildProcess(executable: demo, arguments: ["msg", "set", "mail", "30"],
                                           environment: .inherited(adding: ["XDG_RUNTIME_DIR": runtime], removing: ["DISPLAY"]))
                #expect(msg.waitForExit(timeout: 10) == .exited(0), "\(msg.stderrText)")
            }),
            ("dbus", 40, {
                let result = try clients.call("Set", "sx", "mail", "40")
                #expect(result.succeeded, "\(result)")
            }),
        ]
        for (cause, expected, input) in inputs {
            try input()
            // The --control stream: the change, with its cause.
            let change = try s.app.readEvent(named: "change", timeout: 10) { $0["id"]?.string == "mail" }
            #expect(change["text"]?.string == "\(expected)" && change["cause"]?.string == (cause == "socket" || cause == "dbus" ? "control" : cause),
                    "\(cause): \(change)")
            // state.
            #expect(try s.state().button("mail").count == expected, "\(cause): state")
            // A socket subscriber.
            var watched: JSONValue?
            while watched?["id"]?.string != "mail", let line = try watcher.readLine(timeout: 10) { watched = try JSONValue(parsing: line) }
            #expect(watched?["text"]?.string == "\(expected)", "\(cause): --watch saw \(watched.map { "\($0)" } ?? "nothing")")
            // D-Bus.
            let badges = try clients.property("Badges")
            #expect(badges["mail"]?["count"]?["data"]?.int == expected || badges["mail"]?["count"]?.int == expected,
                    "\(cause): D-Bus Badges \(badges["mail"] ?? .null)")
            // The saved file, within its half-second delay.
            let saved = Deadline(seconds: 5)
            var file = ""
            repeat {
                file = String(decoding: (try? readProcFile(statePath)) ?? [], as: UTF8.self)
                if file.contains(#""mail":{"kind":"count","count":\#(expected)"#) { break }
                try s.sync()
            } while !saved.hasPassed
            #expect(file.contains(#""mail":{"kind":"count","count":\#(expected)"#), "\(cause): saved \(file)")
            // The pixels.
            try s.moveAwayAndSync()
            let badge = try s.state().button("mail")
            let pixels = try s.capture(badge.badge ?? badge.button).pixels
            #expect(pixels != lastPixels, "\(cause): the window shows the new count")
            lastPixels = pixels
        }
    }
}
