@testable import BadgeApp
import Testing

/// The decision of `--autostart`: which entry the session reads and whether it starts badge-demo.
@Suite struct AutostartDecisionTests {
    @Test("The user's copy overrides the system entry; Hidden=true in it turns autostart off")
    func userCopyDecides() {
        let shownSystem = Autostart.Status(userPath: "/u/badge-demo.desktop", user: .missing, systemPath: "/etc/xdg/autostart/badge-demo.desktop", system: .shown)
        #expect(shownSystem.starts)
        var hidden = shownSystem
        hidden.user = .hidden
        #expect(!hidden.starts && hidden.userCopyIsHiddenOverride)
        var own = shownSystem
        own.user = .shown
        #expect(own.starts && !own.userCopyIsHiddenOverride)
        var hiddenSystem = shownSystem
        hiddenSystem.system = .hidden
        #expect(!hiddenSystem.starts)
        hiddenSystem.user = .shown
        #expect(hiddenSystem.starts, "a user copy without Hidden=true starts it even over a hidden system entry")
        var link = shownSystem
        link.user = .other(kind: "a symbolic link")
        #expect(!link.starts && !link.userCopyIsHiddenOverride)
        let none = Autostart.Status(userPath: "/u/badge-demo.desktop", user: .missing, systemPath: nil, system: .missing)
        #expect(!none.starts)
    }

    @Test("Hidden=true counts only in the [Desktop Entry] group, with spaces around = allowed")
    func hiddenKey() {
        #expect(Autostart.isHidden("[Desktop Entry]\nType=Application\nHidden=true\n"))
        #expect(Autostart.isHidden("[Desktop Entry]\r\nHidden = true\r\n"))
        #expect(!Autostart.isHidden("[Desktop Entry]\nHidden=false\n"))
        #expect(!Autostart.isHidden("[Desktop Entry]\nX-Hidden=true\n"))
        #expect(!Autostart.isHidden("[Desktop Action quit]\nHidden=true\n"))
        #expect(!Autostart.isHidden("Hidden=true\n"), "a key before any group is no key")
        #expect(Autostart.isHidden(Autostart.hiddenOverride))
    }

    @Test("The folders follow the basedir spec: XDG_CONFIG_HOME or HOME/.config; XDG_CONFIG_DIRS or /etc/xdg")
    func folders() {
        let env: ([String: String]) -> (String) -> String? = { values in { values[$0] } }
        #expect(Autostart.userFolder(environment: env(["XDG_CONFIG_HOME": "/c", "HOME": "/h"])) == "/c/autostart")
        #expect(Autostart.userFolder(environment: env(["XDG_CONFIG_HOME": "relative", "HOME": "/h"])) == "/h/.config/autostart")
        #expect(Autostart.userFolder(environment: env([:])) == nil)
        #expect(Autostart.systemFolders(environment: env([:])) == ["/etc/xdg/autostart"])
        #expect(Autostart.systemFolders(environment: env(["XDG_CONFIG_DIRS": "/a::rel:/b"])) == ["/a/autostart", "/b/autostart"])
    }

    @Test("The report says where from and how to change it, and names the systemd unit")
    func report() {
        let status = Autostart.Status(userPath: "/u/badge-demo.desktop", user: .missing, systemPath: "/s/badge-demo.desktop", system: .shown)
        let lines = Autostart.report(status).map(\.english)
        #expect(lines.first == "autostart: on, from /s/badge-demo.desktop")
        #expect(lines.contains { $0.contains("--autostart=off") })
        #expect(lines.last?.contains("systemctl --user") == true)
        var off = status
        off.user = .hidden
        let offLines = Autostart.report(off).map(\.english)
        #expect(offLines.first == "autostart: off, /u/badge-demo.desktop has Hidden=true")
        #expect(offLines.contains { $0.contains("--autostart=on") })
    }

    @Test("--autostart parses to report, off and on; another value is refused")
    func parsing() throws {
        #expect(try AppOptions.parse(["--autostart"]).get().autostart == .report)
        #expect(try AppOptions.parse(["--autostart=off"]).get().autostart == .off)
        #expect(try AppOptions.parse(["--autostart=on"]).get().autostart == .on)
        guard case .failure(let error) = AppOptions.parse(["--autostart=maybe"]) else {
            Issue.record("--autostart=maybe was accepted")
            return
        }
        #expect(error.message.contains("\"maybe\""))
    }
}
