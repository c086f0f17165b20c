import BadgeCore
import Glibc
import Testing
import XvfbHarness

/// The control channel, idle CPU and on-screen animation.
@Suite("E2E: control channel, idle and animation", .endToEnd(minutes: 1))
struct ControlAndIdleTests {
    @Test("Unknown command: error with its line number, the app keeps working; end of stdin keeps the window")
    func controlChannel() throws {
        let s = try DemoSession("control")
        try s.command("frobnicate 1 2")
        let error = try s.app.readEvent(named: "error", timeout: 10)
        #expect(error["line"]?.int == 1, "\(error)")
        let reason = error["reason"]?.string ?? ""
        #expect(!reason.isEmpty)
        try s.sync()  // line 2

        try s.command("inc bell")  // line 3
        let inc = try s.nextChange()
        #expect(inc["id"]?.string == "bell" && inc["cause"]?.string == "control" && inc["text"]?.string == "4")
        try s.command("set nosuch 3")  // line 4
        #expect(try s.app.readEvent(named: "error", timeout: 10)["line"]?.int == 4)
        try s.command("text mail new")  // line 5
        let text = try s.nextChange()
        #expect(text["content"]?["kind"]?.string == "text" && text["text"]?.string == "new")
        try s.command("dot mail")
        #expect(try s.nextChange()["content"]?["kind"]?.string == "dot")
        try s.command("set mail 12")
        #expect(try s.nextChange()["text"]?.string == "12")
        try s.sync()
        #expect(try s.state().title == "(16) Badges")

        // End of stdin: the window stays and clicks still count (events still flow on stdout).
        let bell = try s.state().button("bell")
        try s.x.selectPropertyChanges(window: s.window)
        try s.moveAwayAndSync()
        let before = try s.capture()
        s.app.closeStdin()
        try s.x.click(button: MouseButton.left, atRoot: s.rootCenter(of: bell.button))
        let click = try s.nextChange()
        #expect(click["cause"]?.string == "click" && click["text"]?.string == "5")
        try s.x.waitForProperty(window: s.window, name: "_NET_WM_NAME") { $0?.string == "(17) Badges" }
        #expect(s.app.waitForExit(timeout: 0) == nil, "the app exited after end of stdin")
        #expect(try s.x.isViewable(window: s.window))
        try s.x.movePointerToCorner()
        // No `sync` without stdin: the title change observed above was requested after the frame's
        // copy in the same refresh, and the server handles one client's requests in order, so the
        // new frame is on screen now.
        let after = try s.capture()
        let region = try #require(bell.badge)
        expectPixels(after.differingPixels(from: before, in: region, tolerance: 8) > 0,
                     "badge pixels unchanged after a click with stdin closed", images: ["before": before, "after": after], test: "control")
    }

    @Test("Idle: 0 CPU ticks over 1 s after a click has settled")
    func idleCPU() throws {
        let s = try DemoSession("idle")
        try s.click(MouseButton.left, on: "bell")
        _ = try s.nextChange()
        try s.moveAwayAndSync()
        #expect(try s.state().animating == false)
        // Settled includes the saved counts reaching the disk (a moment after the change).
        let saved = (s.app.privateFolder ?? "") + "/state/badge-demo/state.json"
        let written = Deadline(seconds: 2)
        while access(saved, F_OK) != 0 && !written.hasPassed { measureInterval(seconds: 0.01) }
        #expect(access(saved, F_OK) == 0, "the counts were not saved")
        try s.app.waitUntilSleeping(timeout: 1)
        let before = try s.app.cpuTicks()
        measureInterval(seconds: 1.0)
        let after = try s.app.cpuTicks()
        #expect(after - before == 0, "the idle app used \(after - before) CPU ticks in 1 s")
        let rss = try s.app.residentKilobytes()
        #expect(rss < 150_000, "resident memory \(rss) kB")
    }

    @Test("Animation runs on screen (no reduce motion), settles, then the app idles")
    func animationOnScreen() throws {
        let s = try DemoSession("animation", reduceMotion: false)
        let bell = try s.state().button("bell")
        let badge = try #require(bell.badge)
        // The pop may draw outside the rest frame: watch the badge grown by half its size.
        let region = badge.insetBy(dx: -badge.width / 2, dy: -badge.height / 2).intersection(s.bounds)
        try s.moveAwayAndSync()
        let rest0 = try s.capture(region)

        try s.x.click(button: MouseButton.left, atRoot: s.rootCenter(of: bell.button))
        try s.x.movePointerToCorner()
        try s.sync()
        #expect(try s.state().animating, "state should report animating right after a click")
        var frames: [CapturedImage] = []
        let start = ContinuousClock.now
        while secondsSince(start) < 0.15 { frames.append(try s.capture(region)) }

        // Wait (bounded) for the end of the animation through state, then take the rest frame.
        let deadline = Deadline(seconds: 5)
        while try s.state().animating {
            if deadline.hasPassed { Issue.record("still animating after 5 s"); return }
        }
        try s.sync()
        let final = try s.capture(region)
        let moving = frames.filter { $0.differingPixels(from: final, tolerance: 8) > 0 }.count
        expectPixels(moving > 0, "none of \(frames.count) captures in the first 150 ms differ from the final frame",
                     images: ["final": final, "first": frames.first ?? final], test: "animation")
        expectPixels(final.differingPixels(from: rest0, tolerance: 8) > 0, "the final frame equals the frame before the click",
                     images: ["before": rest0, "final": final], test: "animation")
        #expect(try s.state().button("bell").text == "4")

        let ticks0 = try s.app.cpuTicks()
        measureInterval(seconds: 1.0)
        let ticks1 = try s.app.cpuTicks()
        #expect(ticks1 - ticks0 == 0, "after the animation the app used \(ticks1 - ticks0) ticks in 1 s")
    }
}
