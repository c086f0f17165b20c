import BadgeCore
import BadgeIO
import Glibc
import Testing
@testable import BadgeSources

/// The command source with real programs: what they print, how they fail, and that the loop is never
/// held up by them.
@Suite struct CommandSourceTests {
    /// A shell script that does what the file `mode` in its folder says, so one source can be driven
    /// through every outcome with ``CommandSource/refresh()``.
    static let script = """
    mode=$(cat "$1/mode")
    case "$mode" in
      fail) echo "ci-status: cannot reach ci.example.org" >&2; exit 3 ;;
      hang) echo $$ > "$1/pids"; sleep 30 & echo $! >> "$1/pids"; wait ;;
      garbage) echo "lots of things" ;;
      huge) head -c 10M /dev/zero ;;
      yes) exec yes ;;
      *) echo "$mode" ;;
    esac
    """

    func drive(_ loop: SourceLoop, until condition: () -> Bool, sourceLocation: SourceLocation = #_sourceLocation) {
        let reached = loop.run(atMost: 10, until: condition)
        #expect(reached, sourceLocation: sourceLocation)
    }

    @Test func numbersAndJSONBecomeContent() throws {
        let cases: [(String, BadgeContent, String?)] = [
            ("42", .count(42), nil),
            ("  7\n", .count(7), nil),
            ("", .none, nil),
            (#"{"count": 5}"#, .count(5), nil),
            (#"{"count": 5.0, "description": "open pull requests"}"#, .count(5), "open pull requests"),
            (#"{"text": "CI failed"}"#, .text("CI failed"), nil),
            (#"{"dot": true}"#, .dot, nil),
            (#"{"dot": false}"#, .none, nil),
        ]
        for (printed, content, description) in cases {
            let result = CommandOutput.parse(Array(printed.utf8))
            #expect(result == .success(CommandOutput(content: content, description: description)), "\(printed)")
        }
        let bad: [(String, String)] = [
            ("hello", "neither a number nor JSON"),
            ("-3", "cannot be negative"),
            ("3 4", "neither a number nor JSON"),
            (#"{"count": -1}"#, "cannot be negative"),
            (#"{"count": "3"}"#, "must be a number"),
            (#"{"count": 1, "text": "x"}"#, "only one of"),
            (#"{"text": 3}"#, "wrong type"),
            (#"{"colour": "red"}"#, "needs \"count\""),
            (#"{"count": 3"#, "not valid JSON"),
        ]
        for (printed, reason) in bad {
            guard case .failure(let error) = CommandOutput.parse(Array(printed.utf8)) else {
                Issue.record("\(printed) was accepted")
                continue
            }
            #expect(error.description.contains(reason), "\(printed): \(error.description)")
        }
    }

    @Test func aRunTakesTheFirstReadingAndJSONNamesItself() throws {
        let number = CommandSource(arguments: ["printf", "12\\n"])
        let json = CommandSource(arguments: ["printf", #"{"text": "ok", "description": "ci main"}"#])
        let loop = SourceLoop(sources: [number, json])
        loop.start()
        #expect(number.isRunning, "start() starts the first run and returns")
        drive(loop) { number.reading.content != nil && json.reading.content != nil }
        #expect(number.reading == SourceReading(content: .count(12), description: "command printf 12\\n",
                                                updated: number.reading.updated))
        #expect(number.reading.updated.map { abs($0 - SystemTime.realtime) < 60 } == true)
        #expect(json.reading.content == .text("ok"))
        #expect(json.reading.description == "ci main")
        #expect(loop.timeUntilDue == nil, "no interval: nothing more to do")
        #expect(number.descriptors.isEmpty)
    }

    @Test func failuresKeepTheLastGoodContentAndSayWhy() throws {
        let temp = try TemporaryFolder()
        try temp.write("3", to: "mode")
        let source = CommandSource(arguments: ["sh", "-c", Self.script, "sh", temp.path], timeout: 0.5)
        let loop = SourceLoop(sources: [source])
        var changes = 0
        source.onChange = { _ in changes += 1 }
        loop.start()
        drive(loop) { source.reading.content == .count(3) }
        let goodTime = source.reading.updated

        func outcome(of mode: String) -> SourceReading {
            try? temp.write(mode, to: "mode")
            source.refresh()
            _ = loop.run(atMost: 10) { !source.isRunning }
            return source.reading
        }

        let failed = outcome(of: "fail")
        #expect(failed.content == .count(3))
        #expect(failed.isStale)
        #expect(failed.updated == goodTime)
        #expect(failed.error == "sh exited with status 3: ci-status: cannot reach ci.example.org")

        let garbage = outcome(of: "garbage")
        #expect(garbage.isStale && garbage.content == .count(3))
        #expect(garbage.error?.hasPrefix("sh printed \"lots of things\": neither a number nor JSON") == true, "\(garbage.error ?? "")")

        for mode in ["huge", "yes"] {
            let begin = SystemTime.monotonic
            let huge = outcome(of: mode)
            #expect(huge.isStale && huge.content == .count(3))
            #expect(huge.error == "sh wrote more than 64 KiB and was stopped", "\(mode): \(huge.error ?? "")")
            #expect(SystemTime.monotonic - begin < 0.5, "\(mode) is stopped at the limit, not at the timeout")
        }

        let recovered = outcome(of: "9")
        #expect(recovered.content == .count(9) && !recovered.isStale && recovered.error == nil)
        #expect(changes >= 5)
    }

    @Test func aHangIsStoppedWithItsGroupWhileTheLoopGoesOn() throws {
        let temp = try TemporaryFolder()
        try temp.write("hang", to: "mode")
        let hung = CommandSource(arguments: ["sh", "-c", Self.script, "sh", temp.path], timeout: 0.7)
        try temp.write("1", to: "ticks")
        // Another source that runs every 0.1 s and counts its runs: it must go on while the other hangs.
        let ticker = CommandSource(arguments: ["sh", "-c", "n=$(cat \"$1/ticks\"); echo $((n + 1)) > \"$1/ticks\"; echo $n", "sh", temp.path],
                                   interval: 0.1)
        let loop = SourceLoop(sources: [hung, ticker])
        let begin = SystemTime.monotonic
        loop.start()
        var longestTurn = 0.0
        var ticksDuringHang = 0
        while hung.reading.error == nil && SystemTime.monotonic - begin < 10 {
            let turn = SystemTime.monotonic
            loop.runOnce(timeout: 1)
            longestTurn = max(longestTurn, SystemTime.monotonic - turn)
            if case .count(let n)? = ticker.reading.content { ticksDuringHang = n }
        }
        let elapsed = SystemTime.monotonic - begin
        #expect(hung.reading.error == "sh did not finish within 0.7 s and was stopped")
        #expect(hung.reading.isStale)
        #expect(hung.reading.content == nil, "no good reading yet")
        #expect(elapsed >= 0.7 && elapsed < 3, "stopped after \(elapsed) s")
        #expect(ticksDuringHang >= 3, "the other source ran \(ticksDuringHang) times meanwhile")
        #expect(longestTurn < 0.5, "one turn of the loop took \(longestTurn) s")

        // The shell and the sleep it started in the background are both gone.
        let pids = String(decoding: (try? readAll(temp("pids"))) ?? [], as: UTF8.self).split(separator: "\n").compactMap { Int32($0) }
        #expect(pids.count == 2)
        let deadline = SystemTime.monotonic + 5
        while pids.contains(where: isAlive) && SystemTime.monotonic < deadline { _ = poll(nil, 0, 10) }
        #expect(!pids.contains(where: isAlive), "left running: \(pids.filter(isAlive))")
        ticker.stop()
        #expect(loop.timeUntilDue == nil)
    }

    @Test func refreshAndIntervalRunItAgain() throws {
        let temp = try TemporaryFolder()
        try temp.write("1", to: "mode")
        let onDemand = CommandSource(arguments: ["sh", "-c", Self.script, "sh", temp.path])
        let loop = SourceLoop(sources: [onDemand])
        loop.start()
        drive(loop) { onDemand.reading.content == .count(1) }
        try temp.write("2", to: "mode")
        #expect(loop.runOnce(timeout: 0.2) == 0, "no interval: no run until asked")
        #expect(onDemand.reading.content == .count(1))
        onDemand.refresh()
        onDemand.refresh()  // during the run: once more after it, not a second child at once
        drive(loop) { onDemand.reading.content == .count(2) && !onDemand.isRunning }

        try temp.write("0", to: "ticks")
        let timed = CommandSource(arguments: ["sh", "-c", "n=$(cat \"$1/ticks\"); echo $((n + 1)) > \"$1/ticks\"; echo $n", "sh", temp.path],
                                  interval: 0.2)
        loop.add(timed)
        timed.start()
        drive(loop) { timed.reading.content == .count(0) && !timed.isRunning }
        if let due = timed.timeUntilDue { #expect(due > 0 && due <= 0.2) } else { Issue.record("no next run") }
        let begin = SystemTime.monotonic
        drive(loop) { timed.reading.content == .count(3) }
        #expect(SystemTime.monotonic - begin >= 0.5, "three more runs, 0.2 s apart")
        timed.stop()
        #expect(timed.timeUntilDue == nil && timed.descriptors.isEmpty)
    }

    @Test func aRunThatMissesItsIntervalMakesTheValueStaleUntilItAnswers() throws {
        let temp = try TemporaryFolder()
        try temp.write("0", to: "slow")
        // Fast the first time, then 1.2 s a run: longer than the 0.4 s interval, within the timeout.
        let source = CommandSource(arguments: ["sh", "-c", "if [ \"$(cat \"$1/slow\")\" = 1 ]; then sleep 1.2; fi; echo 5", "sh", temp.path],
                                   interval: 0.4, timeout: 5)
        let loop = SourceLoop(sources: [source])
        loop.start()
        drive(loop) { source.reading.content == .count(5) && !source.isRunning }
        #expect(!source.reading.isStale)
        try temp.write("1", to: "slow")
        drive(loop) { source.reading.isStale }
        #expect(source.reading.content == .count(5), "the last value is kept")
        #expect(source.reading.error?.contains("has not finished within its") == true, "\(source.reading)")
        drive(loop) { !source.reading.isStale }
        #expect(source.reading.error == nil && source.reading.content == .count(5), "the late run confirms it")
        source.stop()
    }

    @Test func aProgramThatCannotBeStartedSaysSo() {
        let source = CommandSource(arguments: ["/nonexistent/ci-status", "--json"])
        source.start()
        #expect(source.reading.isStale)
        #expect(source.reading.error == "cannot run /nonexistent/ci-status: No such file or directory")
        #expect(source.descriptors.isEmpty && source.timeUntilDue == nil)
        let empty = CommandSource(arguments: [])
        empty.start()
        #expect(empty.reading.error == "no program given")
    }

    private func isAlive(_ pid: Int32) -> Bool {
        guard let stat = try? readAll("/proc/\(pid)/stat") else { return false }
        // "pid (comm) S …": a zombie (Z) waiting for its parent has ended.
        let text = String(decoding: stat, as: UTF8.self)
        guard let close = text.lastIndex(of: ")") else { return false }
        return !text[text.index(after: close)...].hasPrefix(" Z")
    }
}

/// The bytes of a small file (at most 64 KiB, read in one call).
func readAll(_ path: String) throws -> [UInt8] {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw TestFailure("cannot open \(path)") }
    defer { close(fd) }
    var bytes = [UInt8](repeating: 0, count: 64 * 1024)
    let got = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
    guard got >= 0 else { throw TestFailure("cannot read \(path)") }
    return Array(bytes.prefix(got))
}
