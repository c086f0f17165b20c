/// Durations (seconds) and the bounce start scale of the badge animations.
public struct BadgeAnimationTiming: Hashable, Sendable {
    /// Change bounce: scale `bounceStartScale` → 1.
    public var bounceDuration = 0.2
    /// Appear: scale 0 → 1, opacity 0 → 1.
    public var appearDuration = 0.2
    /// Disappear: scale → 0, opacity → 0.
    public var disappearDuration = 0.2
    /// Rolling digits and the frame width morph.
    public var rollDuration = 0.3
    /// One blink: opacity 0 → 1.
    public var blinkPeriod = 1.2
    /// The scale a bounce starts from when the badge is at rest.
    public var bounceStartScale = 1.5

    /// The default timing.
    public init() {}

    /// Durations longer than this are clamped (10 minutes).
    public static let maximumDuration = 600.0
    /// Bounce start scales are clamped to 0...this.
    public static let maximumBounceScale = 10.0

    /// Usable timing. Durations: NaN, infinite or negative → default, 0 allowed (instant), clamped to
    /// `maximumDuration`. `blinkPeriod`: NaN, infinite or <= 0 → 1.2. `bounceStartScale`: NaN, infinite or
    /// negative → 1.5, clamped to `maximumBounceScale`.
    public func sanitized() -> BadgeAnimationTiming {
        let defaults = BadgeAnimationTiming()
        func duration(_ value: Double, _ fallback: Double) -> Double {
            guard value.isFinite, value >= 0 else { return fallback }
            return Swift.min(value, BadgeAnimationTiming.maximumDuration)
        }
        var timing = self
        timing.bounceDuration = duration(bounceDuration, defaults.bounceDuration)
        timing.appearDuration = duration(appearDuration, defaults.appearDuration)
        timing.disappearDuration = duration(disappearDuration, defaults.disappearDuration)
        timing.rollDuration = duration(rollDuration, defaults.rollDuration)
        timing.blinkPeriod = blinkPeriod > 0 ? duration(blinkPeriod, defaults.blinkPeriod) : defaults.blinkPeriod
        timing.bounceStartScale = bounceStartScale.isFinite && bounceStartScale >= 0
            ? Swift.min(bounceStartScale, BadgeAnimationTiming.maximumBounceScale) : defaults.bounceStartScale
        return timing
    }
}
