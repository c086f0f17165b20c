import BadgeCore
import Glibc
import Testing
import XvfbHarness

/// A real window manager (openbox, i3) running on a test server.
final class WindowManager {
    let name: String
    private(set) var process: ChildProcess
    private let display: String
    private let x: XTestClient

    /// Starts `name` and waits until it has announced itself (_NET_SUPPORTING_WM_CHECK on the root).
    init(_ name: String, display: String, x: XTestClient) throws {
        self.name = name
        self.display = display
        self.x = x
        process = try Self.launch(name, display: display, x: x)
    }

    private static func launch(_ name: String, display: String, x: XTestClient) throws -> ChildProcess {
        guard let path = findOnPath(name) else { throw HarnessError("\(name) is not installed") }
        var arguments: [String] = []
        let variables = ["DISPLAY": display]
        if name == "i3" {
            // A minimal config: no bar, no key bindings that could catch test keys.
            let config = try Artifacts.path(for: "i3-test-config-\(getpid())")
            let text = "# i3 config file (v4)\nfont pango:DejaVu Sans 8\nfocus_follows_mouse no\nfor_window [class=\"BadgeDemo\"] floating enable\n"
            let fd = open(config, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            guard fd >= 0 else { throw HarnessError("cannot write \(config)") }
            _ = text.withCString { write(fd, $0, strlen($0)) }
            close(fd)
            arguments = ["-c", config]
        }
        try x.selectPropertyChanges(window: x.root)
        // Output goes to a file: an unread pipe could fill up and stall the window manager.
        let log = try Artifacts.path(for: "\(name)-\(getpid())-\(display.dropFirst()).log")
        let process = try ChildProcess(executable: path, arguments: arguments, environment: .inherited(adding: variables),
                                       stdin: .null, stdout: .file(log), stderr: .file(log + ".err"))
        try x.waitForProperty(window: x.root, name: "_NET_SUPPORTING_WM_CHECK", timeout: 10) { $0 != nil && $0?.bytes.count == 4 }
        // The check window appears early in a WM's start-up: wait until it really manages a window.
        let probe = try ChildProcess(executable: try BuiltProducts.executable(named: "badge-demo"), arguments: [],
                                     environment: .inherited(adding: ["DISPLAY": display]), stdin: .null, stdout: .null)
        defer { probe.kill(SIGKILL); probe.waitForExit(timeout: 5) }
        let windows = try runClient("xdotool", ["search", "--sync", "--pid", String(probe.pid)], display: display)
        guard let probeWindow = windows.split(separator: "\n").compactMap({ UInt32($0) }).first else {
            throw HarnessError("no probe window for \(name)")
        }
        // A map request that arrives while the WM is still starting can be lost (seen with openbox):
        // ask again until the probe is managed.
        let deadline = Deadline(seconds: 15)
        while true {
            do {
                try x.waitForProperty(window: probeWindow, name: "WM_STATE", timeout: 1) { $0 != nil }
                break
            } catch {
                if deadline.hasPassed { throw error }
                try x.map(window: probeWindow)
            }
        }
        return process
    }

    /// Kills the window manager without letting it clean up, and waits for it to be gone.
    func kill() {
        process.kill(SIGKILL)
        process.waitForExit(timeout: 5)
    }

    /// Starts it again after `kill()`.
    func restart() throws {
        process = try Self.launch(name, display: display, x: x)
    }

    deinit {
        process.kill(SIGKILL)
        process.waitForExit(timeout: 5)
    }
}

/// Runs a command-line X client (xdotool, wmctrl) on the session's display; returns its stdout.
///
/// `xdotool search` walks every window and stops at the first one that vanishes meanwhile
/// ("BadWindow", as a window manager starting up creates and destroys windows): that race is
/// xdotool's own, so such a search is tried again (three times at most).
@discardableResult
func runClient(_ name: String, _ arguments: [String], display: String) throws -> String {
    guard name == "xdotool", arguments.first == "search" else { return try runClientOnce(name, arguments, display: display) }
    var attempt = 0
    while true {
        do {
            return try runClientOnce(name, arguments, display: display)
        } catch let error as HarnessError where error.description.contains("BadWindow") && attempt < 2 {
            attempt += 1
        }
    }
}

private func runClientOnce(_ name: String, _ arguments: [String], display: String) throws -> String {
    guard let path = findOnPath(name) else { throw HarnessError("\(name) is not installed") }
    let tool = try ChildProcess(executable: path, arguments: arguments, environment: .inherited(adding: ["DISPLAY": display]))
    var lines: [String] = []
    do {
        while let line = try tool.readLine(timeout: 10) { lines.append(line) }
    } catch {
        tool.kill(SIGKILL)
        throw HarnessError("\(name) \(arguments.joined(separator: " ")): \(error)")
    }
    let status = tool.waitForExit(timeout: 10)
    guard status == .exited(0) else {
        throw HarnessError("\(name) \(arguments.joined(separator: " ")): \(status?.description ?? "still running"); \(tool.stderrText)")
    }
    return lines.joined(separator: "\n")
}

/// The app under real window managers: managed, urgency through the WM, surviving the WM's death.
@Suite("E2E: under a window manager", .endToEnd(minutes: 2))
struct WindowManagerTests {
    /// Starts another badge-demo on `s`'s display and gives its window the focus (xdotool, through
    /// the window manager); the caller ends it.
    static func focusAnotherWindow(_ s: DemoSession) throws -> ChildProcess {
        let other = try ChildProcess(executable: try BuiltProducts.executable(named: "badge-demo"), arguments: ["--count", "bell=0"],
                                     environment: .inherited(adding: ["DISPLAY": s.server.display]), stdin: .null, stdout: .null)
        let otherWindow = try runClient("xdotool", ["search", "--sync", "--onlyvisible", "--pid", String(other.pid)],
                                        display: s.server.display).split(separator: "\n").first.map(String.init) ?? ""
        try runClient("xdotool", ["windowactivate", "--sync", otherWindow], display: s.server.display)
        try s.sync()
        return other
    }

