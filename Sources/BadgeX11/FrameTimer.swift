import CLinuxEvents
import Glibc

/// A timerfd that wakes the event loop for the next animation frame; disarmed when nothing
/// animates, so an idle app has zero wakeups.
public final class FrameTimer {
    /// The timer's file descriptor, for poll().
    public let fileDescriptor: Int32
    /// True while a wakeup is scheduled.
    public private(set) var isArmed = false

    /// Creates a disarmed monotonic timer.
    public init() throws {
        let fd = timerfd_create(CLOCK_MONOTONIC, Int32(TFD_NONBLOCK | TFD_CLOEXEC))
        guard fd >= 0 else { throw X11Error("badge-demo: cannot create a timer: \(String(cString: strerror(errno)))") }
        fileDescriptor = fd
    }

    deinit { close(fileDescriptor) }

    /// Schedules one wakeup `seconds` from now (at least 1 ms).
    public func arm(after seconds: Double) {
        let delay = max(0.001, min(seconds, 3600))
        var spec = itimerspec()
        spec.it_value.tv_sec = Int(delay)
        spec.it_value.tv_nsec = Int((delay - Double(Int(delay))) * 1e9)
        timerfd_settime(fileDescriptor, 0, &spec, nil)
        isArmed = true
    }

    /// Cancels any scheduled wakeup.
    public func disarm() {
        guard isArmed else { return }
        var spec = itimerspec()
        timerfd_settime(fileDescriptor, 0, &spec, nil)
        isArmed = false
    }

    /// Consumes the expiration count after poll() reported the timer readable.
    public func acknowledge() {
        var expirations: UInt64 = 0
        _ = read(fileDescriptor, &expirations, 8)
        isArmed = false
    }
}
