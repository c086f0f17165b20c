import Glibc

/// The two system clocks BadgeKit reads outside animations (which take a `BadgeClock`): monotonic for intervals and deadlines, real time for the
/// times shown to people and saved.
package enum SystemTime {
    /// CLOCK_MONOTONIC in seconds: for intervals and deadlines (never jumps; stops in suspend).
    package static var monotonic: Double { read(CLOCK_MONOTONIC) }
    /// CLOCK_REALTIME in seconds since 1970: for the time shown to people.
    package static var realtime: Double { read(CLOCK_REALTIME) }

    private static func read(_ clock: clockid_t) -> Double {
        var time = timespec()
        clock_gettime(clock, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
