import BadgeCore
import Glibc
import Testing
import XvfbHarness

/// The total published through the Unity LauncherEntry D-Bus API.
@Suite("E2E: dock badge over D-Bus", .endToEnd(minutes: 1))
struct DockBadgeTests {
    @Test("Update signals carry the total, its visibility and urgency",
          .enabled(if: findOnPath("dbus-daemon") != nil, "needs dbus-daemon (apt package dbus)"))
    func launcherEntry() throws {
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

    @Test("A dock that starts after the app gets the count: sent again when com.canonical.Unity gets an owner",
          .enabled(if: findOnPath("dbus-daemon") != nil, "dbus-daemon is not installed"))
    func dockStartedLater() throws {
        let bus = try SessionBus()
        let s = try DemoSession("dock-later", environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        _ = try bus.nextUpdate { $0.count == 15 }
        try s.sync()
        // A dock (python3-dbus, not ours) takes Unity's name; nothing changed, yet the count comes again.
        let dock = try ChildProcess(executable: "/usr/bin/python3", arguments: ["-c", """
            import sys, dbus
            bus = dbus.bus.BusConnection(sys.argv[1])
            print(bus.request_name("com.canonical.Unity"), flush=True)
            sys.stdin.readline()
            """, bus.address])
        defer { dock.kill(SIGKILL); dock.waitForExit(timeout: 5) }
        #expect(try dock.readLine(timeout: 10) == "1", "the dock owns the name: \(dock.stderrText)")
        let again = try bus.nextUpdate { $0.count == 15 }
        #expect(again.countVisible == true && again.uri == "application://badge-demo.desktop")
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
