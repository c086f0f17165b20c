import BadgeCore
import BadgeDrawing
import Glibc
import Testing
import XvfbHarness

/// The library products as an outside package sees them: `Examples/` depends on BadgeKit by path
/// and imports only its library products. `make test` (`make examples`) builds it in debug and
/// release before the suite runs; each build's programs run here and their output is checked.
@Suite("E2E: the Examples package, built in debug and release", .endToEnd(minutes: 2))
struct ExamplesTests {
    static let configurations = ["debug", "release"]

    /// The built example `name` for `configuration`; fails (never skips) when it was not built, so
    /// a product that stops linking on its own fails the suite.
    static func example(_ name: String, _ configuration: String) throws -> String {
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)
        let path = parts.joined(separator: "/") + "/Examples/.build/\(configuration)/\(name)"
        guard access(path, X_OK) == 0 else {
            throw HarnessError("\(path) was not built: run `make examples` (make test does) to build Examples/ in debug and release")
        }
        return path
    }

    static func output(of child: ChildProcess) throws -> [String] {
        var lines: [String] = []
        while let line = try child.readLine(timeout: 20) { lines.append(line) }
        return lines
    }

    @Test("badge-text: BadgeCore alone formats, describes and places a badge", arguments: configurations)
    func coreAlone(configuration: String) throws {
        let child = try ChildProcess(executable: try Self.example("badge-text", configuration), stdin: .null)
        let lines = try Self.output(of: child)
        #expect(child.waitForExit(timeout: 20) == .exited(0), "stderr: \(child.stderrText)")
        #expect(lines == [
            "3\t3\tMail, 3 unread\t18.0x18.0+25.0+1.0",
            "12\t12\tMail, 12 unread\t24.0x18.0+22.0+1.0",
            "120\t99+\tMail, more than 99 unread\t31.0x18.0+18.5+1.0",
            "0\t(hidden)\tMail\tnone",
        ])
    }

    @Test("badge-png: BadgeCore and BadgeDrawing draw a 99+ badge into a PNG", arguments: configurations)
    func drawingToPNG(configuration: String) throws {
        let path = try Artifacts.path(for: "example-badge-\(configuration)-\(getpid()).png")
        defer { unlink(path) }
        let child = try ChildProcess(executable: try Self.example("badge-png", configuration), arguments: [path], stdin: .null)
        let lines = try Self.output(of: child)
        #expect(child.waitForExit(timeout: 20) == .exited(0), "stderr: \(child.stderrText)")
        #expect(lines == ["\(path)\tMail, more than 99 unread\t70x36+26+2"])
        let image = try ImageSurface(contentsOfPNG: path)
        #expect(image.width == 96 && image.height == 88)
        // The badge: red body, white "99+" inside it, nothing red outside it.
        let badge = PixelRect(x: 26, y: 2, width: 70, height: 36)
        var red = 0, white = 0, redOutside = 0
        for y in 0..<image.height {
            for x in 0..<image.width {
                let p = image.pixel(x: x, y: y)
                let isRed = p.alpha == 255 && p.red > 200 && p.green < 110 && p.blue < 110
                if badge.insetBy(dx: 3, dy: 3).contains(x: x, y: y) {
                    if isRed { red += 1 }
                    if p.red > 240 && p.green > 240 && p.blue > 240 { white += 1 }
                } else if !badge.contains(x: x, y: y), isRed {
                    redOutside += 1
                }
            }
        }
        #expect(red > 900 && white > 80 && redOutside == 0, "red \(red), white \(white), red outside \(redOutside)")
        // The mail icon below-left of the badge is drawn (dark pixels).
        #expect((16..<64).contains { x in
            image.pixel(x: x, y: 48).red < 80
        })
    }

    @Test("display-check: BadgeX11 alone links, connects, and reports typed errors", arguments: configurations)
    func shellAlone(configuration: String) throws {
        let exe = try Self.example("display-check", configuration)
        let without = try ChildProcess(executable: exe, environment: .inherited(removing: ["DISPLAY"]), stdin: .null)
        #expect(try Self.output(of: without) == ["no display: no display: DISPLAY is not set (run inside an X session)"])
        #expect(without.waitForExit(timeout: 20) == .exited(0))
        let server = try XvfbServer.start(width: 320, height: 200)
        let with = try ChildProcess(executable: exe, environment: .inherited(adding: ["DISPLAY": server.display]), stdin: .null)
        let lines = try Self.output(of: with)
        #expect(lines.count == 1 && lines.first?.hasPrefix("display \(server.display): screen 320x200, root 0x") == true, "\(lines)")
    }

    @Test("mail-client: its own window and list, a toolbar embedded as a child, its own loop", arguments: configurations)
    func mailClient(configuration: String) throws {
        let server = try XvfbServer.start()
        let app = try ChildProcess(executable: try Self.example("mail-client", configuration),
                                   environment: .inherited(adding: ["DISPLAY": server.display]), stdin: .null)
        defer { app.kill(SIGKILL) }
        let ready = try app.readEvent(named: "ready", timeout: 20)
        guard let window = ready["window"]?.int.map(UInt32.init), let toolbar = ready["toolbar"]?.int.map(UInt32.init),
              let toolbarHeight = ready["toolbarHeight"]?.int else {
            Issue.record("malformed ready: \(ready)")
            return
        }
        let x = try XTestClient(display: server.display)
        try x.movePointerToCorner()
        #expect(try x.parent(ofWindow: toolbar) == window, "the toolbar is a child of the app's window")
        #expect(try x.property(window: window, name: "WM_CLASS")?.bytes == Array("mail-client\0MailClient\0".utf8))
        #expect(try x.property(window: window, name: "_NET_WM_NAME")?.string == "(3) Mail")
        #expect(try x.geometry(ofWindow: toolbar).width == 480, "the toolbar spans the window")
        let accent = RGB(r: 0x1A, g: 0x73, b: 0xE8)
        let before = try x.capture(window: window)
        let strip = PixelRect(x: 0, y: 0, width: 480, height: toolbarHeight)
        #expect(before.count(in: strip, where: isBadgeRed) > 100, "no badges in the toolbar")
        let firstDot = PixelRect(x: 8, y: toolbarHeight + 12, width: 16, height: 16)
        #expect(before.count(near: accent, tolerance: 40, in: firstDot) > 20, "the first message has no unread dot")
        let dots = before.count(near: accent, tolerance: 40, in: PixelRect(x: 0, y: toolbarHeight, width: 30, height: 200))
        // Reading the first message: the dot goes, and the Inbox badge follows (3 → 2).
        let row = try x.rootPoint(inWindow: window, x: 200, y: toolbarHeight + 20)
        try x.click(button: 1, atRoot: row)
        let read = try app.readEvent(named: "read")
        #expect(read["row"]?.int == 0 && read["unread"]?.int == 2)
        let change = try app.readEvent(named: "change")
        #expect(change["id"]?.string == "inbox" && change["count"]?.int == 2 && change["cause"]?.string == "click")
        let after = try x.capture(window: window)
        #expect(after.count(near: accent, tolerance: 40, in: firstDot) < 3, "the dot stayed")
        #expect(after.count(near: accent, tolerance: 40, in: PixelRect(x: 0, y: toolbarHeight, width: 30, height: 200)) < dots)
        #expect(try x.property(window: window, name: "_NET_WM_NAME")?.string == "(2) Mail")
        // A click on the toolbar's second button goes to the host: alerts 2 → 3.
        let alerts = try x.rootPoint(inWindow: toolbar, x: 80, y: toolbarHeight / 2)
        try x.click(button: 1, atRoot: alerts)
        let alertChange = try app.readEvent(named: "change")
        #expect(alertChange["id"]?.string == "alerts" && alertChange["count"]?.int == 3)
        // The window manager's close button ends the app's loop cleanly.
        try x.sendDeleteWindow(window: window)
        _ = try app.readEvent(named: "closed")
        #expect(app.waitForExit(timeout: 10) == .exited(0), "stderr: \(app.stderrText)")
    }
}
