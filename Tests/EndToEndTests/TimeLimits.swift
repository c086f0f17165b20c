import Glibc
import Testing

/// How much longer a test may take than its nominal limit. Swift Testing starts every test at once
/// and counts its time from there, while the tests wait their turn for one of the pool's threads (two
/// on the two-core machines CI runs): a test's limit has to cover the wait behind the others, which
/// grows with the suite. Under AddressSanitizer (`make sanitize`, several times slower) it grows more.
let timeLimitFactor = runsUnderSanitizer ? 10 : 3

/// Minutes every end-to-end limit adds for that wait. A test's timer starts when Swift Testing
/// schedules it, but its body may then queue behind every other blocking test, so the wait can be as
/// long as the whole run (about 4 minutes for `make test`, whose IMAP suite alone keeps a thread
/// waiting on Dovecot for most of it; CI once timed out eight pointer tests at 3 minutes that way).
/// A hang is still caught well inside CI's 90 minutes, and every wait in the harness has its own
/// deadline, so a limit is only the last guard.
let queueAllowanceMinutes = runsUnderSanitizer ? 30 : 12

/// True under AddressSanitizer (`make sanitize`), whose shadow memory also inflates resident
/// memory: bounds on it are for the real build.
let runsUnderSanitizer = getenv("ASAN_OPTIONS") != nil

extension Trait where Self == TimeLimitTrait {
    /// An end-to-end test's time limit: `minutes`, scaled by ``timeLimitFactor``, plus the wait in the
    /// queue (``queueAllowanceMinutes``). It catches a hang, not slowness (speed is measured by
    /// `make bench`).
    static func endToEnd(minutes: Int) -> Self {
        .timeLimit(.minutes(minutes * timeLimitFactor + queueAllowanceMinutes))
    }
}
