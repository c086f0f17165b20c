import BadgeCore
import Glibc
import Testing
import XvfbHarness
import BadgeControl

/// A node of the tree atspi-client.py writes, found by its child-index path.
func node(_ tree: JSONValue, _ path: [Int]) -> JSONValue? {
    var current: JSONValue? = tree
    for index in path { current = current?["children"]?[index] }
    return current
}

private func rect(_ value: JSONValue?) -> PixelRect? {
    guard let list = value?.array, list.count == 4, let x = list[0].int, let y = list[1].int,
          let width = list[2].int, let height = list[3].int else { return nil }
    return PixelRect(x: x, y: y, width: width, height: height)
}

private func strings(_ value: JSONValue?) -> [String] { value?.array?.compactMap(\.string) ?? [] }

/// A demo with an accessibility stack of its own, and a screen reader on it.
private struct AccessibleDemo {
    let stack: AccessibilityStack
    let session: DemoSession
    let reader: ScreenReader

    /// Starts the stack (publishing AT_SPI_BUS on the display unless `rootProperty` is false), the
    /// demo, and pyatspi, which waits until the demo is on the desktop.
    init(_ name: String, arguments: [String] = [], rootProperty: Bool = true, environment: [String: String] = [:],
         beforeLaunch: ((XvfbServer, XTestClient) throws -> Void)? = nil, find: Bool = true) throws {
        var made: AccessibilityStack?
        session = try DemoSession(name, arguments: arguments, environment: environment, beforeLaunch: beforeLaunch) { server, x in
            let stack = try AccessibilityStack(display: rootProperty ? server.display : nil, x: x)
            made = stack
            return stack.environment
        }
        guard let made else { throw HarnessError("no accessibility stack") }
        stack = made
        reader = try made.screenReader()
        if find { try reader.find() }
    }

    /// The demo's `accessibility` answer in `state`.
    func accessibility() throws -> JSONValue {
        try session.command("state")
        return try session.app.readEvent(named: "state", timeout: 10)["accessibility"] ?? .null
    }

    /// Waits until the demo says it is registered.
    func waitUntilRegistered() throws {
        let deadline = Deadline(seconds: 15)
        while try accessibility()["status"]?.string != "registered" {
            if deadline.hasPassed { throw HarnessError("not registered: \(try accessibility())") }
            _ = try session.app.readEvent(named: "accessibility", timeout: 1)
        }
    }
}

extension DemoSession {
    /// The root position of window pixel (x, y).
    func screenPoint(_ x: Int, _ y: Int) throws -> (x: Int, y: Int) { try self.x.rootPoint(inWindow: window, x: x, y: y) }
}

