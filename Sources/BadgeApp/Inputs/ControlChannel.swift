import BadgeCore
import BadgeX11
import Glibc
import BadgeControl

/// `--control`: commands read line by line from standard input, JSON events written to standard
/// output without blocking (``EventOutput``).
///
/// Bad lines (too long, invalid UTF-8, unknown commands or buttons) become `error` events with
/// their line number; the app keeps running. End of input stops reading, not the app. While the
/// reader of our output lags far behind, commands wait (back-pressure); input and repaints go on.
/// Not Sendable: event-loop thread only.
final class ControlChannel {
    /// What a line asks of the app, once parsed.
    enum Request {
        /// A control-protocol command.
        case command(ControlCommand)
        /// A fault-injection command (BADGE_DEBUG=1 only).
        case debug(DebugCommand)
    }

    /// Fault injection for tests (BADGE_DEBUG=1 only).
    enum DebugCommand: String {
        /// Sends a request the server refuses: FreePixmap of None (BadPixmap).
        case badRequest = "debug-bad-request"
    }

    private let input: Int32
    private let output: EventOutput
    private let acceptsDebugCommands: Bool
    private var reader = LineReader(maximumLineLength: ControlCommand.maximumLineLength)
    private var lineNumber = 0
    private var open = true
    /// Runs each request as it is read; returns false to stop reading the rest of this batch (quit).
    var execute: ((Request) -> Bool)?

    /// Reads commands from `input` and writes events to `output` (standard input and output).
    init(input: Int32 = 0, output: Int32 = 1, acceptsDebugCommands: Bool) {
        self.input = input
        self.output = EventOutput(descriptor: output)
        self.acceptsDebugCommands = acceptsDebugCommands
    }

    /// Queues one event line.
    func emit(_ event: JSONValue) {
        output.send(event.serialized)
    }

    /// Reports a bad line as an `error` event naming the current line.
    func emitError(_ reason: String) {
        emit(ControlEvents.error(line: lineNumber, reason: reason))
    }

    /// The loop's two sources: "control-input" (standard input, while open and not backed up) and
    /// "control-output" (standard output, while events wait).
    var sources: [EventLoop.Source] {
        [EventLoop.Source(name: "control-input", descriptor: { [input] in input },
                          interest: { [weak self] in self?.isReading == true ? .readable : [] },
                          handle: { [weak self] _ in self?.read() }),
         EventLoop.Source(name: "control-output", descriptor: { [output] in output.descriptor },
                          interest: { [output] in output.hasBacklog ? .writable : [] },
                          handle: { [output] _ in output.flush() })]
    }

    /// Gives the reader up to `timeout` seconds to take the last events.
    func finish(timeout: Double) {
        output.finish(timeout: timeout)
    }

    private var isReading: Bool { open && !output.isBackedUp }

    /// True while the reader of our events lags far behind (other command sources wait too).
    var isBackedUp: Bool { output.isBackedUp }

    private func read() {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let count = buffer.withUnsafeMutableBytes { Glibc.read(input, $0.baseAddress, $0.count) }
        if count < 0 {
            if errno == EINTR || errno == EAGAIN { return }
            open = false
            return
        }
        guard count > 0 else {
            // End of input: stop reading, keep the window.
            open = false
            return
        }
        let items = buffer.withUnsafeBytes { reader.feed(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
        for item in items {
            lineNumber += 1
            guard let request = parse(item) else { continue }
            if execute?(request) == false { return }
        }
    }

    private func parse(_ item: LineReader.Item) -> Request? {
        switch item {
        case .tooLong:
            emitError(Sentence("line longer than %s bytes", .number(ControlCommand.maximumLineLength)).localized)
            return nil
        case .line(let line, let valid):
            guard valid else {
                emitError(Sentence("line is not valid UTF-8").localized)
                return nil
            }
            if acceptsDebugCommands, let debug = DebugCommand(rawValue: line) { return .debug(debug) }
            switch ControlCommand.parse(line) {
            case .success(let command): return .command(command)
            case .failure(let error):
                emitError(error.sentence.localized)
                return nil
            }
        }
    }
}
