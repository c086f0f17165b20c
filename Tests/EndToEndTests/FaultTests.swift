import BadgeCore
import Glibc
import Testing
import XvfbHarness

/// Faults from outside: the window destroyed by another client, the app's connection killed, and a
/// request the server refuses. (Losing the whole server is in WindowLifecycleTests.)
@Suite("E2E: faults", .endToEnd(minutes: 1))
struct FaultTests {
    /// Starts a session that is either animating (a click just landed) or idle in poll().
    static func session(_ name: String, animating: Bool, environment: [String: String] = [:]) throws -> DemoSession {
        let s = try DemoSession(name + (animating ? "-animating" : "-idle"), reduceMotion: !animating, environment: environment)
        if animating {
            try s.click(MouseButton.left, on: "bell")
            _ = try s.nextChange()
            try s.sync()
            #expect(try s.state().animating, "expected an animation to be running when the fault happens")
        } else {
            try s.moveAwayAndSync()
            #expect(try s.state().animating == false)
        }
        return s
    }

    /// Waits for the exit; checks status, time and that stderr is exactly one line with `prefix`.
    static func expectExit(_ s: DemoSession, status expected: Int32, within seconds: Double, since start: ContinuousClock.Instant,
                           linePrefix: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let status = s.app.waitForExit(timeout: 5)
        let elapsed = secondsSince(start)
        #expect(status == .exited(expected), "status: \(status?.description ?? "still running after 5 s"); stderr: \(s.app.stderrText)",
                sourceLocation: sourceLocation)
        #expect(elapsed < seconds, "took \(elapsed) s to exit", sourceLocation: sourceLocation)
        let lines = s.app.stderrText.split(separator: "\n", omittingEmptySubsequences: true)
        #expect(lines.count == 1, "stderr should be one line: \(lines)", sourceLocation: sourceLocation)
        #expect(lines.first?.hasPrefix(linePrefix) == true, "stderr: \(lines)", sourceLocation: sourceLocation)
    }

    @Test("Window destroyed by another client (xcb_destroy_window): exit 5 within 1 s, one line", arguments: [false, true])
    func windowDestroyed(animating: Bool) throws {
        let s = try Self.session("destroyed", animating: animating)
        let start = ContinuousClock.now
        try s.x.destroy(window: s.window)
        Self.expectExit(s, status: 5, within: 1, since: start,
                        linePrefix: "badge-demo: another X client destroyed the window 0x\(String(s.window, radix: 16))")
        #expect(s.server.isRunning)
    }

    @Test("Window destroyed while commands keep arriving: still exit 5, one line")
    func windowDestroyedUnderLoad() throws {
        let s = try DemoSession("destroyed-load", reduceMotion: false)
        var burst: [UInt8] = []
        for i in 0..<2_000 { burst += Array((i % 2 == 0 ? "inc bell\n" : "set mail \(i % 150)\n").utf8) }
        try s.app.writeDraining(burst)
        let start = ContinuousClock.now
        try s.x.destroy(window: s.window)
        // More work after the window is gone: requests on it now fail with BadWindow/BadDrawable.
        do { try s.app.writeDraining(burst, timeout: 5) } catch {}  // the app may exit while we write
        // Keep reading its output (as a real consumer would) until it closes stdout by exiting.
        let deadline = Deadline(seconds: 5)
        while !deadline.hasPassed, try s.app.readLine(timeout: 5) != nil {}
        Self.expectExit(s, status: 5, within: 1, since: start, linePrefix: "badge-demo: another X client destroyed the window")
    }

    @Test("The app's connection killed (xcb_kill_client): exit 3 within 1 s, one line", arguments: [false, true])
    func clientKilled(animating: Bool) throws {
        let s = try Self.session("killed", animating: animating)
        let start = ContinuousClock.now
        try s.x.killClient(owning: s.window)
        Self.expectExit(s, status: 3, within: 1, since: start, linePrefix: "badge-demo: lost the connection to the X server")
        #expect(s.server.isRunning)
    }

    @Test("xdotool windowkill: exit 3 within 1 s, one line",
          .enabled(if: findOnPath("xdotool") != nil, "needs xdotool"))
    func xdotoolWindowKill() throws {
        let s = try Self.session("xdotool-kill", animating: false)
        let start = ContinuousClock.now
        let tool = try ChildProcess(executable: "xdotool", arguments: ["windowkill", "\(s.window)"],
                                    environment: .inherited(adding: ["DISPLAY": s.server.display]), stdin: .null)
        #expect(tool.waitForExit(timeout: 10) == .exited(0), "xdotool: \(tool.stderrText)")
        Self.expectExit(s, status: 3, within: 1, since: start, linePrefix: "badge-demo: lost the connection to the X server")
    }

    @Test("A refused request is reported once on stderr; clicks and sync keep working", arguments: [false, true])
    func refusedRequest(animating: Bool) throws {
        let s = try Self.session("refused", animating: animating, environment: ["BADGE_DEBUG": "1"])
        try s.command("debug-bad-request")
        try s.sync()
        #expect(s.app.takePendingEvents(named: "error").isEmpty, "debug-bad-request is a command under BADGE_DEBUG=1")
        let lines = s.app.stderrText.split(separator: "\n", omittingEmptySubsequences: true)
        #expect(lines.count == 1, "stderr: \(lines)")
        let line = String(lines.first ?? "")
        #expect(line.hasPrefix("badge-demo: the X server refused a request (BadPixmap (4) in FreePixmap (54)"), "stderr: \(line)")
        #expect(line.contains("carrying on"), "stderr: \(line)")

        // The same refusal again: not reported again.
        for _ in 0..<3 { try s.command("debug-bad-request") }
        try s.sync()
        #expect(s.app.stderrText.split(separator: "\n", omittingEmptySubsequences: true).count == 1, "stderr: \(s.app.stderrText)")

        // The app carries on: a click counts, state and sync answer, pixels change.
        let before = try s.state().button("bell")
        try s.click(MouseButton.left, on: "bell")
        let change = try s.nextChange()
        #expect(change["cause"]?.string == "click" && change["content"]?["count"]?.int == (before.count ?? -1) + 1, "\(change)")
        try s.sync()
        #expect(try s.state().button("bell").count == (before.count ?? -1) + 1)
        #expect(s.app.waitForExit(timeout: 0) == nil, "the app exited after a refused request: \(s.app.stderrText)")
    }

    @Test("Without BADGE_DEBUG=1, debug-bad-request is an unknown command (an error event, nothing sent)")
    func debugCommandHidden() throws {
        let s = try DemoSession("debug-hidden", environment: ["BADGE_DEBUG": "0"])
        try s.command("debug-bad-request")
        let error = try s.app.readEvent(named: "error", timeout: 10)
        #expect(error["line"]?.int == 1, "\(error)")
        try s.sync()
        #expect(s.app.stderrText.isEmpty, "stderr: \(s.app.stderrText)")
    }
}
