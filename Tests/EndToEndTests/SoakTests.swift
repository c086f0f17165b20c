import BadgeCore
import Glibc
import Testing
import XvfbHarness

/// Many animated changes through the control channel: no memory, descriptor or X resource leaks.
/// `make test` runs 2,000 changes; `make soak` (BADGE_SOAK=1) runs 100,000 against the release binary.
@Suite("E2E: soak", .timeLimit(.minutes(20)))
struct SoakTests {
    static var soak: Bool { getenv("BADGE_SOAK").map { String(cString: $0) == "1" } ?? false }

    /// One change per command; every 8 commands leave bell and mail where they were, while mail
    /// crosses the overflow ("99+"), chat changes text and updates goes dot → count (or none) → dot. No
    /// blinking: a blinking dot animates forever, and the measurements need the app at rest.
    static func commands(_ cycle: Int) -> [String] {
        [
            "inc bell", "set mail \(95 + cycle % 10)", "text chat \(["New", "Hi", "一个信息", "Beta"][cycle % 4])", "inc bell 2",
            "set updates \(cycle % 7)", "dec bell 3", "set mail 12", "dot updates",
        ]
    }

    @Test("Animated control changes: RSS grows < 1 MB after warm-up, no fd or X resource leak")
    func soak() throws {
        let total = Self.soak ? 100_000 : 2_000
        let warmUp = total / 10
        let chunk = 200  // a sync per chunk: each one also renders and presents a frame mid-animation
        let s = try DemoSession("soak", reduceMotion: false)
        s.app.recordsAllEvents = false
        try s.moveAwayAndSync()
        let initial = try s.state()
        #expect(try s.x.xResourceOpcode() != nil, "Xvfb should have the X-Resource extension")

        var sent = 0
        var cycle = 0
        var measured: (rss: Int, fds: [String], resources: [String: Int])?
        let start = ContinuousClock.now
        while sent < total {
            var bytes: [UInt8] = []
            var count = 0
            while count < chunk && sent + count < total {
                for line in Self.commands(cycle) where count < chunk && sent + count < total {
                    bytes += Array((line + "\n").utf8)
                    count += 1
                }
                cycle += 1
            }
            try s.app.writeDraining(bytes, timeout: 60)
            try s.sync(timeout: 60)
            let changes = s.unconsumedChanges().count
            let errors = s.app.takePendingEvents(named: "error")
            _ = s.app.takePendingEvents()  // "urgent" and the like
            guard changes == count, errors.isEmpty else {
                Issue.record("chunk at \(sent): \(count) commands gave \(changes) changes; other events: \(errors.prefix(3))")
                return
            }
            sent += count
            if measured == nil && sent >= warmUp {
                // Show every text once, at rest, before the baseline: the first CJK text maps the
                // CJK font (about 2 MB of file pages, once), which is not growth.
                for text in ["New", "Hi", "一个信息", "Beta"] {
                    try s.command("text chat \(text)")
                    try settle(s)
                }
                _ = s.unconsumedChanges()
                try settle(s)
                measured = (try s.app.residentKilobytes(), try s.app.openDescriptors(), try s.x.clientResources(owning: s.window))
            }
        }
        let elapsed = secondsSince(start)
        // Back to the starting contents, at rest.
        try s.command("set updates 0")
        try s.command("dot updates")
        try s.command("text chat New")
        try settle(s)
        let end = try s.state()
        for (a, b) in zip(initial.buttons, end.buttons) {
            #expect(a.json["content"] == b.json["content"] && a.text == b.text, "\(a.id): \(a.json) → \(b.json)")
        }
        let rss = try s.app.residentKilobytes(), fds = try s.app.openDescriptors()
        let resources = try s.x.clientResources(owning: s.window)
        let base = try #require(measured)
        // Under AddressSanitizer freed memory sits in quarantine: resident memory says nothing there.
        #expect(addressSanitizerIsActive || rss - base.rss < 1024,
                "resident memory grew from \(base.rss) kB to \(rss) kB over \(total - warmUp) changes")
        #expect(fds == base.fds, "descriptors: \(base.fds) → \(fds)")
        #expect(resources == base.resources, "X resources: \(base.resources) → \(resources)")
        #expect(resources["WINDOW"] ?? 0 >= 1 && resources["GC"] ?? 0 >= 1, "X-Resource counts look wrong: \(resources)")
        print("soak: \(total) changes in \(elapsed) s; RSS \(base.rss) kB after \(warmUp) → \(rss) kB (\(rss - base.rss) kB); "
            + "fds \(base.fds.count) → \(fds.count); X resources \(resources.sorted { $0.key < $1.key })")
    }

    /// Waits (bounded) until nothing animates, then syncs.
    private func settle(_ s: DemoSession) throws {
        let deadline = Deadline(seconds: 5)
        while try s.state().animating {
            if deadline.hasPassed { throw HarnessError("still animating 5 s after the last change") }
        }
        try s.sync()
    }
}