/// Compares the screen reader's tree with the demo's own `state`: roles, names, descriptions, states
/// and extents (in the window and on the screen).
private func expectTreeMatchesState(_ demo: AccessibleDemo, label: String) throws {
    let tree = try demo.reader.tree()
    try demo.session.command("state")
    let state = try demo.session.app.readEvent(named: "state", timeout: 10)
    #expect(tree["role"]?.string == "application" && tree["name"]?.string == "badge-demo", "\(label): \(tree["role"] ?? .null)")
    #expect(tree["childCount"]?.int == 1)
    let frame = node(tree, [0]), toolBar = node(tree, [0, 0])
    #expect(frame?["role"]?.string == "frame" && frame?["name"]?.string == state["title"]?.string,
            "\(label): the frame is named like the title: \(frame?["name"] ?? .null) vs \(state["title"] ?? .null)")
    let windowFocused = state["windowFocused"]?.bool == true
    #expect(strings(frame?["states"]).contains("active") == windowFocused, "\(label): frame active = window focused")
    #expect(toolBar?["role"]?.string == "tool bar")
    let buttons = state["buttons"]?.array ?? []
    #expect(toolBar?["childCount"]?.int == buttons.count && buttons.count == 4)
    for (index, button) in buttons.enumerated() {
        let id = button["id"]?.string ?? "?"
        guard let pushButton = node(tree, [0, 0, index]) else {
            Issue.record("\(label): no push button \(index)")
            continue
        }
        #expect(pushButton["role"]?.string == "push button", "\(label) \(id)")
        #expect(pushButton["name"]?.string == button["label"]?.string, "\(label) \(id): name = label")
        #expect(pushButton["description"]?.string == button["description"]?.string, "\(label) \(id): description = badge's")
        #expect(pushButton["index"]?.int == index)
        let states = Set(strings(pushButton["states"]))
        #expect(states.isSuperset(of: ["enabled", "focusable", "sensitive", "showing", "visible"]), "\(label) \(id): \(states)")
        #expect(states.contains("focused") == (windowFocused && state["focused"]?.string == id), "\(label) \(id): focused")
        guard let frameInWindow = PixelRect(json: button["button"]) else { continue }
        #expect(rect(pushButton["window"]) == frameInWindow, "\(label) \(id): window extents")
        let origin = try demo.session.screenPoint(frameInWindow.x, frameInWindow.y)
        let onScreen = PixelRect(x: origin.x, y: origin.y, width: frameInWindow.width, height: frameInWindow.height)
        #expect(rect(pushButton["screen"]) == onScreen, "\(label) \(id): screen extents \(pushButton["screen"] ?? .null) vs \(onScreen)")
        let actions = pushButton["actions"]?.array ?? []
        #expect(actions.compactMap { $0["name"]?.string } == ["click", "decrement", "clear"], "\(label) \(id)")
        #expect(actions.allSatisfy { !($0["description"]?.string ?? "").isEmpty })
    }
}

@Suite("E2E: screen readers (AT-SPI2 through at-spi2-core and pyatspi)", .endToEnd(minutes: 3),
       .enabled(if: AccessibilityStack.isAvailable, "needs at-spi2-core, python3-pyatspi and dbus-daemon"))
struct AccessibilityTests {
    @Test("The tree: application → frame → tool bar → push buttons, matching the demo's state")
    func treeMatchesState() throws {
        let demo = try AccessibleDemo("a11y-tree", arguments: ["--count", "mail=7"])
        try demo.waitUntilRegistered()
        #expect(try demo.accessibility()["bus"]?.string?.hasPrefix(":") == true)
        try expectTreeMatchesState(demo, label: "unfocused")
        try demo.session.focusWindow()
        try expectTreeMatchesState(demo, label: "focused")
        // The object under a point, as a screen reader's mouse review asks.
        let mail = try demo.session.state().button("mail").button
        let point = try demo.session.screenPoint(mail.x + mail.width / 2, mail.y + mail.height / 2)
        let hit = try demo.reader.request(.object([("op", .string("at")), ("x", .int(point.x)), ("y", .int(point.y))]))
        #expect(hit["role"]?.string == "push button" && hit["name"]?.string == "Mail", "\(hit)")
    }

    @Test("In the user's language: German names, descriptions and action descriptions")
    func german() throws {
        let demo = try AccessibleDemo("a11y-de", environment: ["LANG": "de_DE.UTF-8", "LC_ALL": "de_DE.UTF-8", "LANGUAGE": "",
                                                               "BADGEKIT_LOCALEDIR": LocaleTests.catalogues])
        let mail = node(try demo.reader.tree(), [0, 0, 1])
        #expect(mail?["name"]?.string == "E-Mail" && mail?["description"]?.string == "E-Mail, 12 ungelesen", "\(mail ?? .null)")
        #expect(mail?["actions"]?[0]?["description"]?.string == "Erhöht den Zähler um eins", "\(mail?["actions"] ?? .null)")
        #expect(mail?["actions"]?[0]?["name"]?.string == "click", "action names stay identifiers")
    }

    @Test("Found through org.a11y.Bus on the session bus when the root window has no AT_SPI_BUS")
    func foundThroughTheSessionBus() throws {
        let demo = try AccessibleDemo("a11y-session", rootProperty: false)
        #expect(try demo.session.x.property(window: demo.session.x.root, name: "AT_SPI_BUS") == nil)
        try demo.waitUntilRegistered()
        let tree = try demo.reader.tree()
        #expect(node(tree, [0, 0, 1])?["description"]?.string == "Mail, 12 unread", "\(tree)")
    }

