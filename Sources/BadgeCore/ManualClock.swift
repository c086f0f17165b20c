/// A clock that only moves when told to: for tests and deterministic rendering.
public final class ManualClock: BadgeClock {
    /// The current time in seconds (settable directly).
    public var now: Double

    /// Creates a clock reading `now` (a non-finite start becomes 0).
    public init(now: Double = 0) {
        self.now = now.isFinite ? now : 0
    }

    /// Moves time forward; negative, NaN or infinite amounts are ignored so the clock stays monotonic and finite.
    public func advance(by seconds: Double) {
        guard seconds.isFinite, seconds > 0 else { return }
        now += seconds
    }
}
