import BadgeX11
import Glibc
import XvfbHarness

/// What the bars' own protocols cost (issue 36), from outside: a line on an open socket connection
/// to the bar's line for it on each `msg --watch --format F` (json, the events as they come, is
/// the reference: the formats add one JSON parse and one line's text), interleaved per round.
enum BarBenchmark {
    static let formats = ["json", "i3bar", "i3blocks", "polybar", "lemonbar", "waybar"]

    /// Seconds from each `set mail N` to the line that shows N, per format.
    static func runOnce(demo: String, rounds: Int) throws -> [String: [Double]] {
        let server = try XvfbServer.start(width: 640, height: 480, depth: 24)
        defer { server.stop() }
        let runtime = try Artifacts.path(for: "bench-bars-\(getpid())")
        removeTree(runtime)
        guard mkdir(runtime, 0o700) == 0 else { throw HarnessError("mkdir \(runtime) failed") }
        defer { removeTree(runtime) }
        let app = try ChildProcess(executable: demo, arguments: ["--no-state", "--no-tray"],
                                   environment: .inherited(adding: ["DISPLAY": server.display, "XDG_RUNTIME_DIR": runtime]),
                                   stdin: .null, stdout: .null)
        defer { app.kill(SIGKILL); _ = app.waitForExit(timeout: 5) }
        let socket = runtime + "/badge-demo/control.sock"
        let deadline = Deadline(seconds: 15)
        while access(socket, F_OK) != 0, !deadline.hasPassed { _ = poll(nil, 0, 10) }
        var watchers: [String: ChildProcess] = [:]
        for format in formats {
            watchers[format] = try ChildProcess(executable: demo, arguments: ["msg", "--watch", "--format", format],
                                                environment: .inherited(adding: ["XDG_RUNTIME_DIR": runtime], removing: ["DISPLAY"]), stdin: .null)
        }
        defer { for watcher in watchers.values { watcher.kill(SIGKILL); _ = watcher.waitForExit(timeout: 5) } }
        let connection = try ControlSocketClient(path: socket)
        // The text formats cap a count at "99+", so the counts stay in 20...98; a count matches only
        // whole ("Mail 2" is not in "Mail 25"), and no other button shows a count in that range.
        func shows(_ line: String, _ count: Int) -> Bool {
            for marker in ["Mail \(count)", "\"count\":\(count)"] {
                for found in line.ranges(of: marker) where !(line[found.upperBound...].first?.isNumber ?? false) {
                    return true
                }
            }
            return false
        }
        func readUntil(_ watcher: ChildProcess, shows count: Int) throws {
            while let line = try watcher.readLine(timeout: 10) {
                if shows(line, count) { return }
            }
            throw HarnessError("the stream ended before it showed \(count)")
        }
        var times: [String: [Double]] = [:]
        var count = 20
        func watcher(_ format: String) throws -> ChildProcess {
            guard let found = watchers[format] else { throw HarnessError("no watcher for \(format)") }
            return found
        }
        _ = try connection.request("set mail \(count)")
        for format in formats { try readUntil(try watcher(format), shows: count) }
        for round in 0..<rounds {
            // A different format first each round, so none is always measured on a warmer machine.
            let order = formats.indices.map { formats[($0 + round) % formats.count] }
            for format in order {
                count = count == 98 ? 20 : count + 1
                let sent = ContinuousClock.now
                _ = try connection.request("set mail \(count)")
                try readUntil(try watcher(format), shows: count)
                let elapsed = ContinuousClock.now - sent
                times[format, default: []].append(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
                for other in formats where other != format { try readUntil(try watcher(other), shows: count) }
            }
        }
        return times
    }

    /// Runs `runs` times and prints a row per format: its median and its ratio to json's.
    static func run(demo: String, runs: Int) throws {
        var times: [String: [Double]] = [:]
        for _ in 0..<runs {
            for (format, samples) in try runOnce(demo: demo, rounds: 20) { times[format, default: []] += samples }
        }
        let reference = Statistics.median(times["json"] ?? [])
        for format in formats {
            let median = Statistics.median(times[format] ?? [])
            row("socket line → `msg --watch --format \(format)` line", "\(Statistics.format(median * 1e3, digits: 2)) ms"
                + (format == "json" ? "" : " (\(Statistics.format(median / reference, digits: 2)) × json)"),
                format == "json" ? "reference" : "≈ json", "\(runs) × 20 rounds, interleaved")
        }
    }
}