    @Test("doAction: click, decrement and clear change the count and the pixels, as clicks do")
    func actions() throws {
        let demo = try AccessibleDemo("a11y-actions")
        // Listening keeps pyatspi's cache of descriptions current (the bridge sends their changes then).
        try demo.reader.listen(["object:property-change:accessible-description"])
        try demo.session.moveAwayAndSync()
        let mail = try demo.session.state().button("mail")
        let before = try demo.session.capture(mail.button)
        #expect(try demo.reader.action("click", at: [0, 0, 1]))
        let clicked = try demo.session.nextChange()
        #expect(clicked["cause"]?.string == "accessibility" && clicked["text"]?.string == "13", "\(clicked)")
        try demo.session.sync()
        let after = try demo.session.capture(mail.button)
        expectPixels(before.pixels != after.pixels, "the badge is repainted after doAction(click)",
                     images: ["before": before, "after": after], test: "a11y-actions")
        _ = try demo.reader.events(count: 1, timeout: 5)
        #expect(node(try demo.reader.tree(), [0, 0, 1])?["description"]?.string == "Mail, 13 unread")
        #expect(try demo.reader.action("decrement", at: [0, 0, 1]))
        #expect(try demo.session.nextChange()["text"]?.string == "12")
        #expect(try demo.reader.action("clear", at: [0, 0, 1]))
        let cleared = try demo.session.nextChange()
        #expect(cleared["content"]?["count"]?.int == 0, "\(cleared)")
        try demo.session.sync()
        let gone = try demo.session.capture(mail.badge ?? mail.button)
        #expect(!gone.pixels.contains(where: isBadgeRed), "no red badge after clear")
        // grabFocus moves the keyboard focus.
        let focus = try demo.reader.request(.object([("op", .string("focus")), ("path", .array([.int(0), .int(0), .int(2)]))]))
        #expect(focus["done"]?.bool == true)
        #expect(try demo.session.focusedButton() == "chat")
    }

