import BadgeCore
import Glibc
import Testing
import XvfbHarness

/// Startup notification, as a launcher sees it: the id from DESKTOP_STARTUP_ID on the window as
/// _NET_STARTUP_ID, and `remove: ID=…` sent once the first frame is on the screen.
@Suite("E2E: startup notification", .endToEnd(minutes: 1))
struct StartupNotificationTests {
    @Test("DESKTOP_STARTUP_ID becomes _NET_STARTUP_ID, and the launch is reported complete", arguments: [
        "badge-demo-12345_TIME678", "id with \"quotes\" and \\ backslash",
    ])
    func startupIsAnnouncedAndCompleted(id: String) throws {
        var watcher: XTestClient?
        let s = try DemoSession("startup", environment: ["DESKTOP_STARTUP_ID": id]) { _, x in
            try x.watchStartupNotifications()
            watcher = x
        }
        let x = try #require(watcher)
        #expect(try s.x.property(window: s.window, name: "_NET_STARTUP_ID")?.string == id)
        let message = try #require(try x.nextStartupNotification(timeout: 5), "no startup-notification message")
        let quoted = id.replacingBackslashesAndQuotes()
        #expect(message.text == "remove: ID=\"\(quoted)\"")
        #expect(message.window == s.window)
        // Only once.
        #expect(try x.nextStartupNotification(timeout: 0.3) == nil)
    }

    @Test("Without DESKTOP_STARTUP_ID there is no _NET_STARTUP_ID and no message")
    func noLauncherNoMessage() throws {
        var watcher: XTestClient?
        let s = try DemoSession("startup-none", environment: [:]) { _, x in
            try x.watchStartupNotifications()
            watcher = x
        }
        #expect(try s.x.property(window: s.window, name: "_NET_STARTUP_ID") == nil)
        #expect(try #require(watcher).nextStartupNotification(timeout: 0.3) == nil)
    }
}

extension String {
    /// Backslash before every `"` and `\`, as startup-notification values are quoted.
    func replacingBackslashesAndQuotes() -> String {
        var result = ""
        for character in self {
            if character == "\"" || character == "\\" { result += "\\" }
            result.append(character)
        }
        return result
    }
}
