import BadgeCore
import Glibc
import Testing
import XvfbHarness

/// 10,000 inputs in one XTEST burst: nothing lost or doubled, and the app idles again at once.
@Suite("E2E: input burst", .endToEnd(minutes: 2))
struct InputBurstTests {
    /// Bell gets left (+1) and right (−1) clicks in turn, mail gets Return (+1) and minus (−1) in turn, so
    /// every change shows a new number and animates (a count beyond 99 would sit still at "99+"). The
    /// change events must follow the exact alternation: one lost or doubled input breaks it.
    @Test("5,000 clicks and 5,000 key presses in one XTEST burst, animated: every change counted once, idle within 0.5 s")
    func burst() throws {
        let clicks = 5_000, keys = 5_000
        // Without saved counts: their last write, a moment after the burst, is not part of what is timed here
        // (SavedCountsTests covers it).
        let s = try DemoSession("burst", arguments: ["--no-state"], reduceMotion: false)
        s.app.recordsAllEvents = false
        try s.focusWindow()
        try s.key(Keysym.tab)
        try s.key(Keysym.tab)
        #expect(try s.focusedButton() == "mail", "two Tabs should focus the second button")
        let before = try s.state()
        let bell = try before.button("bell"), mail = try before.button("mail")
        let bell0 = try #require(bell.count), mail0 = try #require(mail.count)
        guard let plusKey = try s.x.keycodeAndColumn(forKeysym: Keysym.returnKey), plusKey.column == 0,
              let minusKey = try s.x.keycodeAndColumn(forKeysym: Keysym.minus), minusKey.column == 0 else {
            Issue.record("Return and minus must be unshifted keys in the server's keymap")
            return
        }
        let target = try s.rootCenter(of: bell.button)

        // One burst, no round trips: move once, then interleave clicks on bell and keys for the focused
        // mail button (clicks do not move the keyboard focus).
        let start = ContinuousClock.now
        s.x.fakeInput(.motionNotify, x: target.x, y: target.y)
        for i in 0..<max(clicks, keys) {
            if i < clicks {
                let button = i % 2 == 0 ? MouseButton.left : MouseButton.wheelDown  // the right button opens the peek
                s.x.fakeInput(.buttonPress, detail: button)
                s.x.fakeInput(.buttonRelease, detail: button)
            }
            if i < keys {
                let key = i % 2 == 0 ? plusKey.keycode : minusKey.keycode
                s.x.fakeInput(.keyPress, detail: key)
                s.x.fakeInput(.keyRelease, detail: key)
            }
        }
        try s.x.flush()
        try s.x.sync()   // the server has turned every fake input into events for the app
        try s.sync(timeout: 60)  // the app has handled them all, drawn and flushed
        let handled = secondsSince(start)

        let changes = s.unconsumedChanges()
        let bellCounts = changes.filter { ["click", "wheel"].contains($0["cause"]?.string ?? "") && $0["id"]?.string == "bell" }.compactMap { $0["content"]?["count"]?.int }
        let mailCounts = changes.filter { $0["cause"]?.string == "key" && $0["id"]?.string == "mail" }.compactMap { $0["content"]?["count"]?.int }
        #expect(bellCounts.count == clicks && mailCounts.count == keys && changes.count == clicks + keys,
                "change events: \(bellCounts.count) clicks on bell, \(mailCounts.count) keys on mail, \(changes.count) in all")
        let bellExpected = bellCounts.indices.map { $0 % 2 == 0 ? bell0 + 1 : bell0 }
        let mailExpected = mailCounts.indices.map { $0 % 2 == 0 ? mail0 + 1 : mail0 }
        let bellBreak = bellCounts.indices.first { bellCounts[$0] != bellExpected[$0] }
        let mailBreak = mailCounts.indices.first { mailCounts[$0] != mailExpected[$0] }
        #expect(bellBreak == nil, "bell's counts leave the +1/−1 alternation at change \(bellBreak ?? -1)")
        #expect(mailBreak == nil, "mail's counts leave the +1/−1 alternation at change \(mailBreak ?? -1)")

        // Idle again within 0.5 s of the last input being handled: the animation ends and the frame
        // timer stops (state.animating turns false), then no CPU is used. The app may have finished
        // the burst's animations while the test was still reading its events (it does not wait for
        // its reader), so one more click starts the animation whose end is timed.
        try s.x.click(button: MouseButton.left, atRoot: target)
        try s.x.sync()
        try s.sync()
        #expect(try s.nextChange()["text"]?.string == String(bell0 + clicks % 2 + 1))
        let settle = ContinuousClock.now
        var after = try s.state()
        let animatingAtSync = after.animating
        while after.animating && secondsSince(settle) < 2 { after = try s.state() }
        let settled = secondsSince(settle)
        #expect(animatingAtSync, "the last changes should still be animating when the burst has been handled")
        #expect(!after.animating && settled < 0.5, "still animating \(settled) s after the burst was handled")
        let bell1 = try after.button("bell").count, mail1 = try after.button("mail").count
        #expect(bell1 == bell0 + clicks % 2 + 1, "bell: \(bell1 ?? -1), expected \(bell0 + clicks % 2 + 1)")
        #expect(mail1 == mail0 + keys % 2, "mail: \(mail1 ?? -1), expected \(mail0 + keys % 2)")
        // The rest frame after the last animation frame (frames are paced, so it comes up to a
        // frame later) is drawn before a sync is answered: after it, nothing is left to do.
        try s.sync()
        try s.app.waitUntilSleeping(timeout: 1)
        let ticks0 = try s.app.cpuTicks()
        measureInterval(seconds: 0.5)
        let ticks1 = try s.app.cpuTicks()
        #expect(ticks1 - ticks0 == 0, "after the burst the app used \(ticks1 - ticks0) ticks in 0.5 s")
        print("input burst: \(clicks + keys) inputs handled in \(handled) s; at rest \(settled) s later")
    }
}