    static var managers: [String] { (getenv("BADGE_TEST_WMS").map { String(cString: $0).split(separator: ",").map(String.init) } ?? ["openbox", "i3"]).filter { findOnPath($0) != nil } }

    @Test("The peek under a window manager: it holds the grab while open, and Escape or a click outside leaves none behind",
          .serialized, arguments: WindowManagerTests.managers)
    func peekGrab(_ wmName: String) throws {
        var wm: WindowManager?
        let s = try DemoSession("wm-peek-\(wmName)") { server, x in
            wm = try WindowManager(wmName, display: server.display, x: x)
        }
        try s.x.waitForProperty(window: s.window, name: "WM_STATE", timeout: 10) { $0 != nil }
        try s.sync()
        for close in ["escape", "outside"] {
            try s.click(MouseButton.right, on: "mail")
            _ = try s.peekEvent("opened")
            #expect(try s.peek()?["grabbed"]?.bool == true)
            #expect(try s.x.pointerGrabStatus() == 1, "while the peek is open its grab is held")
            if close == "escape" {
                try s.x.key(keysym: Keysym.escape)
            } else {
                try s.x.click(button: MouseButton.left, atRoot: (600, 440))
            }
            #expect(try s.peekEvent("closed")["reason"]?.string == close)
            try s.sync()
            #expect(try s.x.pointerGrabStatus() == 0, "\(wmName): a grab was left behind after \(close)")
        }
        // The pointer works on the toolbar again.
        _ = s.unconsumedChanges()
        try s.click(MouseButton.left, on: "bell")
        #expect(try s.nextChange()["id"]?.string == "bell")
        _ = wm
    }