    @Test("Under PutImage (BADGEKIT_SHM=0), a source that goes stale reaches the screen reader: no X event has to come by")
    func staleReachesTheReaderWithoutSHM() throws {
        let folder = try Artifacts.path(for: "a11y-stale-\(getpid())")
        removeTree(folder)
        #expect(mkdir(folder, 0o700) == 0)
        defer { removeTree(folder) }
        let value = folder + "/value"
        func put(_ text: String) { let file = fopen(value, "w"); fputs(text, file); fclose(file) }
        put("4\n")
        let config = folder + "/config.json"
        let file = fopen(config, "w")
        fputs(#"{"buttons": [{"id": "ci", "icon": "updates", "label": "CI", "source": {"command": ["cat", "\#(value)"]}}]}"#, file)
        fclose(file)
        let demo = try AccessibleDemo("a11y-stale", arguments: ["--config", config, "--no-state"], environment: ["BADGEKIT_SHM": "0"])
        try demo.reader.listen(["object:property-change:accessible-description"])
        _ = try SourceBindingTests.waitFor(demo.session, "the command's 4") { try $0.button("ci").count == 4 }
        try demo.session.moveAwayAndSync()
        _ = try demo.reader.events(timeout: 1)
        // The source fails: only its confidence changes, nothing the X server sends.
        put("junk\n")
        try demo.session.command("refresh ci")
        let stale = try SourceBindingTests.waitFor(demo.session, "stale") { try $0.button("ci").json["confidence"]?.string == "stale" }
        let description = try stale.button("ci").description
        #expect(description.hasSuffix("not up to date"), "\(description)")
        let deadline = Deadline(seconds: 10)
        var heard: [JSONValue] = []
        while !heard.contains(where: { ($0["data"]?.string ?? "").contains("not up to date") }), !deadline.hasPassed {
            heard += try demo.reader.events(timeout: 1)
        }
        #expect(heard.contains { ($0["data"]?.string ?? "").contains("not up to date") }, "the reader heard: \(heard)")
        #expect(node(try demo.reader.tree(), [0, 0, 0])?["description"]?.string == description)
    }

    @Test("The peek: a window with a menu of its items, announced when it opens; a menu item's action activates it")
    func peek() throws {
        let demo = try AccessibleDemo("a11y-peek")
        try demo.reader.listen(["window:create", "window:activate", "object:state-changed:focused", "window:destroy"])
        try demo.session.command("add mail a Alice Smith\tLunch at noon?")
        try demo.session.command("add mail b Bob\tThe build is broken")
        try demo.session.sync()
        _ = try demo.reader.events()
        try demo.session.focusWindow()
        try demo.session.key(Keysym.tab)
        try demo.session.key(Keysym.tab)
        try demo.session.key(PeekKeysym.menu)
        _ = try demo.session.peekEvent("opened")
        // The focus events of the Tabs may still be on their way: read until the peek's are heard.
        var events: [JSONValue] = []
        let heard = Deadline(seconds: 10)
        func complete() -> Bool {
            events.contains { $0["event"]?.string == "window:create" }
                && events.contains { $0["event"]?.string == "object:state-changed:focused" && $0["source"]?.string == "Bob" }
        }
        while !complete(), !heard.hasPassed { events += try demo.reader.events(timeout: 1) }
        #expect(events.contains { $0["event"]?.string == "window:create" }, "\(events)")
        #expect(events.contains { $0["event"]?.string == "window:activate" }, "\(events)")
        #expect(events.contains { $0["event"]?.string == "object:state-changed:focused" && $0["source"]?.string == "Bob"
                    && $0["detail1"]?.int == 1 }, "the highlighted item is focused: \(events)")
        let tree = try demo.reader.tree()
        #expect(tree["childCount"]?.int == 2, "the application holds the frame and the peek's window")
        let window = node(tree, [1]), menu = node(tree, [1, 0])
        #expect(window?["role"]?.string == "window" && strings(window?["states"]).contains("active"), "\(window ?? .null)")
        #expect(menu?["role"]?.string == "menu" && menu?["childCount"]?.int == 2)
        let bob = node(tree, [1, 0, 0]), alice = node(tree, [1, 0, 1])
        #expect(bob?["role"]?.string == "menu item" && bob?["name"]?.string == "Bob", "\(bob ?? .null)")
        #expect(bob?["description"]?.string?.hasPrefix("The build is broken") == true)
        let bobStates = Set(strings(bob?["states"]))
        #expect(bobStates.isSuperset(of: ["focused", "selected", "enabled", "showing"]), "\(bobStates)")
        #expect(alice?["name"]?.string == "Alice Smith" && !strings(alice?["states"]).contains("focused"))
        let mailButton = node(tree, [0, 0, 1])
        let mailStates = Set(strings(mailButton?["states"]))
        #expect(mailStates.isSuperset(of: ["expanded", "has popup"]), "\(mailStates)")
        // The screen reader activates Alice's item: the producer hears it, and the peek closes.
        #expect(try demo.reader.action("click", at: [1, 0, 1]))
        let item = try demo.session.app.readEvent(named: "item", timeout: 10)
        #expect(item["action"]?.string == "activated" && item["key"]?.string == "a", "\(item)")
        _ = try demo.session.peekEvent("closed")
        try demo.session.sync()
        #expect(try demo.reader.tree()["childCount"]?.int == 1, "the peek's window is gone from the tree")
    }

    @Test("The peek a bar opens (peek ID --at X,Y): the same window and menu for the screen reader, announced, its items act")
    func peekFromABar() throws {
        let demo = try AccessibleDemo("a11y-peek-bar")
        try demo.reader.listen(["window:create", "window:destroy"])
        try demo.session.command("add mail a Alice Smith\tLunch at noon?")
        try demo.session.command("add mail b Bob\tThe build is broken")
        try demo.session.sync()
        _ = try demo.reader.events()
        try demo.session.command("peek mail --at 300,300")
        _ = try demo.session.peekEvent("opened")
        var events: [JSONValue] = []
        let heard = Deadline(seconds: 10)
        while !events.contains(where: { $0["event"]?.string == "window:create" }), !heard.hasPassed { events += try demo.reader.events(timeout: 1) }
        #expect(events.contains { $0["event"]?.string == "window:create" }, "\(events)")
        let tree = try demo.reader.tree()
        let menu = node(tree, [1, 0])
        #expect(node(tree, [1])?["role"]?.string == "window" && menu?["role"]?.string == "menu" && menu?["childCount"]?.int == 2, "\(tree)")
        #expect(node(tree, [1, 0, 0])?["name"]?.string == "Bob" && node(tree, [1, 0, 1])?["name"]?.string == "Alice Smith")
        #expect(try demo.reader.action("click", at: [1, 0, 1]))
        let item = try demo.session.app.readEvent(named: "item", timeout: 10)
        #expect(item["action"]?.string == "activated" && item["key"]?.string == "a", "\(item)")
        _ = try demo.session.peekEvent("closed")
    }

    @Test("Events: focus moves, badge changes (description and announcement), the title, window activation")
    func events() throws {
        let demo = try AccessibleDemo("a11y-events")
        try demo.reader.listen(["object:state-changed:focused", "object:property-change:accessible-description",
                                "object:property-change:accessible-name", "object:announcement",
                                "window:activate", "window:deactivate"])
        try demo.session.sync()
        _ = try demo.reader.events()
        func expectEvents(_ label: String, count: Int, _ check: ([JSONValue]) -> Bool) throws {
            let events = try demo.reader.events(count: count, timeout: 5)
            #expect(check(events), "\(label): \(events)")
        }
        func has(_ events: [JSONValue], _ type: String, _ source: String?, detail1: Int? = nil, data: String? = nil) -> Bool {
            events.contains { event in
                event["event"]?.string == type && (source == nil || event["source"]?.string == source)
                    && (detail1 == nil || event["detail1"]?.int == detail1) && (data == nil || event["data"]?.string == data)
            }
        }
        // The window gets the focus: it is activated, and the focused button says so.
        try demo.session.focusWindow()
        try expectEvents("focus in", count: 2) {
            has($0, "window:activate", nil) && has($0, "object:state-changed:focused", "Notifications", detail1: 1)
        }
        // Tab: the first shows the ring where the focus is, the second moves it.
        try demo.session.key(Keysym.tab)
        try demo.session.key(Keysym.tab)
        try expectEvents("tab", count: 2) {
            has($0, "object:state-changed:focused", "Notifications", detail1: 0) && has($0, "object:state-changed:focused", "Mail", detail1: 1)
        }
        // A click: the description changes and is announced; the title (with the total) changes on the frame.
        try demo.session.click(MouseButton.left, on: "mail")
        _ = try demo.session.nextChange()
        try expectEvents("click", count: 3) {
            has($0, "object:property-change:accessible-description", "Mail", data: "Mail, 13 unread")
                && has($0, "object:announcement", "Mail", data: "Mail, 13 unread")
                && $0.contains { $0["event"]?.string == "object:property-change:accessible-name" && $0["role"]?.string == "frame" }
        }
        // A control command does the same.
        try demo.session.command("set chat 5")
        _ = try demo.session.nextChange()
        try expectEvents("control", count: 2) {
            has($0, "object:property-change:accessible-description", "Chat", data: "Chat, 5 unread")
                && has($0, "object:announcement", "Chat", data: "Chat, 5 unread")
        }
        // The focus goes elsewhere: deactivated.
        try demo.session.x.setInputFocus(window: demo.session.x.root)
        try demo.session.sync()
        try expectEvents("focus out", count: 1) { has($0, "window:deactivate", nil) }
    }

    @Test("Nothing is sent while no one listens; events start once someone registers")
    func onlyForListeners() throws {
        let demo = try AccessibleDemo("a11y-quiet")
        try demo.waitUntilRegistered()
        try demo.session.focusWindow()
        for _ in 0..<3 {
            try demo.session.click(MouseButton.left, on: "mail")
            _ = try demo.session.nextChange()
        }
        try demo.session.key(Keysym.tab)
        try demo.session.key(Keysym.tab)
        #expect(try demo.accessibility()["eventsSent"]?.int == 0, "no listener, no events")
        try demo.reader.listen(["object:announcement"])
        try demo.session.sync()
        try demo.session.click(MouseButton.left, on: "mail")
        _ = try demo.session.nextChange()
        let events = try demo.reader.events(count: 1, timeout: 5)
        #expect(events.contains { $0["event"]?.string == "object:announcement" }, "\(events)")
        #expect(try demo.accessibility()["eventsSent"]?.int ?? 0 > 0)
    }

    @Test("A screen reader that stops reading (SIGSTOP) never blocks the window: 500 changes, then it reads again")
    func stuckScreenReader() throws {
        let demo = try AccessibleDemo("a11y-stuck")
        try demo.reader.listen(["object:"])
        try demo.session.sync()
        demo.reader.process.kill(SIGSTOP)
        defer { demo.reader.process.kill(SIGCONT) }
        for _ in 0..<500 { try demo.session.command("inc mail") }
        try demo.session.sync(timeout: 10)
        try demo.session.click(MouseButton.left, on: "mail")
        #expect(try demo.session.state().button("mail").count == 513, "every change applied while the reader was stopped")
        demo.reader.process.kill(SIGCONT)
        // Awake again, it is answered, and hears what happens next.
        let awake = try demo.reader.tree()
        #expect(node(awake, [0, 0, 1])?["description"]?.string == "Mail, more than 99 unread", "\(awake)")
        try demo.session.command("set mail 5")
        let deadline = Deadline(seconds: 10)
        var heard = false
        while !heard, !deadline.hasPassed {
            heard = try demo.reader.events(count: 1_000_000, timeout: 0.5).contains { $0["data"]?.string == "Mail, 5 unread" }
        }
        #expect(heard, "the change after the stop is heard")
    }

    @Test("The registry is killed and starts again: the app keeps counting and is found again, with its events")
    func registryRestart() throws {
        let demo = try AccessibleDemo("a11y-registry")
        try demo.reader.listen(["object:announcement"])
        let owner = try demo.reader.raw(bus: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                                        member: "GetConnectionUnixProcessID", signature: "s", arguments: [.string("org.a11y.atspi.Registry")])
        guard let pid = owner["reply"]?.int, pid > 1 else {
            Issue.record("no registry pid: \(owner)")
            return
        }
        #expect(kill(pid_t(pid), SIGKILL) == 0)
        // The app carries on without a registry.
        try demo.session.click(MouseButton.left, on: "mail")
        #expect(try demo.session.nextChange()["text"]?.string == "13")
        // Asking the desktop starts a new registry (D-Bus activation); the app embeds itself in it.
        try demo.reader.find()
        try demo.waitUntilRegistered()
        let deadline = Deadline(seconds: 10)
        var heard = false
        while !heard, !deadline.hasPassed {
            try demo.session.click(MouseButton.left, on: "mail")
            _ = try demo.session.nextChange()
            heard = try demo.reader.events(count: 1, timeout: 1).contains { $0["event"]?.string == "object:announcement" }
        }
        #expect(heard, "announcements reach the screen reader through the new registry")
        #expect(node(try demo.reader.tree(), [0, 0, 1])?["name"]?.string == "Mail")
    }

    @Test("Under openbox the window is reparented and moved: extents follow the frame", .enabled(if: findOnPath("openbox") != nil))
    func underOpenbox() throws {
        var manager: WindowManager?
        let demo = try AccessibleDemo("a11y-openbox", beforeLaunch: { server, x in
            manager = try WindowManager("openbox", display: server.display, x: x)
        })
        defer { withExtendedLifetime(manager) {} }
        try demo.session.x.waitForProperty(window: demo.session.window, name: "WM_STATE", timeout: 10) { $0 != nil }
        try demo.session.sync()
        let origin = try demo.session.screenPoint(0, 0)
        #expect(origin.x > 0 || origin.y > 0, "openbox's frame offsets the window: \(origin)")
        try expectTreeMatchesState(demo, label: "openbox")
        // Moved by the window manager: the extents follow.
        try runClient("xdotool", ["windowmove", "--sync", String(demo.session.window), "200", "150"], display: demo.session.server.display)
        try demo.session.sync()
        let moved = try demo.session.screenPoint(0, 0)
        #expect(moved.x != origin.x || moved.y != origin.y, "the window moved: \(origin) → \(moved)")
        try expectTreeMatchesState(demo, label: "openbox, moved")
    }

    @Test("Bad calls get the standard D-Bus errors; a flood of 10,000 is answered while clicks keep counting")
    func badInput() throws {
        let demo = try AccessibleDemo("a11y-bad")
        try demo.waitUntilRegistered()
        guard let bus = try demo.accessibility()["bus"]?.string else {
            Issue.record("no bus name")
            return
        }
        let accessible = "org.a11y.atspi.Accessible", button = "/org/a11y/atspi/accessible/button/1"
        let cases: [(String, String, String?, String, String, [JSONValue])] = [
            ("org.freedesktop.DBus.Error.InvalidArgs", button, "org.a11y.atspi.Action", "DoAction", "s", [.string("click")]),
            ("org.freedesktop.DBus.Error.InvalidArgs", button, "org.a11y.atspi.Action", "DoAction", "i", [.int(7)]),
            ("org.freedesktop.DBus.Error.InvalidArgs", "/org/a11y/atspi/accessible/toolbar", accessible, "GetChildAtIndex", "i", [.int(99)]),
            ("org.freedesktop.DBus.Error.InvalidArgs", "/org/a11y/atspi/accessible/toolbar", accessible, "GetChildAtIndex", "i", [.int(-1)]),
            ("org.freedesktop.DBus.Error.InvalidArgs", button, "org.a11y.atspi.Component", "GetExtents", "u", [.int(9)]),
            ("org.freedesktop.DBus.Error.InvalidArgs", button, accessible, "GetRole", "s", [.string("extra")]),
            ("org.freedesktop.DBus.Error.UnknownObject", "/org/a11y/atspi/accessible/button/99", accessible, "GetRole", "", []),
            ("org.freedesktop.DBus.Error.UnknownObject", "/nowhere", accessible, "GetRole", "", []),
            ("org.freedesktop.DBus.Error.UnknownInterface", button, "org.example.Nope", "GetRole", "", []),
            ("org.freedesktop.DBus.Error.UnknownInterface", "/org/a11y/atspi/accessible/toolbar", "org.a11y.atspi.Action", "DoAction", "i", [.int(0)]),
            ("org.freedesktop.DBus.Error.UnknownMethod", button, accessible, "Explode", "", []),
            ("org.freedesktop.DBus.Error.UnknownMethod", button, nil, "Explode", "", []),
            ("org.freedesktop.DBus.Error.UnknownProperty", button, "org.freedesktop.DBus.Properties", "Get", "ss",
             [.string(accessible), .string("Nope")]),
            ("org.freedesktop.DBus.Error.PropertyReadOnly", button, "org.freedesktop.DBus.Properties", "Set", "ssv",
             [.string(accessible), .string("Name"), .string("x")]),
        ]
        for (expected, path, interface, member, signature, arguments) in cases {
            let reply = try demo.reader.raw(bus: bus, path: path, interface: interface, member: member, signature: signature,
                                            arguments: arguments)
            #expect(reply["error"]?.string == expected, "\(interface ?? "-").\(member)(\(signature)) at \(path): \(reply)")
        }
        // A good call still answers, without an interface too.
        #expect(try demo.reader.raw(bus: bus, path: button, interface: nil, member: "GetRole")["reply"]?.int == 43)
        // The flood: sent at once, answered while the pointer keeps clicking.
        let calls: [JSONValue] = [
            .object([("interface", .string(accessible)), ("member", .string("GetRole"))]),
            .object([("interface", .string(accessible)), ("member", .string("GetChildAtIndex")), ("signature", .string("i")), ("args", .array([.int(5)]))]),
            .object([("interface", .string("org.a11y.atspi.Action")), ("member", .string("DoAction")), ("signature", .string("s")), ("args", .array([.string("x")]))]),
            .object([("interface", .string("org.a11y.atspi.Nope")), ("member", .string("GetRole"))]),
        ]
        try demo.reader.process.writeLine(JSONValue.object([("op", .string("flood")), ("bus", .string(bus)), ("path", .string(button)),
                                                            ("count", .int(10_000)), ("calls", .array(calls))]).serialized)
        let mail = try demo.session.state().button("mail")
        let center = try demo.session.rootCenter(of: mail.button)
        for _ in 0..<5 { try demo.session.x.click(button: MouseButton.left, atRoot: center) }
        var counts: [String] = []
        for _ in 0..<5 { counts.append(try demo.session.nextChange(timeout: 30)["text"]?.string ?? "?") }
        #expect(counts == ["13", "14", "15", "16", "17"], "clicks count through the flood: \(counts)")
        guard let line = try demo.reader.process.readLine(timeout: 60), let result = try? JSONValue.parse(Array(line.utf8)) else {
            Issue.record("no flood result")
            return
        }
        let errors = result["errors"]?.object ?? [:]
        #expect(result["replies"]?.int == 2_500, "\(result)")
        #expect(errors["org.freedesktop.DBus.Error.InvalidArgs"]?.int == 5_000 && errors["org.freedesktop.DBus.Error.UnknownInterface"]?.int == 2_500,
                "\(result)")
        try demo.session.click(MouseButton.left, on: "mail")
        #expect(try demo.session.nextChange()["text"]?.string == "18")
        #expect(demo.session.app.stderrText.isEmpty, "\(demo.session.app.stderrText)")
    }

    @Test("A toolbar embedded in another program's window and loop (the mail-client example) is seen too")
    func embeddedInItsOwnLoop() throws {
        let server = try XvfbServer.start()
        let x = try XTestClient(display: server.display)
        let stack = try AccessibilityStack(display: server.display, x: x)
        let app = try ChildProcess(executable: try ExamplesTests.example("mail-client", "debug"),
                                   environment: .inherited(adding: stack.environment.merging(["DISPLAY": server.display]) { $1 }),
                                   stdin: .null)
        defer { app.kill(SIGKILL) }
        _ = try app.readEvent(named: "ready", timeout: 20)
        let reader = try stack.screenReader()
        try reader.find("mail-client")
        let tree = try reader.tree()
        // No frame of the toolkit's own: the window is the program's.
        #expect(tree["role"]?.string == "application" && node(tree, [0])?["role"]?.string == "tool bar", "\(tree)")
        #expect(node(tree, [0, 1])?["role"]?.string == "push button" && node(tree, [0, 1])?["description"]?.string?.isEmpty == false)
        #expect(try reader.action("click", at: [0, 1]))
        let change = try app.readEvent(named: "change")
        #expect(change["id"]?.string == "alerts" && change["count"]?.int == 3 && change["cause"]?.string == "accessibility", "\(change)")
    }

    @Test("NO_AT_BRIDGE=1 turns the bridge off; without any bus nothing is loaded")
    func off() throws {
        let quiet = try AccessibleDemo("a11y-off", environment: ["NO_AT_BRIDGE": "1"], find: false)
        try quiet.session.sync()
        let status = try quiet.accessibility()
        #expect(status["status"]?.string == "off" && status["reason"]?.string?.contains("NO_AT_BRIDGE") == true, "\(status)")
        let found = try quiet.reader.request(.object([("op", .string("find")), ("name", .string("badge-demo")), ("timeout", .double(1))]))
        #expect(found["found"]?.bool == false)
        // No bus at all: off, and libdbus never mapped.
        let bare = try DemoSession("a11y-nobus")
        try bare.sync()
        try bare.command("state")
        let state = try bare.app.readEvent(named: "state", timeout: 10)
        #expect(state["accessibility"]?["status"]?.string == "off", "\(state["accessibility"] ?? .null)")
        let maps = try bare.app.memoryMaps()
        #expect(!maps.contains("libdbus"), "libdbus is not loaded without a bus")
    }
}
