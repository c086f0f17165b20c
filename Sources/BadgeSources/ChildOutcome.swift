/// How one run of a child process ended, and what it wrote.
package struct ChildOutcome: Equatable, Sendable {
    /// Why a run ended badly before it could be judged by its exit status.
    package enum Cutoff: Equatable, Sendable {
        /// It ran longer than its time limit (seconds) and was stopped.
        case timedOut(Double)
        /// It wrote more than the limit (bytes) to stdout and was stopped.
        case tooMuchOutput(Int)
    }

    /// The exit status, when it exited.
    package var exitStatus: Int32?
    /// The signal that ended it, when one did.
    package var signal: Int32?
    /// What stopped it early, if anything did.
    package var cutoff: Cutoff?
    /// Its standard output (at most the limit).
    package var output: [UInt8] = []
    /// The end of its standard error (at most 4 KiB), for error messages.
    package var errorOutput: [UInt8] = []
    /// Why it could not be started (posix_spawn's reason); the other fields are then empty.
    package var spawnFailure: String?

    /// True when it exited with status 0 and was not stopped.
    package var succeeded: Bool { spawnFailure == nil && cutoff == nil && exitStatus == 0 }

    /// The last non-empty line of its standard error, shortened, or nil.
    package var lastErrorLine: String? {
        let text = String(decoding: errorOutput, as: UTF8.self)
        guard let line = text.split(whereSeparator: \.isNewline).last(where: { !$0.allSatisfy(\.isWhitespace) }) else {
            return nil
        }
        let trimmed = line.trimmingWhitespace()
        return trimmed.count > 200 ? String(trimmed.prefix(200)) + "…" : trimmed
    }
}

extension StringProtocol {
    /// The text without white space (spaces, tabs, line ends) at either end.
    package func trimmingWhitespace() -> String {
        guard let first = firstIndex(where: { !$0.isWhitespace }),
              let last = lastIndex(where: { !$0.isWhitespace }) else { return "" }
        return String(self[first...last])
    }
}
