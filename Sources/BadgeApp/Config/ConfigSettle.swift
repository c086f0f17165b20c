/// A config file that changed and reads as cut (empty, or JSON that ends before its value does)
/// may be half saved: an editor that truncates the file (`open` with `O_TRUNC`, close), then writes
/// it is seen between the two. Such a reading is not reported at once: the file is read again at
/// its next change, or at the settle's deadline (``period`` after the first cut reading, never
/// pushed back, so a file that stays cut is reported within that time), and only a file that is
/// still bad then is reported, once.
///
/// A file that is bad before its end (a syntax error in the middle, a wrong field) is reported at
/// once: appending text cannot mend it, so waiting would only delay the message. SIGHUP (asking
/// for a reading now) reports whatever it reads at once too. Pure: the time is given.
struct ConfigSettle: Equatable {
    /// How long a cut file is given to be written whole, in seconds: editors write a config in one
    /// go after the truncation, well within this; a person reads the message no later than this.
    static let period = 0.3

    /// What a reading of the file was.
    enum Reading: Equatable {
        /// Valid: applied.
        case good
        /// Empty, or the JSON ends early.
        case cut
        /// Bad before its end, or a bad field.
        case bad
    }

    /// What to do with a reading.
    enum Verdict: Equatable {
        /// Apply the new config.
        case apply
        /// Report the reading's error (the running toolbar stays).
        case report
        /// Say nothing yet: the file is read again at its next change or at the deadline.
        case wait
    }

    /// When the file that read as cut is read again (monotonic seconds), or nil when no reading waits.
    private(set) var due: Double?

    /// The verdict on a reading at `now`. `asked`: a reading someone asked for now (SIGHUP, the
    /// settle's own deadline), which is never put off.
    mutating func verdict(on reading: Reading, asked: Bool, now: Double) -> Verdict {
        switch reading {
        case .good:
            due = nil
            return .apply
        case .bad:
            due = nil
            return .report
        case .cut:
            if asked {
                due = nil
                return .report
            }
            if let due {
                guard now < due else {
                    self.due = nil
                    return .report
                }
                return .wait
            }
            due = now + Self.period
            return .wait
        }
    }

    /// Seconds until the deadline (0 once passed), or nil when no reading waits: the loop's wakeup.
    func timeUntilDue(now: Double) -> Double? {
        due.map { max(0, $0 - now) }
    }

    /// True once, when the deadline has passed (it is then cleared: the reading it asks for is
    /// `asked`); false before it, or when no reading waits.
    mutating func takeIfDue(now: Double) -> Bool {
        guard let due, now >= due else { return false }
        self.due = nil
        return true
    }

    /// Forgets a waiting reading (the file was removed: nothing to report).
    mutating func cancel() { due = nil }
}
