/// When to try again after a write failed: 1 s, then twice as long after each failure in a row, up
/// to 60 s; back to the start after a success. Knows whether this streak of failures was reported.
struct RetryBackoff {
    /// The first wait, in seconds.
    static let first = 1.0
    /// The longest wait, in seconds.
    static let longest = 60.0

    /// Failures in a row so far.
    private(set) var failures = 0

    /// True while the last attempt failed.
    var isFailing: Bool { failures > 0 }

    /// Records a failure; returns the seconds to wait before the next try and whether this is the
    /// streak's first failure (the one worth a warning).
    mutating func failed() -> (delay: Double, isFirst: Bool) {
        failures += 1
        var delay = Self.first
        for _ in 1..<min(failures, 16) { delay = min(delay * 2, Self.longest) }
        return (delay, failures == 1)
    }

    /// Records a success; returns true when it ends a streak of failures (worth saying so).
    mutating func succeeded() -> Bool {
        defer { failures = 0 }
        return failures > 0
    }
}
