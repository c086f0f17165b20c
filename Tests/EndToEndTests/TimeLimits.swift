import Glibc
import Testing

/// How much longer a test may take than its nominal limit. Swift Testing starts every test at once
/// and counts its time from there, while the tests wait their turn for one of the pool's threads (two
/// on the two-core machines CI runs): a test's limit has to cover the wait behind the others, which
/// grows with the suite. Under AddressSanitizer (`make sanitize`, several times slower) it grows more.
let timeLimitFactor = runsUnderSanitizer ? 10 : 3

/// True under AddressSanitizer (`make sanitize`), whose shadow memory also inflates resident
/// memory: bounds on it are for the real build.
let runsUnderSanitizer = getenv("ASAN_OPTIONS") != nil

extension Trait where Self == TimeLimitTrait {
    /// An end-to-end test's time limit: `minutes`, scaled by ``timeLimitFactor``. It catches a hang,
    /// not slowness (speed is measured by `make bench`).
    static func endToEnd(minutes: Int) -> Self {
        .timeLimit(.minutes(minutes * timeLimitFactor))
    }
}
