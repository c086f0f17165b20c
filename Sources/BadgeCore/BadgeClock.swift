/// A monotonic time source in seconds, injected so animations are testable.
public protocol BadgeClock: AnyObject {
    /// The current time in seconds; never goes backwards.
    var now: Double { get }
}
