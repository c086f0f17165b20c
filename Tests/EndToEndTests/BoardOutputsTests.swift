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
            // Its change event (a tooltip shown over the clicked button also names mail, on a slow machine).
            while !(watched?["event"]?.string == "change" && watched?["id"]?.string == "mail"), let line = try watcher.readLine(timeout: 10) {
                watched = try JSONValue(parsing: line)
            }
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

/// Every input kind, with a screen reader and a D-Bus signal watcher among the outputs (issue 27):
/// the control channel, a click, a key, the socket, D-Bus, the screen reader, a source and a config
/// reload each reach the `--control` stream, `state`, a `--watch` subscriber, a `BadgeChanged`
/// signal, the `Badges` property, pyatspi's description, the tray's tooltip (StatusNotifierItem),
/// the saved file and the pixels.
@Suite("E2E: every input kind reaches every output, the screen reader and D-Bus signals included", .endToEnd(minutes: 3),
       .enabled(if: BusClients.available && AccessibilityStack.isAvailable && access("/usr/lib/python3/dist-packages/dbus", F_OK) == 0,
                "needs busctl, gdbus, dbus-send, dbus-daemon, at-spi2-core, python3-pyatspi and python3-dbus"))
struct BoardInputKindsTests {
    @Test("control, click, key, socket, D-Bus, screen reader, source and config reload: every output agrees, the tray too")
    func everyInputKind() throws {
        let folder = try Artifacts.path(for: "board-kinds-\(getpid())")
        removeTree(folder)
        #expect(mkdir(folder, 0o700) == 0)
        defer { removeTree(folder) }
        let value = folder + "/value", config = folder + "/config.json"
        func write(_ path: String, _ text: String) {
            let file = fopen(path + ".new", "w")
            fputs(text, file)
            fclose(file)
            rename(path + ".new", path)
        }
        write(value, "3\n")
        let mailButton = #"{"id": "mail", "icon": "mail", "label": "Mail"}"#
        let ciButton = #"{"id": "ci", "icon": "updates", "label": "CI", "source": {"command": ["cat", "\#(value)"]}}"#
        write(config, #"{"buttons": [\#(mailButton), \#(ciButton)]}"#)

        var made: AccessibilityStack?
        let s = try DemoSession("board-kinds", arguments: ["--config", config],
                                environment: ["XDG_STATE_HOME": folder, "XDG_CONFIG_HOME": folder], prepare: { server, x in
            let stack = try AccessibilityStack(display: server.display, x: x)
            made = stack
            return stack.environment
        })
        let stack = try #require(made)
        // The tray: a StatusNotifierWatcher that appears after the app, as a panel started later does.
        let tray = try WatcherStandIn(bus: stack.bus, name: "org.kde.StatusNotifierWatcher")
        #expect(try tray.next()["registered"]?.string?.hasPrefix("org.kde.StatusNotifierItem-") == true)
        try pollUntil("the tray item is registered") { try s.trayState()["kind"]?.string == "sni" }
        let reader = try stack.screenReader()
        try reader.find()
        try reader.listen(["object:property-change:accessible-description"])
        try stack.bus.waitForOwner(of: BusClients.name)
        let clients = BusClients(address: stack.bus.address)
        let demo = try BuiltProducts.executable(named: "badge-demo")
        let msgEnvironment = ChildEnvironment.inherited(adding: ["XDG_RUNTIME_DIR": stack.runtimeFolder], removing: ["DISPLAY"])
        let watcher = try ChildProcess(executable: demo, arguments: ["msg", "--watch"], environment: msgEnvironment)
        defer { watcher.kill(SIGKILL); watcher.waitForExit(timeout: 5) }
        #expect(try JSONValue(parsing: try #require(try watcher.readLine(timeout: 10)))["event"]?.string == "state")
        let monitor = try clients.start("gdbus", ["monitor", "--dest", BusClients.name])
        defer { monitor.kill(SIGTERM) }
        // gdbus may drop signals until it has heard a first one: mail is set until one is heard.
        let primed = Deadline(seconds: 10)
        var heard = false
        while !heard, !primed.hasPassed {
            try s.command("set mail 1")
            _ = try s.nextChange()
            while !heard, let line = try? monitor.readLine(timeout: 0.5) { heard = line.contains(".BadgeChanged ('mail'") }
        }
        try #require(heard, "gdbus monitor heard no BadgeChanged")
        _ = try SourceBindingTests.waitFor(s, "the command's 3") { try $0.button("ci").count == 3 }
        try s.sync()
        while (try? s.app.readEvent(named: "change", timeout: 0.3)) != nil {}
        while (try? monitor.readLine(timeout: 0.3)) != nil {}
        while (try? watcher.readLine(timeout: 0.3)) != nil {}
        _ = try reader.events(timeout: 0.3)

        var lastPixels: [String: [RGB]] = [:]
        for id in ["mail", "ci"] {
            let button = try s.state().button(id)
            lastPixels[id] = try s.capture(button.badge ?? button.button).pixels
        }

        /// Every output shows `id` at `expected`, the change having come with `cause`.
        func expectEverywhere(_ input: String, _ id: String, _ expected: Int, cause: String, index: Int) throws {
            let change = try s.app.readEvent(named: "change", timeout: 10) { $0["id"]?.string == id }
            #expect(change["text"]?.string == "\(expected)" && change["cause"]?.string == cause, "\(input): --control \(change)")
            #expect(try s.state().button(id).count == expected, "\(input): state")
            var watched: JSONValue?
            while watched?["id"]?.string != id, let line = try watcher.readLine(timeout: 10) { watched = try JSONValue(parsing: line) }
            #expect(watched?["text"]?.string == "\(expected)", "\(input): --watch saw \(watched.map { "\($0)" } ?? "nothing")")
            var signal = ""
            while !signal.contains(".BadgeChanged ('\(id)'"), let line = try? monitor.readLine(timeout: 10) { signal = line }
            #expect(signal.contains("'count': <int64 \(expected)>"), "\(input): BadgeChanged \(signal)")
            let badges = try clients.property("Badges")
            #expect(badges[id]?["count"]?["data"]?.int == expected || badges[id]?["count"]?.int == expected,
                    "\(input): D-Bus Badges \(badges[id] ?? .null)")
            // The screen reader: the description pyatspi holds (kept current by the change events).
            let spoken = Deadline(seconds: 10)
            var description = ""
            repeat {
                _ = try reader.events(count: 1, timeout: 1)
                description = node(try reader.tree(), [0, 0, index])?["description"]?.string ?? ""
            } while !description.contains("\(expected)") && !spoken.hasPassed
            #expect(description.contains("\(expected)"), "\(input): the screen reader has \(description)")
            // The tray's tooltip.
            let tipped = Deadline(seconds: 10)
            var tooltip = ""
            repeat { tooltip = try tray.ask("tooltip")["text"]?.string ?? "" } while !tooltip.contains("\(expected)") && !tipped.hasPassed
            #expect(tooltip.contains("\(expected)"), "\(input): the tray's tooltip \(tooltip)")
            let saved = Deadline(seconds: 5)
            var file = ""
            repeat {
                file = String(decoding: (try? readProcFile(folder + "/badge-demo/state.json")) ?? [], as: UTF8.self)
                if file.contains(#""\#(id)":{"kind":"count","count":\#(expected)"#) { break }
                try s.sync()
            } while !saved.hasPassed
            #expect(file.contains(#""\#(id)":{"kind":"count","count":\#(expected)"#), "\(input): saved \(file)")
            try s.moveAwayAndSync()
            let button = try s.state().button(id)
            let pixels = try s.capture(button.badge ?? button.button).pixels
            #expect(pixels != lastPixels[id], "\(input): the window shows the new count")
            lastPixels[id] = pixels
        }

        try s.command("set mail 20")
        try expectEverywhere("control", "mail", 20, cause: "control", index: 0)
        try s.click(MouseButton.left, on: "mail")
        try expectEverywhere("click", "mail", 21, cause: "click", index: 0)
        try s.focusWindow()
        try s.key(Keysym.space)
        try expectEverywhere("key", "mail", 22, cause: "key", index: 0)
        let msg = try ChildProcess(executable: demo, arguments: ["msg", "set", "mail", "30"], environment: msgEnvironment)
        #expect(msg.waitForExit(timeout: 10) == .exited(0), "\(msg.stderrText)")
        try expectEverywhere("socket", "mail", 30, cause: "control", index: 0)
        #expect(try clients.call("Set", "sx", "mail", "40").succeeded)
        try expectEverywhere("dbus", "mail", 40, cause: "control", index: 0)
        #expect(try reader.action("click", at: [0, 0, 0]))
        try expectEverywhere("screen reader", "mail", 41, cause: "accessibility", index: 0)
        write(value, "7\n")
        let refresh = try ChildProcess(executable: demo, arguments: ["msg", "refresh", "ci"], environment: msgEnvironment)
        #expect(refresh.waitForExit(timeout: 10) == .exited(0), "\(refresh.stderrText)")
        try expectEverywhere("source", "ci", 7, cause: "source", index: 1)

        // A config reload adds a button: the --control and --watch streams get a config event, D-Bus
        // says Buttons changed, the screen reader and state see three buttons.
        write(config, #"{"buttons": [\#(mailButton), \#(ciButton), {"id": "chat", "icon": "chat", "label": "Chat"}]}"#)
        let reloaded = try s.app.readEvent(named: "config", timeout: 10)
        #expect(reloaded["state"]?["buttons"]?.array?.count == 3, "\(reloaded)")
        var watchedConfig: JSONValue?
        while watchedConfig?["event"]?.string != "config", let line = try watcher.readLine(timeout: 10) {
            watchedConfig = try JSONValue(parsing: line)
        }
        #expect(watchedConfig?["state"]?["buttons"]?.array?.count == 3, "--watch: \(watchedConfig.map { "\($0)" } ?? "nothing")")
        var buttonsSignal = ""
        while !buttonsSignal.contains("PropertiesChanged") || !buttonsSignal.contains("'Buttons'"),
              let line = try? monitor.readLine(timeout: 10) { buttonsSignal = line }
        #expect(buttonsSignal.contains("'chat'"), "D-Bus: \(buttonsSignal)")
        let ids = try s.state().buttons.map { $0.id }
        #expect(ids == ["mail", "ci", "chat"])
        let shown = Deadline(seconds: 10)
        var names: [String] = []
        repeat {
            _ = try reader.events(timeout: 0.5)
            names = (node(try reader.tree(), [0, 0])?["children"]?.array ?? []).compactMap { $0["name"]?.string }
        } while names.count != 3 && !shown.hasPassed
        #expect(names.count == 3 && names.last?.contains("Chat") == true, "the screen reader's buttons: \(names)")
        try s.moveAwayAndSync()
        let chat = try s.capture(s.state().button("chat").button)
        #expect(Set(chat.pixels.map { "\($0.r),\($0.g),\($0.b)" }).count > 1, "the new button is drawn")
    }
}

/// One event stream (issue 35): what `--control` hears besides changes (the peek, a producer's
/// items, reduced motion, errors no command asked for) a socket subscriber hears too, line for line.
@Suite("E2E: one event stream", .endToEnd(minutes: 2))
struct OneEventStreamTests {
    @Test("peek, item and motion events reach --control and a --watch subscriber alike")
    func sameEventsOnEveryStream() throws {
        let runtime = try Artifacts.path(for: "stream-\(getpid())")
        removeTree(runtime)
        #expect(mkdir(runtime, 0o700) == 0)
        defer { removeTree(runtime) }
        let s = try DemoSession("one-stream", arguments: ["--no-state"], environment: ["XDG_RUNTIME_DIR": runtime])
        let demo = try BuiltProducts.executable(named: "badge-demo")
        let watcher = try ChildProcess(executable: demo, arguments: ["msg", "--watch"],
                                       environment: .inherited(adding: ["XDG_RUNTIME_DIR": runtime], removing: ["DISPLAY"]))
        defer { watcher.kill(SIGKILL); watcher.waitForExit(timeout: 5) }
        #expect(try JSONValue(parsing: try #require(try watcher.readLine(timeout: 10)))["event"]?.string == "state")
        /// The next line of the subscriber's that is an `event` event (changes and urgency skipped).
        func watched(_ event: String) throws -> JSONValue {
            let deadline = Deadline(seconds: 10)
            while !deadline.hasPassed {
                guard let line = try watcher.readLine(timeout: max(0.1, Double(deadline.remainingMilliseconds) / 1000)) else { break }
                let value = try JSONValue(parsing: line)
                if value["event"]?.string == event { return value }
            }
            throw HarnessError("the subscriber never saw a \(event) event")
        }
        try s.command("add chat k1 Alice Lunch?")
        try s.sync()
        // The peek of chat (the third button), from the keyboard: its Menu key.
        try s.focusWindow()
        for _ in 1...3 { try s.key(Keysym.tab) }
        #expect(try s.focusedButton() == "chat")
        try s.key(PeekKeysym.menu)
        let opened = try s.app.readEvent(named: "peek", timeout: 10) { $0["action"]?.string == "opened" }
        let seen = try watched("peek")
        #expect(seen["action"] == opened["action"] && seen["id"] == opened["id"], "\(seen) vs \(opened)")
        // Down to Alice's row, Return activates the producer's item: the item event, on both streams.
        try s.key(PeekKeysym.down)
        try s.key(Keysym.returnKey)
        let item = try s.app.readEvent(named: "item", timeout: 10)
        #expect(item["action"]?.string == "activated" && item["key"]?.string == "k1", "\(item)")
        let watchedItem = try watched("item")
        #expect(watchedItem["key"]?.string == "k1" && watchedItem["id"]?.string == "chat", "\(watchedItem)")
        // Reduced motion toggled with the demo's key: motion, on both streams.
        try s.key(Keysym.r)
        let motion = try s.app.readEvent(named: "motion", timeout: 10)
        #expect(try watched("motion")["reduced"] == motion["reduced"])
    }
}
