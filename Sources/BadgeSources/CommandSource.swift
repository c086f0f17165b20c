import BadgeCore
import BadgeIO

/// A badge from a program's output: run at the start, every ``interval`` seconds and on
/// ``refresh()``.
///
/// The program is an argument vector, run without a shell (give `["sh", "-c", "…"]` for one). Its
/// standard output is a count (`3`), or one JSON object: `{"count": 3}`, `{"text": "failed"}`,
/// `{"dot": true}`, each with an optional `"description"` for people; empty output means no badge.
/// A run that exits with a status other than 0, is killed, prints something else, writes more than
/// ``outputLimit`` bytes, or takes longer than ``timeout`` gives a reading with ``SourceReading/error``
/// set and ``SourceReading/isStale`` true, keeping the last good content. A program past its limits
/// is stopped with its whole process group (SIGTERM, then SIGKILL a second later).
///
/// The loop never waits for the program: it runs in a process group of its own, its output is read
/// without blocking through ``descriptors``, and its exit is noticed through a pidfd. One run at a
/// time: a ``refresh()`` during a run runs it again once that one ends. ``SourceReading/updated`` is
/// the time of the last successful run. Not Sendable: create and use it on the loop's thread.
public final class CommandSource: BadgeSource {
    /// The program and its arguments.
    public let arguments: [String]
    /// Seconds between the starts of two runs; nil to run only at the start and on ``refresh()``.
    public let interval: Double?
    /// Seconds a run may take before it is stopped.
    public let timeout: Double
    /// The most standard output a run may write, in bytes.
    public let outputLimit: Int

    /// What the source says now.
    public private(set) var reading: SourceReading
    /// Called whenever ``reading`` changes.
    public var onChange: ((SourceReading) -> Void)?

    private let environment: [String: String?]
    private let defaultDescription: String
    private var run: ChildRun?
    private var runAgain = false
    private var lastStart: Double?
    private var started = false

    /// A source that runs `arguments` (argv[0] is looked up on PATH when it has no slash; `~/` is
    /// expanded in it).
    ///
    /// - Parameters:
    ///   - arguments: the program and its arguments, run without a shell.
    ///   - interval: seconds between runs (nil: only at the start and on ``refresh()``).
    ///   - timeout: seconds a run may take.
    ///   - outputLimit: bytes of standard output a run may write.
    ///   - environment: variables to set for the program, on top of this process's.
    ///   - description: how to name the source to people; by default "command " and the arguments.
    public init(arguments: [String], interval: Double? = nil, timeout: Double = 10, outputLimit: Int = 64 * 1024,
                environment: [String: String] = [:], description: String? = nil) {
        var expanded = arguments
        if let program = arguments.first { expanded[0] = FilePaths.expandingTilde(program) }
        self.arguments = expanded
        self.interval = interval.map { max(0.1, $0) }
        self.timeout = max(0.01, timeout)
        self.outputLimit = max(1, outputLimit)
        self.environment = environment.mapValues { Optional($0) }
        let shown = expanded.enumerated().map { $0 == 0 ? FilePaths.abbreviatingHome($1) : $1 }
        let said = description.map { Sentence(verbatim: $0) } ?? Sentence("command %s", .text(shown.joined(separator: " ")))
        defaultDescription = said.english
        reading = SourceReading(said: said)
    }

    /// The pipes and the pidfd of the run in progress.
    public var descriptors: [Int32] { run?.descriptors ?? [] }

    /// Seconds until the run in progress must be checked, or until the next run; nil when idle
    /// without an interval.
    public var timeUntilDue: Double? {
        if let run {
            // A run still going when the next one is due has missed its interval: marked then.
            guard let overdue = overdueTime, !reading.isStale else { return run.timeUntilDue }
            return min(run.timeUntilDue ?? .infinity, overdue - SystemTime.monotonic)
        }
        guard started, let interval, let lastStart else { return nil }
        return lastStart + interval - SystemTime.monotonic
    }

