import BadgeCore
import Glibc
import Testing
import XvfbHarness
import BadgeControl

/// Logging out sends SIGTERM, Ctrl+C SIGINT: the app ends cleanly with status 0 (not 143 or 130),
/// after the control events it has queued are delivered, also when the signal comes during start-up.
/// The signals are sent with the real `kill` program.
@Suite("E2E: SIGTERM and SIGINT", .endToEnd(minutes: 1))
struct SignalTests {
    static func kill(_ signal: String, _ pid: pid_t) throws {
        let tool = try ChildProcess(executable: "kill", arguments: ["-s", signal, String(pid)], stdin: .null)
        #expect(tool.waitForExit(timeout: 10) == .exited(0), "kill: \(tool.stderrText)")
    }

    @Test("SIGTERM and SIGINT while idle: exit 0 within 100 ms", arguments: ["TERM", "INT"])
    func idleSignal(signal: String) throws {
        let s = try DemoSession("signal-\(signal)")
        try s.sync()
        _ = try s.app.waitUntilSleeping(timeout: 2)
        let start = ContinuousClock.now
        try Self.kill(signal, s.app.pid)
        let status = s.app.waitForExit(timeout: 5)
        let elapsed = secondsSince(start)
        #expect(status == .exited(0), "status \(status?.description ?? "running"); stderr: \(s.app.stderrText)")
        #expect(elapsed < 0.1 + 0.05, "took \(elapsed) s (the kill program's own start included)")
        #expect(s.app.stderrText.isEmpty, "a clean exit says nothing: \(s.app.stderrText)")
    }

    @Test("SIGTERM after a burst of commands: every event written is whole, then status 0")
    func queuedEventsAreDelivered() throws {
        let s = try DemoSession("signal-burst")
        try s.app.writeDraining(Array(String(repeating: "inc mail\n", count: 500).utf8) + Array("sync last\n".utf8))
        _ = try s.app.readEvent(named: "sync", timeout: 10) { $0["token"]?.string == "last" }
        // Everything before the sync was answered; now more commands, and the signal right behind them.
        try s.app.writeDraining(Array(String(repeating: "inc bell\n", count: 200).utf8))
        try Self.kill("TERM", s.app.pid)
        var changes = 0
        while let line = try s.app.readLine(timeout: 10) {
            let event = try JSONValue(parsing: line)
            if event["event"]?.string == "change" { changes += 1 }
        }
        #expect(s.app.waitForExit(timeout: 5) == .exited(0), "stderr: \(s.app.stderrText)")
        // The bell changes it had made before the signal were all delivered, in order, as whole lines.
        #expect(changes <= 200)
        #expect(s.app.otherLines.isEmpty)
    }

    @Test("A SIGTERM during start-up ends the app cleanly once it runs")
    func signalDuringStartUp() throws {
        let server = try XvfbServer.start()
        let app = try ChildProcess(executable: try BuiltProducts.executable(named: "badge-demo"), arguments: ["--control"],
                                   environment: .inherited(adding: ["DISPLAY": server.display]))
        // As soon as the app has blocked SIGTERM (its first step; /proc/PID/status SigBlk says so),
        // and before it has connected, drawn or announced anything.
        let blocked = Deadline(seconds: 10)
        while !blocked.hasPassed {
            guard let status = try? String(decoding: readProcFile("/proc/\(app.pid)/status"), as: UTF8.self),
                  let line = status.split(separator: "\n").first(where: { $0.hasPrefix("SigBlk:") }),
                  let mask = UInt64(String(line.dropFirst(7).filter { !$0.isWhitespace }), radix: 16) else { continue }
            if mask & (1 << UInt64(SIGTERM - 1)) != 0 { break }
        }
        try Self.kill("TERM", app.pid)
        let status = app.waitForExit(timeout: 10)
        #expect(status == .exited(0), "status \(status?.description ?? "running"); stderr: \(app.stderrText)")
        #expect(app.allEvents.filter { $0["event"]?.string == "ready" }.count <= 1)
    }

