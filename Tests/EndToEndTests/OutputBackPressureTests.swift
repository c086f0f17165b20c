import BadgeCore
import Glibc
import Testing
import XvfbHarness
import BadgeControl

/// A script that stops reading the control channel's output must not freeze the window.
@Suite("E2E: a stalled reader of the control channel", .endToEnd(minutes: 1))
struct OutputBackPressureTests {
    @Test("With megabytes of unread events the window still repaints clicks; the events wait, none lost")
    func stalledReaderDoesNotFreezeTheWindow() throws {
        let s = try DemoSession("stalled-reader")
        try s.moveAwayAndSync()
        let bell = try s.state().button("bell")
        let badge = try #require(bell.badge)
        let before = try s.capture(badge)

        // About 4 MB of `state` answers, far beyond the pipe's 64 kB, and nobody reads them yet.
        let requests = 5_000
        // The 30 kB of commands fit in the stdin pipe, so writing them does not wait for the app.
        try s.app.writeLine(String(repeating: "state\n", count: requests - 1) + "state")
        try s.x.click(button: 1, atRoot: s.rootCenter(of: bell.button))
        try s.x.movePointerToCorner()

        // The window repaints the new count while its output is still unread (poll GetImage, bounded;
        // AddressSanitizer makes each of the thousands of `state` answers before it slow).
        let deadline = Deadline(seconds: runsUnderSanitizer ? 30 : 5)
        var repainted = false
        while !repainted && !deadline.hasPassed {
            repainted = try s.capture(badge).differingPixels(from: before, tolerance: 40) > 10
        }
        #expect(repainted, "the badge did not change while the app's output was unread")

        // Now read: every answer is there, and the click's change.
        var states = 0
        var change: JSONValue?
        while states < requests || change == nil {
            // Megabytes of state answers are parsed here: slow under AddressSanitizer, so it gets longer.
            let event = try s.app.readEvent(named: change == nil ? "change" : "state", timeout: runsUnderSanitizer ? 90 : 20)
            if event["event"]?.string == "change" { change = event } else { states += 1 }
            states += s.app.takePendingEvents(named: "state").count
        }
        #expect(change?["text"]?.string == "4" && change?["cause"]?.string == "click")
        #expect(states == requests)
        try s.sync()
    }
}