    /// When the run in progress misses its interval (nil without an interval).
    private var overdueTime: Double? {
        guard let interval, let lastStart else { return nil }
        return lastStart + interval
    }

    /// Whether a run is in progress.
    public var isRunning: Bool { run != nil }

    /// Starts the first run.
    public func start() {
        guard !started else { return }
        started = true
        launch()
    }

    /// Reads the run's output, or notices its end.
    public func handle(readable descriptor: Int32) {
        run?.handle(readable: descriptor)
        finishIfDone()
    }

    /// Stops a run past its time limit, or starts the next one.
    public func handleDeadline() {
        if let run {
            if let overdue = overdueTime, SystemTime.monotonic >= overdue, !reading.isStale, reading.content != nil {
                // The last value is kept, but not as a confident one: the run that should confirm it is late.
                var late = reading
                late.isStale = true
                late.fail(Sentence("the run has not finished within its %s interval", .text(Self.seconds(interval ?? 0))))
                reading = late
                onChange?(late)
            }
            run.handleDeadline()
            finishIfDone()
        } else if let due = timeUntilDue, due <= 0 {
            launch()
        }
    }

    /// Runs the program now, or again as soon as the run in progress ends.
    public func refresh() {
        guard started else { return start() }
        if run != nil { runAgain = true } else { launch() }
    }

    /// Ends the run in progress (its process group is killed) and runs no more.
    public func stop() {
        run = nil  // its deinit kills the group and reaps the child
        runAgain = false
        started = false
    }

    private func launch() {
        lastStart = SystemTime.monotonic
        run = ChildRun(arguments: arguments, environment: environment, timeLimit: timeout, outputLimit: outputLimit)
        finishIfDone()  // a program that could not be started
    }

    private func finishIfDone() {
        guard let outcome = run?.outcome else { return }
        run = nil
        var next = reading
        switch judge(outcome) {
        case .success(let output):
            next.content = output.content
            next.items = output.items
            next.description = output.description ?? defaultDescription
            next.updated = SystemTime.realtime
            next.error = nil
            next.isStale = false
        case .failure(let failure):
            next.fail(failure.said)
            next.isStale = true
        }
        if next != reading {
            reading = next
            onChange?(next)
        }
        if runAgain {
            runAgain = false
            launch()
        }
    }

    /// Why a run gave no reading, in words for people.
    private struct Failure: Error {
        var said: Sentence
    }

    private func judge(_ outcome: ChildOutcome) -> Result<CommandOutput, Failure> {
        let name = FilePaths.abbreviatingHome(arguments.first ?? "the command")
        if let spawnFailure = outcome.spawnFailure { return .failure(Failure(said: Sentence(verbatim: spawnFailure))) }
        switch outcome.cutoff {
        case .timedOut(let limit)?:
            return .failure(Failure(said: Sentence("%1$s did not finish within %2$s and was stopped", .text(name), .text("\(Self.seconds(limit))"))))
        case .tooMuchOutput(let limit)?:
            return .failure(Failure(said: Sentence("%1$s wrote more than %2$s and was stopped", .text(name), .text("\(Self.bytes(limit))"))))
        case nil:
            break
        }
        let detail = outcome.lastErrorLine.map { ": " + $0 } ?? ""
        if let signal = outcome.signal { return .failure(Failure(said: Sentence("%1$s was ended by signal %2$s%3$s", .text(name), .text("\(signal)"), .text(detail)))) }
        if let status = outcome.exitStatus, status != 0 { return .failure(Failure(said: Sentence("%1$s exited with status %2$s%3$s", .text(name), .text("\(status)"), .text(detail)))) }
        return CommandOutput.parse(outcome.output).mapError { Failure(said: Sentence("%1$s %2$s", .text(name), .sentence($0.sentence))) }
    }

    private static func seconds(_ value: Double) -> String {
        value.rounded() == value ? "\(Int(value)) s" : "\(value) s"
    }

    private static func bytes(_ value: Int) -> String {
        value % 1024 == 0 ? "\(value / 1024) KiB" : "\(value) bytes"
    }

}
