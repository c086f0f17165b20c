import Glibc

/// How a child process ended.
public enum ProcessTermination: Equatable, Sendable, CustomStringConvertible {
    /// Normal exit with this status code.
    case exited(Int32)
    /// Killed by this signal.
    case signaled(Int32)

    /// Decodes a raw `waitpid` status by hand (WIFEXITED and friends are C macros).
    public init?(waitStatus status: Int32) {
        let low = status & 0x7f
        if low == 0 {
            self = .exited((status >> 8) & 0xff)
        } else if low != 0x7f {
            self = .signaled(low)
        } else {
            return nil  // stopped or continued: not an end
        }
    }

    /// "exited with status N" or "killed by signal N".
    public var description: String {
        switch self {
        case .exited(let code): return "exited with status \(code)"
        case .signaled(let sig): return "killed by signal \(sig)"
        }
    }
}
