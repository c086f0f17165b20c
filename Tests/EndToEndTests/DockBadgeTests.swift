import BadgeCore
import Glibc
import Testing
import XvfbHarness

/// The total published through the Unity LauncherEntry D-Bus API.
@Suite("E2E: dock badge over D-Bus", .endToEnd(minutes: 1))
struct DockBadgeTests {
    @Test("Update signals carry the total, its visibility and urgency")
    func launcherEntry() throws {
        guard findOnPath("dbus-daemon") != nil else {
            print("dbus-daemon not installed (apt package dbus): dock badge not tested")
            return
        }
        let bus = try SessionBus()
        let s = try DemoSession("dock", environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        let first = try bus.nextUpdate { $0.count == 15 }
        #expect(first.uri == "application://badge-demo.desktop")
        #expect(first.path.hasPrefix("/com/canonical/unity/launcherentry/"))
        #expect(first.countVisible == true && first.urgent == false)

        try s.x.setInputFocus(window: s.x.root)
        try s.command("inc bell")
        _ = try s.nextChange()
        try s.sync()
        let urgent = try bus.nextUpdate { $0.count == 16 }
        #expect(urgent.urgent == true, "a rising count while unfocused is urgent: \(urgent)")

        try s.command("clear all")
        try s.sync()
        let cleared = try bus.nextUpdate { $0.count == 0 }
        #expect(cleared.countVisible == false)
        #expect(s.app.waitForExit(timeout: 0) == nil)
    }

    @Test("Without a session bus the app runs quietly")
    func noBus() throws {
        let s = try DemoSession("no-bus", environment: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent/bus-\(getpid())"])
        try s.command("inc bell")
        #expect(try s.nextChange()["text"]?.string == "4")
        try s.sync()
        #expect(s.app.stderrText.isEmpty, "stderr: \(s.app.stderrText)")
    }
}
