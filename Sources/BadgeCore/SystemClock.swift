/// The real monotonic clock (`ContinuousClock`), reading seconds since the clock was created.
public final class SystemClock: BadgeClock {
    private let clock = ContinuousClock()
    private let start: ContinuousClock.Instant

    /// Creates a clock reading 0 now.
    public init() {
        start = clock.now
    }

    /// Seconds elapsed since `init`.
    public var now: Double {
        let elapsed = start.duration(to: clock.now).components
        return Double(elapsed.seconds) + Double(elapsed.attoseconds) * 1e-18
    }
}
