import BadgeCore
import Glibc
import Testing
import XvfbHarness

/// Writes `text` to a fresh file under the artifacts directory and returns its path.
func writeTemporaryFile(_ name: String, _ text: String) throws -> String {
    let path = try Artifacts.path(for: "\(name)-\(getpid())")
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    guard fd >= 0 else { throw HarnessError("cannot write \(path)") }
    defer { close(fd) }
    let bytes = Array(text.utf8)
    guard write(fd, bytes, bytes.count) == bytes.count else { throw HarnessError("short write to \(path)") }
    return path
}

/// `--config FILE` and `--gallery FILE`.
@Suite("E2E: config file and gallery", .endToEnd(minutes: 1))
struct ConfigFileTests {
    @Test("The toolbar is built from the file: ids, labels, icons, content, colours, maximum count, theme")
    func buildsToolbar() throws {
        let svg = try writeTemporaryFile("star.svg", """
            <svg xmlns="http://www.w3.org/2000/svg" width="24" height="24" viewBox="0 0 24 24">
            <path d="M12 2l3 7h7l-6 4 2 8-6-5-6 5 2-8-6-4h7z" fill="#000"/></svg>
            """)
        let config = try writeTemporaryFile("toolbar.json", """
            {"theme": "dark",
             "buttons": [
               {"id": "inbox", "icon": "mail", "label": "Inbox", "content": {"kind": "count", "count": 150},
                "style": {"background": "#1E88E5", "maximumCount": 999}},
               {"id": "star", "icon": "\(svg)", "label": "Starred", "content": {"kind": "text", "text": "hot"}},
               {"id": "ping", "label": "Ping", "icon": "bell", "content": {"kind": "dot", "blink": false}}
             ]}
            """)
        let s = try DemoSession("config", arguments: ["--config", config, "--count", "ping=2"])
        let state = try s.state()
        #expect(state.buttons.map(\.id) == ["inbox", "star", "ping"])
        let inbox = try state.button("inbox")
        #expect(inbox.text == "150" && inbox.description.hasPrefix("Inbox"), "\(inbox.json)")
        #expect(try state.button("star").text == "hot")
        #expect(try state.button("ping").count == 2)
        #expect(state.title == "(152) Badges")
        try s.moveAwayAndSync()
        let image = try s.capture()
        let badge = try #require(inbox.badge)
        let blue = image.count(near: RGB(hex: 0x1E88E5), tolerance: 40, in: badgeInterior(badge))
        expectPixels(blue > 0, "the inbox badge is not #1E88E5", images: ["config": image], test: "config")
        let background = image.pixel(x: s.size.width - 3, y: 3)
        #expect(Int(background.r) + Int(background.g) + Int(background.b) < 200, "dark theme expected, got \(background)")
        try s.command("inc inbox")
        #expect(try s.nextChange()["text"]?.string == "151")
    }

    @Test("Bad config files exit 2 before opening a window, naming the file, the field and the reason", arguments: [
        ("{\"buttons\": [{\"id\": \"a\", \"style\": {\"background\": \"red\"}}]}", "buttons[0].style.background"),
        ("{\"buttons\": [{\"id\": \"a\"}, {\"id\": \"a\"}]}", "buttons[1].id"),
        ("{\"buttons\": [{\"id\": \"a\", \"content\": {\"kind\": \"count\", \"count\": \"x\"}}]}", "buttons[0].content.count"),
        ("{\"buttons\": [{\"id\": \"a\", \"icon\": \"nosuchicon\"}]}", "buttons[0].icon"),
        ("{\"buttons\": [{\"id\": \"a\", \"icon\": \"/nonexistent/x.svg\"}]}", "buttons[0].icon"),
        ("{\"buttons\": []}", "buttons"),
        ("{\"theme\": \"pink\", \"buttons\": [{\"id\": \"a\"}]}", "theme"),
        ("{\"scale\": 99, \"buttons\": [{\"id\": \"a\"}]}", "scale"),
        ("{\"buttons\": [{\"id\": \"a\", \"style\": {\"fontSize\": -1}}]}", "buttons[0].style.fontSize"),
        ("{\"buttons\": [{\"label\": \"x\"}]}", "buttons[0].id"),
        ("{\"buttons\": [", "not valid JSON"),
    ])
    func badConfig(text: String, field: String) throws {
        let path = try writeTemporaryFile("bad-\(field.filter { $0.isLetter || $0.isNumber })-\(text.utf8.count).json", text)
        // No DISPLAY: a window would fail with status 1, so status 2 shows the check came first.
        let app = try ChildProcess(executable: try BuiltProducts.executable(named: "badge-demo"), arguments: ["--config", path],
                                   environment: .inherited(removing: ["DISPLAY"]), stdin: .null)
        let status = app.waitForExit(timeout: 10)
        var message = app.stderrText
        while message.hasSuffix("\n") { message.removeLast() }
        #expect(status == .exited(2), "status \(status?.description ?? "running"); stderr: \(message)")
        #expect(message.contains(path) && message.contains(field), "stderr: \(message)")
        #expect(!message.contains("\n"), "one line expected: \(message)")
    }

    @Test("A missing config file exits 2 naming it")
    func missingConfig() throws {
        let app = try ChildProcess(executable: try BuiltProducts.executable(named: "badge-demo"),
                                   arguments: ["--config", "/nonexistent/badges.json"], stdin: .null)
        #expect(app.waitForExit(timeout: 10) == .exited(2))
        #expect(app.stderrText.contains("/nonexistent/badges.json"))
    }

    @Test("--gallery writes a PNG and exits 0 without a display")
    func gallery() throws {
        let path = try Artifacts.path(for: "gallery-\(getpid()).png")
        let app = try ChildProcess(executable: try BuiltProducts.executable(named: "badge-demo"), arguments: ["--gallery", path],
                                   environment: .inherited(removing: ["DISPLAY"]), stdin: .null)
        #expect(app.waitForExit(timeout: 30) == .exited(0), "stderr: \(app.stderrText)")
        let fd = open(path, O_RDONLY)
        #expect(fd >= 0)
        var magic = [UInt8](repeating: 0, count: 8)
        if fd >= 0 { _ = read(fd, &magic, 8); close(fd) }
        #expect(magic == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], "not a PNG: \(magic)")
    }
}
