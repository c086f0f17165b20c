import XvfbHarness

/// The python3-dbus LauncherEntry sender of ``LauncherEntrySourceTests/sender``, as the tests that
/// put a launcher count on a button drive it.
enum LauncherSender {
    /// Starts a sender of `desktopID`'s broadcasts on `bus`, once it says it is ready.
    static func start(bus: SessionBus, desktopID: String) throws -> ChildProcess {
        let app = try ChildProcess(executable: "/usr/bin/python3", arguments: ["-c", LauncherEntrySourceTests.sender, bus.address, desktopID])
        guard try app.readLine(timeout: 10) == "ready" else { throw HarnessError("the LauncherEntry sender did not start: \(app.stderrText)") }
        return app
    }

    /// Broadcasts `count` until `shown` holds, at most 10 s (a broadcast sent before the listener's
    /// match rule is in is missed, as on any bus); true when it did.
    @discardableResult
    static func broadcast(_ count: Int, from app: ChildProcess, until shown: () -> Bool) throws -> Bool {
        let deadline = Deadline(seconds: 10)
        repeat {
            try app.writeLine("count \(count)")
            _ = try app.readLine(timeout: 10)
            if shown() { return true }
        } while !deadline.hasPassed
        return false
    }
}
