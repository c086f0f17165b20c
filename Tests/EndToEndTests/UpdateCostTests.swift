import BadgeCore
import Glibc
import Testing
import XvfbHarness

/// The work behind what the user sees (issue "Fast under load"): window-manager state pushed as a
/// coalesced diff that always ends in the right state, and the MIT-SHM upload rendering exactly
/// what PutImage renders. Not timed: the figures are `make bench`'s.
@Suite("E2E: coalesced window-manager updates and the MIT-SHM upload", .endToEnd(minutes: 1))
struct UpdateCostTests {
    @Test("A burst of 300 changes ends in the right title and icon, with a handful of property writes")
    func coalescedUpdatesEndInTheFinalState() throws {
        let s = try DemoSession("coalesced", reduceMotion: false)
        let before = try #require(try s.x.property(window: s.window, name: "_NET_WM_NAME")?.string)
        #expect(before == "(15) Badges")
        try s.x.selectPropertyChanges(window: s.window)
        let icon = try s.x.atom("_NET_WM_ICON"), title = try s.x.atom("_NET_WM_NAME")
        // 300 changes in one write: the app draws and pushes as it goes.
        try s.app.writeDraining(Array(String(repeating: "inc mail\n", count: 300).utf8))
        // No sync (it would push at once): count the writes until they stop, then read the result.
        let writes = try s.x.propertyNotifications(window: s.window, quiet: 0.6)
        #expect(try s.x.property(window: s.window, name: "_NET_WM_NAME")?.string == "(315) Badges")
        let titleWrites = writes.filter { $0 == title }.count, iconWrites = writes.filter { $0 == icon }.count
        #expect(titleWrites <= 6 && iconWrites <= 6, "\(titleWrites) title and \(iconWrites) icon writes for 300 changes")
        // The icon's badge shows 99+ for the final total: the last icon write is the final state.
        let cardinals = try s.x.cardinals(window: s.window, name: "_NET_WM_ICON")
        #expect(cardinals.count == 16 * 16 + 32 * 32 + 48 * 48 + 6)
        try s.sync()
        #expect(try s.state().title == "(315) Badges")
    }

    @Test("MIT-SHM is used when the server offers it, and renders the same pixels as PutImage",
          arguments: [["--count", "mail=120"], ["--scale", "2", "--theme", "dark"]])
    func sharedMemoryEqualsPutImage(options: [String]) throws {
        var captures: [String: CapturedImage] = [:]
        for (method, variables) in [("shm", [String: String]()), ("putimage", ["BADGEKIT_SHM": "0"])] {
            let s = try DemoSession("upload-\(method)", arguments: options, environment: variables)
            try s.app.writeLine("state")
            let state = try s.app.readEvent(named: "state")
            #expect(state["upload"]?.string == method, "upload \(state["upload"]?.string ?? "?") with \(variables)")
            try s.moveAwayAndSync()
            // A change after start-up too: damage-limited updates go the same way.
            try s.command("inc bell")
            try s.sync()
            captures[method] = try s.capture()
        }
        let shm = try #require(captures["shm"]), put = try #require(captures["putimage"])
        #expect(shm.width == put.width && shm.height == put.height)
        expectPixels(shm.differingPixels(from: put, tolerance: 0) == 0, "the MIT-SHM window differs from the PutImage one",
                     images: ["shm": shm, "putimage": put], test: "shm-vs-putimage")
    }
}