    /// The signals blocked in process `pid` (SigBlk in /proc/PID/status), or nil once it is gone.
    static func blockedSignals(_ pid: pid_t) -> UInt64? {
        guard let status = try? String(decoding: readProcFile("/proc/\(pid)/status"), as: UTF8.self),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("SigBlk:") }) else { return nil }
        return UInt64(String(line.dropFirst(7).filter { !$0.isWhitespace }), radix: 16)
    }

    static func bit(_ signal: Int32) -> UInt64 { 1 << UInt64(signal - 1) }

    /// SIGTERM from the first instruction: the signals are blocked by the executable's ELF
    /// pre-initializer, before any library initializer or Swift code. Only the dynamic loader's work
    /// before it (mapping and relocating the libraries, about 1–3 ms) is unprotected: a SIGTERM sent
    /// while /proc still shows SIGTERM unblocked may end the app with the default action, and is
    /// counted, not failed. Once SIGTERM shows blocked, the exit must be 0.
    @Test("SIGTERM at random moments 0–20 ms (or 3 loader times) after exec, 200 times: status 0 whenever it came after the loader")
    func signalStormFromExec() throws {
        let server = try XvfbServer.start()
        let executable = try BuiltProducts.executable(named: "badge-demo")
        // The loader's time is measured first: a sanitizer build's runtime starts before the
        // pre-initializer and takes several times longer, so the delays cover 0 to 20 ms or three
        // times the slowest of five measured starts, whichever is longer.
        var loaderNanoseconds: [Int] = []
        for _ in 0..<5 {
            let start = ContinuousClock.now
            let app = try ChildProcess(executable: executable, arguments: ["--no-state"],
                                       environment: .inherited(adding: ["DISPLAY": server.display]), stdin: .null, stdout: .null)
            let deadline = Deadline(seconds: 10)
            while !deadline.hasPassed, (Self.blockedSignals(app.pid) ?? 0) & Self.bit(SIGTERM) == 0 { sched_yield() }
            let taken = ContinuousClock.now - start
            loaderNanoseconds.append(Int(taken.components.seconds) * 1_000_000_000 + Int(taken.components.attoseconds / 1_000_000_000))
            app.kill(SIGTERM)
            _ = app.waitForExit(timeout: 10)
        }
        let longest = max(20_000_000, 3 * (loaderNanoseconds.max() ?? 0))
        var protected = 0, unprotected = 0, killedUnprotected = 0
        for run in 0..<200 {
            let app = try ChildProcess(executable: executable, arguments: ["--no-state"],
                                       environment: .inherited(adding: ["DISPLAY": server.display]), stdin: .null, stdout: .null)
            let delay = Int.random(in: 0...longest)
            var pause = timespec(tv_sec: delay / 1_000_000_000, tv_nsec: delay % 1_000_000_000)
            nanosleep(&pause, nil)
            let blocked = Self.blockedSignals(app.pid).map { $0 & Self.bit(SIGTERM) != 0 } ?? false
            app.kill(SIGTERM)
            let status = app.waitForExit(timeout: 10)
            if blocked {
                protected += 1
                #expect(status == .exited(0), "run \(run): SIGTERM was blocked, yet \(status?.description ?? "still running"); stderr: \(app.stderrText)")
            } else {
                unprotected += 1
                if status == .signaled(SIGTERM) { killedUnprotected += 1 } else {
                    #expect(status == .exited(0), "run \(run): \(status?.description ?? "still running"); stderr: \(app.stderrText)")
                }
            }
        }
        // Most delays are past the loader's few milliseconds: the protected path is what is tested.
        #expect(protected >= 50, "only \(protected) of 200 signals came after the loader")
        print("signal storm: delays 0–\(longest / 1_000_000) ms; \(protected) of 200 after the pre-initializer, all exit 0; \(unprotected) before it "
              + "(SigBlk still empty), of which \(killedUnprotected) ended by the default action")
    }
}

/// The bytes of a /proc file (small, read whole).
func readProcFile(_ path: String) throws -> [UInt8] {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw HarnessError("cannot open \(path)") }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = read(fd, &buffer, buffer.count)
        if count <= 0 { break }
        bytes += buffer[0..<count]
    }
    return bytes
}
