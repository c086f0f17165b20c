import TestSupport
import BadgeControl
import BadgeCore
import Glibc
import Testing
import XvfbHarness

/// `badge-demo msg --watch --format …`: the counts as polybar, waybar and i3blocks read them, and a
/// real polybar fed by it (issue 22, part 2).
@Suite("E2E: count stream for bars", .endToEnd(minutes: 2))
struct BarStreamTests {
    static func runtimeFolder(_ name: String) throws -> String {
        let path = try Artifacts.path(for: "bar-\(name)-\(getpid())")
        removeTree(path)
        #expect(mkdir(path, 0o700) == 0)
        return path
    }

    static func watch(_ format: String, runtime: String) throws -> ChildProcess {
        try ChildProcess(executable: BuiltProducts.executable(named: "badge-demo"), arguments: ["msg", "--watch", "--format", format],
                         environment: .inherited(adding: ["XDG_RUNTIME_DIR": runtime], removing: ["DISPLAY"]))
    }

    @Test("Each format: the state at once, then one line per change, in that bar's own shape; urgency shown")
    func formats() throws {
        let runtime = try Self.runtimeFolder("formats")
        defer { removeTree(runtime) }
        let s = try DemoSession("bar-formats", arguments: ["--no-state"], environment: ["XDG_RUNTIME_DIR": runtime])
        let polybar = try Self.watch("polybar", runtime: runtime)
        let waybar = try Self.watch("waybar", runtime: runtime)
        let i3bar = try Self.watch("i3blocks", runtime: runtime)
        defer { for child in [polybar, waybar, i3bar] { child.kill(SIGKILL); child.waitForExit(timeout: 5) } }
        #expect(try polybar.readLine(timeout: 10).map(BarText.plain) == "Notifications 3 · Mail 12 · Chat New · Updates •")
        let firstWaybar = try JSONValue(parsing: try #require(try waybar.readLine(timeout: 10)))
        #expect(firstWaybar["text"]?.string == "Notifications 3 · Mail 12 · Chat New · Updates •")
        #expect(firstWaybar["tooltip"]?.string == "Notifications, 3 unread\nMail, 12 unread\nChat, New\nUpdates, new")
        #expect(firstWaybar["class"]?.string == "unread")
        let firstI3 = try JSONValue(parsing: try #require(try i3bar.readLine(timeout: 10)))
        #expect(firstI3["full_text"]?.string == "Notifications 3 · Mail 12 · Chat New · Updates •")
        #expect(firstI3["short_text"]?.string == "15" && firstI3["urgent"]?.bool == false)
        // One line per change; a command that changes nothing adds none.
        try s.command("set mail 5")
        try s.command("set mail 5")
        try s.command("clear chat")
        #expect(try polybar.readLine(timeout: 10).map(BarText.plain) == "Notifications 3 · Mail 5 · Chat New · Updates •")
        #expect(try polybar.readLine(timeout: 10).map(BarText.plain) == "Notifications 3 · Mail 5 · Updates •")
        _ = try waybar.readLine(timeout: 10)
        let cleared = try JSONValue(parsing: try #require(try waybar.readLine(timeout: 10)))
        #expect(cleared["tooltip"]?.string == "Notifications, 3 unread\nMail, 5 unread\nChat\nUpdates, new")
        _ = try i3bar.readLine(timeout: 10)
        #expect(try JSONValue(parsing: try #require(try i3bar.readLine(timeout: 10)))["short_text"]?.string == "8")
        // Urgency (a count rises while the window is unfocused): polybar in the badge colour,
        // waybar's class, i3bar's urgent.
        try s.x.setInputFocus(window: s.x.root)
        try s.command("inc bell")
        var urgentLine = ""
        while !urgentLine.contains("Notifications 4"), let line = try polybar.readLine(timeout: 10).map(BarText.plain) { urgentLine = line }
        #expect(urgentLine == "%{F#E53935}Notifications 4 · Mail 5 · Updates •%{F-}")
        var urgentWaybar: JSONValue?
        while urgentWaybar?["class"]?.string != "urgent", let line = try waybar.readLine(timeout: 10) { urgentWaybar = try JSONValue(parsing: line) }
        #expect(urgentWaybar?["class"]?.string == "urgent")
        var urgentI3: JSONValue?
        while urgentI3?["urgent"]?.bool != true, let line = try i3bar.readLine(timeout: 10) { urgentI3 = try JSONValue(parsing: line) }
        #expect(urgentI3?["urgent"]?.bool == true)
        // Markup in a label is escaped for waybar (Pango markup), tags for polybar defused.
        try s.command("text chat <b>%{F#000}")
        var escaped: JSONValue?
        while escaped?["text"]?.string?.contains("Chat") != true, let line = try waybar.readLine(timeout: 10) { escaped = try JSONValue(parsing: line) }
        #expect(escaped?["text"]?.string?.contains("Chat &lt;b&gt;%{F#") == true, "\(escaped.map { "\($0)" } ?? "")")
        var polybarLine = ""
        while !polybarLine.contains("Chat"), let line = try polybar.readLine(timeout: 10).map(BarText.plain) { polybarLine = line }
        #expect(polybarLine.contains("Chat <b>% {F#") && !polybarLine.contains("<b>%{"), "\(polybarLine)")
    }

    @Test("A source whose command fails: every bar format shows its count as stale (grey, ?, class, color), and current again once it answers")
    func staleSourceIsStaleInTheBar() throws {
        let runtime = try Self.runtimeFolder("stale")
        defer { removeTree(runtime) }
        let f = try SourceBindingTests.Folder("bar-stale")
        let value = f.path + "/value"
        f.write("value", "2\n")
        f.write("config.json", #"""
            {"buttons": [{"id": "bell", "icon": "bell", "label": "Notifications", "content": {"kind": "count", "count": 3}},
                         {"id": "mail", "icon": "mail", "label": "Mail", "source": {"command": ["cat", "\#(value)"]}}]}
            """#)
        let s = try DemoSession("bar-stale", arguments: ["--no-state", "--config", f.path + "/config.json"],
                                environment: ["XDG_RUNTIME_DIR": runtime])
        _ = try SourceBindingTests.waitFor(s, "the command's 2") { try $0.button("mail").count == 2 }
        // The first reading rose while the window was unfocused (urgent); focused, the lines are plain.
        try s.focusWindow()
        let focused = Deadline(seconds: 10)
        var urgent = true
        repeat {
            try s.command("state")
            urgent = try s.app.readEvent(named: "state", timeout: 10)["urgent"]?.bool ?? true
        } while urgent && !focused.hasPassed
        #expect(!urgent, "the focused window still asks for attention")
        let polybar = try Self.watch("polybar", runtime: runtime)
        let waybar = try Self.watch("waybar", runtime: runtime)
        let i3bar = try Self.watch("i3blocks", runtime: runtime)
        defer { for child in [polybar, waybar, i3bar] { child.kill(SIGKILL); child.waitForExit(timeout: 5) } }
        #expect(try polybar.readLine(timeout: 10).map(BarText.plain) == "Notifications 3 · Mail 2")
        let currentWaybar = try JSONValue(parsing: try #require(try waybar.readLine(timeout: 10)))
        #expect(currentWaybar["class"]?.string == "unread", "\(currentWaybar)")
        let currentI3 = try JSONValue(parsing: try #require(try i3bar.readLine(timeout: 10)))
        #expect(currentI3["color"] == nil && currentI3["full_text"]?.string == "Notifications 3 · Mail 2", "\(currentI3)")

        // The server is down: the command fails, the window's count goes grey, and so does the bar's.
        #expect(unlink(value) == 0)
        try s.command("refresh mail")
        let stale = try SourceBindingTests.waitFor(s, "mail stale") { try $0.button("mail").json["confidence"]?.string == "stale" }
        #expect(try stale.button("mail").count == 2, "the last count is kept, as stale")
        var line = ""
        while !line.contains("Mail 2?"), let next = try polybar.readLine(timeout: 10).map(BarText.plain) { line = next }
        #expect(line == "Notifications 3 · %{F#888888}Mail 2?%{F-}", "polybar: \(line)")
        var way: JSONValue?
        while way?["text"]?.string?.contains("Mail 2?") != true, let next = try waybar.readLine(timeout: 10) { way = try JSONValue(parsing: next) }
        #expect(way?["class"]?.array?.compactMap(\.string) == ["unread", "stale"], "waybar: \(way.map { "\($0)" } ?? "nothing")")
        #expect(way?["tooltip"]?.string?.contains("not up to date") == true, "waybar: \(way.map { "\($0)" } ?? "nothing")")
        var i3: JSONValue?
        while i3?["full_text"]?.string?.contains("Mail 2?") != true, let next = try i3bar.readLine(timeout: 10) { i3 = try JSONValue(parsing: next) }
        #expect(i3?["color"]?.string == "#888888", "i3bar: \(i3.map { "\($0)" } ?? "nothing")")

        // Back up: the new count, current again.
        f.write("value", "4\n")
        try s.command("refresh mail")
        line = ""
        while !line.contains("Mail 4"), let next = try polybar.readLine(timeout: 10).map(BarText.plain) { line = next }
        #expect(line == "Notifications 3 · Mail 4", "polybar: \(line)")
    }

    @Test("A config reload reaches the bar stream at once (a button added shows), and --watch sees it as a config event")
    func configReloadReachesTheStream() throws {
        let runtime = try Self.runtimeFolder("reload")
        defer { removeTree(runtime) }
        let (home, file) = try ConfigReloadTests.folder("bar-reload")
        ConfigReloadTests.save(#"{"buttons": [{"id": "mail", "icon": "mail", "label": "Inbox", "content": {"kind": "count", "count": 2}}]}"#, to: file)
        let s = try DemoSession("bar-reload", arguments: ["--no-state"], environment: ["XDG_RUNTIME_DIR": runtime, "XDG_CONFIG_HOME": home])
        let polybar = try Self.watch("polybar", runtime: runtime)
        let json = try Self.watch("json", runtime: runtime)
        defer { for child in [polybar, json] { child.kill(SIGKILL); child.waitForExit(timeout: 5) } }
        #expect(try polybar.readLine(timeout: 10).map(BarText.plain) == "Inbox 2")
        #expect(try JSONValue(parsing: try #require(try json.readLine(timeout: 10)))["event"]?.string == "state")
        ConfigReloadTests.save(#"{"buttons": [{"id": "mail", "icon": "mail", "label": "Inbox"}, {"id": "news", "icon": "updates", "label": "News", "content": {"kind": "count", "count": 4}}]}"#, to: file)
        _ = try s.app.readEvent(named: "config", timeout: 10)
        #expect(try polybar.readLine(timeout: 10).map(BarText.plain) == "Inbox 2 · News 4", "the bar shows the new button")
        var event: JSONValue?
        while event?["event"]?.string != "config", let line = try json.readLine(timeout: 10) { event = try JSONValue(parsing: line) }
        #expect(event?["buttons"]?.array?.compactMap(\.string) == ["mail", "news"], "\(event.map { "\($0)" } ?? "none")")
        #expect(event?["state"]?["buttons"]?.array?.count == 2, "the config event carries the state as it is now")
    }

    @Test("A bar format waits for the instance, prints its offline line while none runs, and follows it across restarts",
          arguments: [("polybar", ""), ("waybar", #"{"text":"","tooltip":"badge-demo is not running","class":"offline","alt":"offline"}"#)])
    func followsRestarts(format: String, offline: String) throws {
        let runtime = try Self.runtimeFolder("follow-\(format)")
        defer { removeTree(runtime) }
        // No instance yet: the offline line at once, and the module keeps running, quiet on stderr.
        let watcher = try Self.watch(format, runtime: runtime)
        defer { watcher.kill(SIGKILL); watcher.waitForExit(timeout: 5) }
        #expect(try watcher.readLine(timeout: 10) == offline)
        #expect(watcher.waitForExit(timeout: 0) == nil && watcher.stderrText.isEmpty, "\(watcher.stderrText)")
        let s = try DemoSession("bar-follow-\(format)", arguments: ["--no-state"], environment: ["XDG_RUNTIME_DIR": runtime])
        let online = try #require(try watcher.readLine(timeout: 10).map(BarText.plain))
        #expect(online.contains("Notifications 3 · Mail 12"), "\(online)")
        // The instance quits: offline again, and the watcher waits.
        try s.command("quit")
        #expect(s.app.waitForExit(timeout: 10) == .exited(0))
        #expect(try watcher.readLine(timeout: 10) == offline)
        // A new instance on the same display: followed at once.
        let again = try ChildProcess(executable: try BuiltProducts.executable(named: "badge-demo"), arguments: ["--no-state", "--count", "mail=5"],
                                     environment: .inherited(adding: ["XDG_RUNTIME_DIR": runtime, "DISPLAY": s.server.display]))
        defer { again.kill(SIGKILL); again.waitForExit(timeout: 5) }
        let back = try #require(try watcher.readLine(timeout: 15).map(BarText.plain))
        #expect(back.contains("Mail 5"), "\(back)")
        #expect(watcher.stderrText.isEmpty, "nothing for the bar on stderr: \(watcher.stderrText)")
    }

    @Test("A real polybar runs docs/control.md's module (custom/script, tail = true) while the app runs, stops and starts again",
          .enabled(if: findOnPath("polybar") != nil, "polybar is not installed"))
    func realPolybar() throws {
        let runtime = try Self.runtimeFolder("polybar")
        defer { removeTree(runtime) }
        let s = try DemoSession("bar-polybar", arguments: ["--no-state"], environment: ["XDG_RUNTIME_DIR": runtime])
        let demo = try BuiltProducts.executable(named: "badge-demo")
        // docs/control.md's module as written: badge-demo found on the PATH.
        let folder = demo.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        let path = folder + ":" + (getenv("PATH").map { String(cString: $0) } ?? "/usr/bin:/bin")
        let bar = try launchPolybar(in: runtime, display: s.server.display, environment: ["XDG_RUNTIME_DIR": runtime, "PATH": path], bar: """
            width = 600
            height = 24
            offset-y = 400
            modules-left = badges
            """, modules: """
            [module/badges]
            type = custom/script
            exec = badge-demo msg --watch --format polybar
            tail = true
            """)
        defer { bar.kill(SIGTERM); bar.waitForExit(timeout: 5) }
        let region = PixelRect(x: 0, y: 400, width: 600, height: 24)
        func textPixels() throws -> Int { try s.x.capture(window: s.x.root, rect: region).count { $0.r > 200 && $0.g > 200 && $0.b > 200 } }
        let deadline = Deadline(seconds: 15)
        while try textPixels() < 50, !deadline.hasPassed { try s.x.sync() }
        let before = try s.x.capture(window: s.x.root, rect: region)
        let shown = try textPixels()
        #expect(shown >= 50, "polybar shows the counts: \(bar.stderrText.suffix(400))")
        try before.writePPM(to: try Artifacts.path(for: "polybar-bar.ppm"))
        try s.command("set mail 77")
        let changed = Deadline(seconds: 10)
        while try s.x.capture(window: s.x.root, rect: region) == before, !changed.hasPassed { try s.x.sync() }
        #expect(try s.x.capture(window: s.x.root, rect: region) != before, "the bar follows the change")
        // The app stops: the module shows nothing (no error text in the bar), and keeps running.
        try s.command("quit")
        #expect(s.app.waitForExit(timeout: 10) == .exited(0))
        let emptied = Deadline(seconds: 10)
        while try textPixels() > 0, !emptied.hasPassed { try s.x.sync() }
        #expect(try textPixels() == 0, "no text in the bar while the app is down")
        #expect(bar.waitForExit(timeout: 0) == nil, "polybar still runs: \(bar.stderrText.suffix(400))")
        // The app starts again: the same module follows it, with nothing restarted by hand.
        let again = try ChildProcess(executable: demo, arguments: ["--no-state"],
                                     environment: .inherited(adding: ["DISPLAY": s.server.display, "XDG_RUNTIME_DIR": runtime]),
                                     stdin: .null)
        defer { again.kill(SIGTERM); again.waitForExit(timeout: 5) }
        let back = Deadline(seconds: 20)
        while try textPixels() < 50, !back.hasPassed { try s.x.sync() }
        #expect(try textPixels() >= 50, "the bar shows the counts of the restarted app: \(bar.stderrText.suffix(400))")
        #expect(bar.waitForExit(timeout: 0) == nil, "polybar still runs")
    }
}

/// Starts a real polybar on `display` with a bar of `bar`'s settings (dark, DejaVu Sans, its own
/// override-redirect window) and `modules`, its config written in `folder`.
func launchPolybar(in folder: String, display: String, environment: [String: String] = [:], bar: String,
                   modules: String) throws -> ChildProcess {
    let config = folder + "/polybar.ini"
    let file = fopen(config, "w")
    fputs("""
        [bar/test]
        background = #222222
        foreground = #ffffff
        font-0 = DejaVu Sans:size=10
        override-redirect = true
        \(bar)

        \(modules)

        """, file)
    fclose(file)
    return try ChildProcess(executable: "polybar", arguments: ["--config=\(config)", "test"],
                            environment: .inherited(adding: environment.merging(["DISPLAY": display]) { $1 }), stdin: .null)
}