    @Test("Urgent when another window manager takes over (openbox, then one that knows _NET_WM_STATE only from requests): the window asks it again",
          .enabled(if: findOnPath("openbox") != nil && findOnPath("xdotool") != nil, "needs openbox and xdotool"))
    func attentionAcrossWindowManagers() throws {
        var wm: WindowManager?
        let s = try DemoSession("wm-change-attention") { server, x in
            wm = try WindowManager("openbox", display: server.display, x: x)
        }
        let first = try #require(wm)
        try s.x.waitForProperty(window: s.window, name: "WM_STATE", timeout: 10) { $0 != nil }
        // Another window has the focus; a rising count makes ours urgent, asked of openbox.
        let other = try Self.focusAnotherWindow(s)
        defer { other.kill(SIGKILL); other.waitForExit(timeout: 5) }
        let demands = try s.x.atom("_NET_WM_STATE_DEMANDS_ATTENTION")
        func holdsAttention(_ p: WindowProperty?) -> Bool {
            (p?.bytes ?? []).withUnsafeBytes { raw in (0..<(raw.count / 4)).contains { raw.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self) == demands } }
        }
        try s.x.selectPropertyChanges(window: s.window)
        try s.command("inc bell")
        _ = try s.nextChange()
        _ = try s.app.readEvent(named: "urgent", timeout: 5) { $0["urgent"]?.bool == true }
        try s.x.waitForProperty(window: s.window, name: "_NET_WM_STATE", timeout: 5, until: holdsAttention)

