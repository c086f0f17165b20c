/// When to try again after a failure: `first` seconds, then twice as long after each failure in a
/// row, up to `longest`; back to the start after a success. Knows whether this streak of failures
/// was reported, and how long it is. Used for saving the counts (1 s to 60 s) and for a control
/// socket out of descriptors (0.1 s to 2 s).
package struct RetryBackoff: Sendable {
    /// The first wait, in seconds.
    package let first: Double
    /// The longest wait, in seconds.
    package let longest: Double

    /// Failures in a row so far.
    package private(set) var failures = 0

    /// Waits from `first` to `longest` seconds (default 1 s to 60 s).
    package init(first: Double = 1, longest: Double = 60) {
        self.first = first
        self.longest = longest
    }

    /// True while the last attempt failed.
    package var isFailing: Bool { failures > 0 }

    /// Records a failure; returns the seconds to wait before the next try and whether this is the
    /// streak's first failure (the one worth a warning).
    package mutating func failed() -> (delay: Double, isFirst: Bool) {
        failures += 1
        var delay = first
        for _ in 1..<min(failures, 16) { delay = min(delay * 2, longest) }
        return (delay, failures == 1)
    }

    /// Records a success; returns true when it ends a streak of failures (worth saying so).
    package mutating func succeeded() -> Bool {
        defer { failures = 0 }
        return failures > 0
    }
}
