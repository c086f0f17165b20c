import BadgeCore
import BadgeIO

/// The counts of the last run, taken back at start for the buttons that still exist.
extension BadgeApplication {
    /// Reads the state file and shows what it saved, without animation: a `--count` wins (and is
    /// saved as a change of this run), and a button bound to a source takes back only what its own
    /// kind of source gave (`boundKinds`), never the demo's samples. The saved counts then follow
    /// the board.
    func restoreSavedCounts(boundKinds: [String: String], environment: (String) -> String?) {
        guard let path = SavedCounts.path(options: options, environment: environment) else { return }
        let saved = SavedCounts(path: path, clock: clock)
        saved.warn = { StandardError.write("badge-demo: \($0)") }
        let entries = saved.loadEntries()
        for button in toolbar.buttons {
            // A flag's count is shown, and saved as a change of this run.
            guard options.counts[button.id] == nil else {
                saved.differs(button.id)
                continue
            }
            guard let entry = entries[button.id] else { continue }
            // A bound button takes back only what its own kind of source gave (never the demo's 3).
            if let kind = boundKinds[button.id], entry.from != kind { continue }
            Self.setAtOnce(button.badge, entry.content, reduceMotion: options.reduceMotion)
            origins.set(button.id, BadgeOrigins.Origin(saved: entry.from))
        }
        self.saved = saved
        board.observe(saved)
    }
}