        // openbox dies; the next window manager takes the window with the state it knows (none),
        // as i3 does, so it shows the attention only if the window asks for it again.
        first.kill()
        let next = try StandInWindowManager(display: s.server.display)
        try next.manage(s.window)
        let asked = try next.run(timeout: 5) { $0.states[s.window]?.contains(demands) == true }
        try s.sync()
        try s.command("state")
        let state = try s.app.readEvent(named: "state", timeout: 10)
        // Still urgent on the app's side (nothing focused the window), so the new WM must have been asked.
        try #require(state["urgent"]?.bool == true, "the window stopped being urgent (windowFocused: \(state["windowFocused"].map { "\($0)" } ?? "?"))")
        #expect(asked, "the window never asked the new window manager for its attention; requests: \(next.requests)")
        let written = try s.x.property(window: s.window, name: "_NET_WM_STATE")
        #expect(holdsAttention(written), "_NET_WM_STATE after the change: \(written?.bytes ?? [])")
        // Only what it holds is asked for, once the new manager is there (the check, MANAGER, WM_STATE): no flood.
        #expect(next.requests.allSatisfy { $0.window == s.window && $0.action == 1 && $0.state == demands } && next.requests.count <= 3,
                "\(next.requests)")
    }

    @Test("Managed, resized, urgent while another window is active, and alive when the WM dies and comes back",
          .serialized, arguments: WindowManagerTests.managers)
    func underWindowManager(_ wmName: String) throws {
        var wm: WindowManager?
        let s = try DemoSession("wm-\(wmName)") { server, x in
            wm = try WindowManager(wmName, display: server.display, x: x)
        }
        let manager = try #require(wm)
        try s.x.waitForProperty(window: s.window, name: "WM_STATE", timeout: 10) { $0 != nil }
        #expect(try s.x.parent(ofWindow: s.window) != s.x.root, "\(wmName) did not reparent the window")

        // A real client sees the window by its title and class.
        let found = try runClient("xdotool", ["search", "--name", "Badges"], display: s.server.display)
        #expect(found.split(separator: "\n").contains(Substring(String(s.window))), "xdotool search: \(found)")
        if findOnPath("wmctrl") != nil {
            let list = try runClient("wmctrl", ["-l", "-p"], display: s.server.display)
            #expect(list.contains("(15) Badges") && list.contains(String(s.app.pid)), "wmctrl -l -p: \(list)")
        }

        // Another window takes the focus; a rising count makes ours urgent through the WM.
        let other = try Self.focusAnotherWindow(s)
        defer { other.kill(SIGKILL); other.waitForExit(timeout: 5) }
        try s.command("state")
        #expect(try s.app.readEvent(named: "state", timeout: 10)["windowFocused"]?.bool == false)
        let demands = try s.x.atom("_NET_WM_STATE_DEMANDS_ATTENTION")
        try s.x.selectPropertyChanges(window: s.window)
        try s.command("inc bell")
        _ = try s.nextChange()
        try s.sync()
        // openbox records the request in _NET_WM_STATE; i3 takes it (and WM_HINTS) but does not write the property back.
        if wmName == "openbox" {
            try waitForAttention()
        }
        func waitForAttention() throws {
            try s.x.waitForProperty(window: s.window, name: "_NET_WM_STATE", timeout: 5) { p in
            guard let p else { return false }
                return p.bytes.withUnsafeBytes { raw in (0..<(raw.count / 4)).contains { raw.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self) == demands } }
            }
        }
        #expect(try s.x.cardinals(window: s.window, name: "WM_HINTS").first.map { $0 & 256 != 0 } == true)
        try runClient("xdotool", ["windowactivate", "--sync", String(s.window)], display: s.server.display)
        _ = try s.app.readEvent(named: "urgent", timeout: 5) { $0["urgent"]?.bool == false }
        // The other window could cover ours once the WM is gone.
        other.kill(SIGKILL)
        other.waitForExit(timeout: 5)
        try s.x.waitForProperty(window: s.window, name: "WM_HINTS", timeout: 5) { p in
            (p?.bytes.count ?? 0) >= 4 && (p?.bytes[1] ?? 1) & 1 == 0
        }

        // Resized by a client through the WM.
        // The WM decides the final size (i3 may adjust it), so wait for any change rather than an exact one.
        let oldGeometry = try s.x.geometry(ofWindow: s.window)
        try runClient("xdotool", ["windowsize", String(s.window), "320", "100"], display: s.server.display)
        let resizeDeadline = Deadline(seconds: 5)
        while try s.x.geometry(ofWindow: s.window) == oldGeometry, !resizeDeadline.hasPassed { try s.sync() }
        try s.sync()
        let geometry = try s.x.geometry(ofWindow: s.window)
        // A tiling WM (i3) keeps tiled windows at the tile's size; either way the layout follows the real size.
        if wmName == "openbox" { #expect(geometry != oldGeometry, "\(wmName) did not resize the window") }
        let bell = try s.state().button("bell")
        // At the top edge when the window is at least the toolbar's height, centred in a shorter one.
        let expectedY = geometry.height >= 60 ? 8 : (geometry.height - bell.button.height) / 2
        #expect(bell.button.y == expectedY, "layout after resize to \(geometry)")

        // The window manager dies: the app keeps running, its state and its window.
        manager.kill()
        try s.sync()
        #expect(s.app.waitForExit(timeout: 0) == nil, "the app exited when \(wmName) died: \(s.app.stderrText)")
        #expect(try s.state().button("bell").text == "4")
        #expect(try s.x.isViewable(window: s.window), "the window is gone after \(wmName) died")
        try s.moveAwayAndSync()
        try s.click(MouseButton.left, on: "bell")
        #expect(try s.nextChange()["text"]?.string == "5")

        // And comes back: managed again, still alive.
        try manager.restart()
        try s.x.waitForProperty(window: s.window, name: "WM_STATE", timeout: 10) { $0 != nil }
        try s.sync()
        #expect(s.app.waitForExit(timeout: 0) == nil)
        #expect(try s.state().button("bell").text == "5")
        // Closed through the window manager, as its close button does: the WM sends WM_DELETE_WINDOW.
        if findOnPath("wmctrl") != nil {
            try runClient("wmctrl", ["-i", "-c", String(s.window)], display: s.server.display)
        } else {
            try s.x.sendDeleteWindow(window: s.window)
        }
        #expect(s.app.waitForExit(timeout: 5) == .exited(0))
    }
}
