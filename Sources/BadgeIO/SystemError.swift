/// Something the system must provide failed (a `poll`, a `signalfd`): what it was for, and why.
public struct SystemError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What could not be had ("signal handling", "the event loop").
    public let what: String
    /// Why, from the system's error ("signalfd failed: Too many open files").
    public let reason: String

    /// Creates an error for `what`, with the system's `reason`.
    public init(_ what: String, reason: String) {
        self.what = what
        self.reason = reason
    }

    /// "signal handling is not available: signalfd failed: …"
    public var description: String { "\(what) is not available: \(reason)" }
}
