import BadgeControl
import BadgeCore
import Glibc
import Testing
import XvfbHarness

/// docs/bars.md's modules run with the real bars (issue 36): i3 with i3bar, polybar and lemonbar on
/// Xvfb, clicked through XTEST; i3blocks' output read; waybar's module parsed and its commands run;
/// and `msg click` / `msg peek` from a script.
@Suite("E2E: bars in their own protocols, with clicks", .endToEnd(minutes: 4))
struct BarProtocolTests {
    /// The code block after `<!-- module: NAME -->` in docs/bars.md, as a user copies it.
    static func module(_ name: String) throws -> String {
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)
        let path = parts.joined(separator: "/") + "/docs/bars.md"
        guard let file = fopen(path, "r") else { throw HarnessError("cannot read \(path)") }
        defer { fclose(file) }
        var text = ""
        var buffer = [CChar](repeating: 0, count: 4096)
        while fgets(&buffer, Int32(buffer.count), file) != nil {
            text += String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        guard let marker = text.firstRange(of: "<!-- module: \(name) -->"),
              let open = text[marker.upperBound...].firstRange(of: "```"),
              let lineEnd = text[open.upperBound...].firstIndex(of: "\n"),
              let close = text[lineEnd...].firstRange(of: "\n```") else {
            throw HarnessError("docs/bars.md has no module \(name)")
        }
        return String(text[text.index(after: lineEnd)..<close.lowerBound])
    }

    /// PATH with the built badge-demo first: the modules name `badge-demo` as an installed one.
    static func pathWithDemo() throws -> String {
        let demo = try BuiltProducts.executable(named: "badge-demo")
        let folder = demo.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        return folder + ":" + (getenv("PATH").map { String(cString: $0) } ?? "/usr/bin:/bin")
    }

    /// A config of two counting buttons, Mail 2 and Chat 5, written in `folder`.
    static func twoButtons(in folder: String) -> String {
        let path = folder + "/config.json"
        let file = fopen(path, "w")
        fputs(#"{"buttons": [{"id": "mail", "icon": "mail", "label": "Mail", "content": {"kind": "count", "count": 2}},"#
              + #" {"id": "chat", "icon": "chat", "label": "Chat", "content": {"kind": "count", "count": 5}}]}"#, file)
        fclose(file)
        return path
    }

    /// Runs `badge-demo msg ARGUMENTS` to its end: its status and standard error.
    static func msg(_ arguments: [String], runtime: String) throws -> (status: ProcessTermination?, err: String) {
        let client = try ChildProcess(executable: try BuiltProducts.executable(named: "badge-demo"), arguments: ["msg"] + arguments,
                                      environment: .inherited(adding: ["XDG_RUNTIME_DIR": runtime], removing: ["DISPLAY"]))
        client.closeStdin()
        while try client.readLine(timeout: 30) != nil {}
        return (client.waitForExit(timeout: 10), client.stderrText)
    }

    /// Waits until button `id`'s count is `count`; the last state seen.
    @discardableResult
    static func waitForCount(_ s: DemoSession, _ id: String, _ count: Int, seconds: Double = 10) throws -> AppState {
        let deadline = Deadline(seconds: seconds)
        var state = try s.state()
        while try state.button(id).count != count, !deadline.hasPassed { state = try s.state() }
        let seen = try state.button(id).count
        #expect(seen == count, "\(id): \(seen.map(String.init) ?? "none"), not \(count)")
        return state
    }

    /// The bar's text in `rect` (root pixels): the columns and the middle row of its light pixels.
    static func text(in s: DemoSession, _ rect: PixelRect) throws -> (minX: Int, maxX: Int, midY: Int, pixels: Int)? {
        let image = try s.x.capture(window: s.x.root, rect: rect)
        var minX = Int.max, maxX = Int.min, minY = Int.max, maxY = Int.min, pixels = 0
        image.forEachPixel { x, y, p in
            guard p.r > 200 && p.g > 200 && p.b > 200 else { return }
            pixels += 1
            minX = min(minX, x); maxX = max(maxX, x); minY = min(minY, y); maxY = max(maxY, y)
        }
        guard pixels > 0 else { return nil }
        // forEachPixel gives the image's own coordinates: root ones for a capture of the root.
        return (minX, maxX, (minY + maxY) / 2, pixels)
    }

    /// Waits until the bar in `rect` shows text, and returns where.
    static func waitForText(in s: DemoSession, _ rect: PixelRect, bar: ChildProcess, seconds: Double = 20) throws -> (minX: Int, maxX: Int, midY: Int, pixels: Int) {
        let deadline = Deadline(seconds: seconds)
        while true {
            if let found = try text(in: s, rect), found.pixels > 40 { return found }
            if deadline.hasPassed {
                let shot = try s.x.capture(window: s.x.root)
                throw HarnessError("no text in the bar at \(rect) (capture: \(shot.saveArtifact(named: "bar-no-text"))); bar: \(bar.stderrText.suffix(600))")
            }
            try s.x.sync()
        }
    }

    @Test("msg click does the window's clicks (left, middle, wheel; refused for an unknown button or pointer button); msg peek opens where asked, keys work, the window hidden too")
    func clickAndPeekFromScripts() throws {
        let runtime = try BarStreamTests.runtimeFolder("click")
        defer { removeTree(runtime) }
        let s = try DemoSession("bar-click", arguments: ["--no-state"], environment: ["XDG_RUNTIME_DIR": runtime])
        #expect(try Self.msg(["click", "bell"], runtime: runtime).status == .exited(0))
        try Self.waitForCount(s, "bell", 4)
        _ = try Self.msg(["click", "bell", "up"], runtime: runtime)
        try Self.waitForCount(s, "bell", 5)
        _ = try Self.msg(["click", "bell", "down"], runtime: runtime)
        try Self.waitForCount(s, "bell", 4)
        _ = try Self.msg(["click", "bell", "middle"], runtime: runtime)
        try Self.waitForCount(s, "bell", 0)
        let unknown = try Self.msg(["click", "nosuch"], runtime: runtime)
        #expect(unknown.status == .exited(2) && unknown.err.contains("unknown button \"nosuch\""), "\(unknown)")
        let badButton = try Self.msg(["click", "bell", "sideways"], runtime: runtime)
        #expect(badButton.status == .exited(2) && badButton.err.contains("left, middle, right, up or down"), "\(badButton)")

        // The peek next to a point, grabbed, its rows the window's; the keys choose +1.
        #expect(try Self.msg(["peek", "mail", "--at", "300,300"], runtime: runtime).status == .exited(0))
        #expect(try s.peekEvent("opened")["id"]?.string == "mail")
        let peek = try #require(try s.peek())
        let frame = try #require(PixelRect(json: peek["frame"]))
        #expect(abs(frame.x - 300) <= 8 && ((300...310).contains(frame.y) || (290...300).contains(frame.maxY)), "\(frame)")
        #expect(peek["grabbed"]?.bool == true)
        let titles = (peek["rows"]?.array ?? []).map { $0["title"]?.string ?? "" }
        let plusOne = try #require(titles.firstIndex { $0.contains("1") && $0.contains("+") }, "\(titles)")
        var presses = 0
        while try s.peek()?["highlighted"]?.int != plusOne, presses < 8 {
            try s.key(PeekKeysym.down)
            presses += 1
        }
        try s.key(Keysym.returnKey)
        #expect(try s.peekEvent("closed")["reason"]?.string == "activated")
        try Self.waitForCount(s, "mail", 13)

        // Hidden, the window still answers: the peek of every button at the pointer, Escape closes it.
        try s.x.unmap(window: s.window)
        try s.x.move(toRoot: (200, 200))
        try s.sync()
        #expect(try Self.msg(["peek", "all"], runtime: runtime).status == .exited(0))
        #expect(try s.peekEvent("opened")["id"]?.string == "tray")
        let total = try #require(PixelRect(json: try s.peek()?["frame"]))
        #expect(abs(total.x - 200) <= 8, "at the pointer: \(total)")
        let image = try s.x.capture(window: s.x.root, rect: total)
        expectPixels(image.count { $0.r > 200 && $0.g > 200 && $0.b > 200 } > total.width * total.height / 2,
                     "the peek is not on the screen", images: ["peek": image], test: "bar-peek-hidden")
        try s.key(Keysym.escape)
        #expect(try s.peekEvent("closed")["reason"]?.string == "escape")
        _ = try Self.msg(["click", "mail"], runtime: runtime)
        try Self.waitForCount(s, "mail", 14)
    }

    @Test("i3 with i3bar runs docs/bars.md's bar block: the blocks show, a left click counts, the right one opens the peek above the bar, the wheel and the middle act",
          .enabled(if: findOnPath("i3") != nil && findOnPath("i3bar") != nil, "i3 and i3bar are not installed"))
    func realI3bar() throws {
        let runtime = try BarStreamTests.runtimeFolder("i3bar")
        defer { removeTree(runtime) }
        let config = Self.twoButtons(in: runtime)
        // No tray icon: i3bar's tray would sit right of the blocks.
        let s = try DemoSession("bar-i3bar", arguments: ["--no-state", "--no-tray", "--config", config], screenWidth: 800,
                                environment: ["XDG_RUNTIME_DIR": runtime])
        let i3config = runtime + "/i3.config"
        let file = fopen(i3config, "w")
        fputs("# i3 config file (v4)\nfont pango:DejaVu Sans 10\nfocus_follows_mouse no\nfor_window [class=\"BadgeDemo\"] floating enable\n"
              + (try Self.module("i3")) + "\n", file)
        fclose(file)
        let log = try Artifacts.path(for: "bar-i3-\(getpid()).log")
        let i3 = try ChildProcess(executable: "i3", arguments: ["-c", i3config],
                                  environment: .inherited(adding: ["DISPLAY": s.server.display, "XDG_RUNTIME_DIR": runtime, "PATH": try Self.pathWithDemo()]),
                                  stdin: .null, stdout: .file(log), stderr: .file(log + ".err"), ownProcessGroup: true)
        defer { i3.killGroup(SIGKILL); i3.waitForExit(timeout: 5) }
        // The bottom strip right of i3bar's workspace button (the blocks are right-aligned).
        let strip = PixelRect(x: 200, y: 480 - 30, width: 600, height: 30)
        let shown = try Self.waitForText(in: s, strip, bar: i3)
        // Blocks are right-aligned: Mail's is the first, Chat's the last.
        let left = (shown.minX + 3, shown.midY), right = (shown.maxX - 2, shown.midY)
        try s.x.click(button: MouseButton.left, atRoot: left)
        try Self.waitForCount(s, "mail", 3)
        try s.x.click(button: MouseButton.wheelUp, atRoot: left)
        try Self.waitForCount(s, "mail", 4)
        try s.x.click(button: MouseButton.wheelDown, atRoot: left)
        try Self.waitForCount(s, "mail", 3)
        #expect(try s.state().button("chat").count == 5, "a click on Mail's block changes Mail only")
        // The right button: Chat's peek, above the bar at the bottom, next to the block.
        try s.x.click(button: MouseButton.right, atRoot: right)
        #expect(try s.peekEvent("opened")["id"]?.string == "chat")
        let frame = try #require(PixelRect(json: try s.peek()?["frame"]))
        #expect(frame.maxY <= 480 - 15 && frame.maxY >= 480 - 60 && frame.maxX >= right.0 - 200 && frame.x <= right.0, "\(frame), clicked at \(right)")
        try s.key(Keysym.escape)
        _ = try s.peekEvent("closed")
        try s.x.click(button: MouseButton.middle, atRoot: right)
        try Self.waitForCount(s, "chat", 0)
        // Chat shows nothing now: its block goes, and Mail's, right-aligned, moves to the edge.
        let deadline = Deadline(seconds: 10)
        var after = try Self.text(in: s, strip)
        while let now = after, now.minX < shown.minX + 10, !deadline.hasPassed { try s.x.sync(); after = try Self.text(in: s, strip) }
        #expect(after.map { $0.minX >= shown.minX + 10 && $0.pixels < shown.pixels && $0.pixels > 20 } == true, "\(String(describing: after)) vs \(shown)")
    }

    @Test("polybar runs docs/bars.md's module: a left click on a button's text counts it, the right one opens its peek, the wheel acts",
          .enabled(if: findOnPath("polybar") != nil, "polybar is not installed"))
    func realPolybarClicks() throws {
        let runtime = try BarStreamTests.runtimeFolder("polybar-clicks")
        defer { removeTree(runtime) }
        let config = Self.twoButtons(in: runtime)
        let s = try DemoSession("bar-polybar-clicks", arguments: ["--no-state", "--config", config], environment: ["XDG_RUNTIME_DIR": runtime])
        let bar = try launchPolybar(in: runtime, display: s.server.display, environment: ["XDG_RUNTIME_DIR": runtime, "PATH": try Self.pathWithDemo()], bar: """
            width = 600
            height = 24
            offset-y = 400
            modules-left = badges
            """, modules: try Self.module("polybar"))
        defer { bar.kill(SIGTERM); bar.waitForExit(timeout: 5) }
        let shown = try Self.waitForText(in: s, PixelRect(x: 0, y: 400, width: 600, height: 24), bar: bar)
        let left = (shown.minX + 3, shown.midY), right = (shown.maxX - 2, shown.midY)
        try s.x.click(button: MouseButton.left, atRoot: left)
        try Self.waitForCount(s, "mail", 3)
        try s.x.click(button: MouseButton.wheelUp, atRoot: right)
        try Self.waitForCount(s, "chat", 6)
        try s.x.click(button: MouseButton.right, atRoot: right)
        #expect(try s.peekEvent("opened")["id"]?.string == "chat")
        let frame = try #require(PixelRect(json: try s.peek()?["frame"]))
        #expect(abs(frame.x - right.0) <= 8, "the peek at the pointer: \(frame), clicked at \(right)")
        try s.key(Keysym.escape)
        _ = try s.peekEvent("closed")
        #expect(try s.state().button("mail").count == 3)
    }

    @Test("lemonbar runs docs/bars.md's pipeline: a left click counts the button, the right one opens its peek",
          .enabled(if: findOnPath("lemonbar") != nil, "lemonbar is not installed"))
    func realLemonbar() throws {
        let runtime = try BarStreamTests.runtimeFolder("lemonbar")
        defer { removeTree(runtime) }
        let config = Self.twoButtons(in: runtime)
        let s = try DemoSession("bar-lemonbar", arguments: ["--no-state", "--config", config], environment: ["XDG_RUNTIME_DIR": runtime])
        // The docs' line, with where the bar goes and its colours (lemonbar's own options).
        let line = try Self.module("lemonbar").trimmingCharacters(in: "\n ")
            .replacingOccurrences(of: "lemonbar -p", with: "lemonbar -p -g 600x20+0+400 -B '#222222' -F '#ffffff'")
        let bar = try ChildProcess(executable: "/bin/sh", arguments: ["-c", line],
                                   environment: .inherited(adding: ["DISPLAY": s.server.display, "XDG_RUNTIME_DIR": runtime, "PATH": try Self.pathWithDemo()]),
                                   stdin: .null, ownProcessGroup: true)
        defer { bar.killGroup(SIGKILL); bar.waitForExit(timeout: 5) }
        let shown = try Self.waitForText(in: s, PixelRect(x: 0, y: 400, width: 600, height: 20), bar: bar)
        try s.x.click(button: MouseButton.left, atRoot: (shown.minX + 2, shown.midY))
        try Self.waitForCount(s, "mail", 3)
        try s.x.click(button: MouseButton.right, atRoot: (shown.maxX - 2, shown.midY))
        #expect(try s.peekEvent("opened")["id"]?.string == "chat")
        try s.key(Keysym.escape)
        _ = try s.peekEvent("closed")
        #expect(try s.state().button("chat").count == 5)
    }

    @Test("waybar's module from docs/bars.md: valid JSON, its exec streams one button's line, its on-click commands act",
          .enabled(if: findOnPath("sh") != nil))
    func waybarModule() throws {
        let runtime = try BarStreamTests.runtimeFolder("waybar")
        defer { removeTree(runtime) }
        let config = Self.twoButtons(in: runtime)
        let s = try DemoSession("bar-waybar", arguments: ["--no-state", "--config", config], environment: ["XDG_RUNTIME_DIR": runtime])
        let module = try JSONValue(parsing: try Self.module("waybar"))
        let mail = try #require(module["custom/mail"])
        #expect(mail["return-type"]?.string == "json")
        #expect(module["modules-right"]?.array?.compactMap(\.string) == ["custom/mail", "custom/bell"])
        let environment = ChildEnvironment.inherited(adding: ["XDG_RUNTIME_DIR": runtime, "PATH": try Self.pathWithDemo()], removing: ["DISPLAY"])
        // waybar runs exec with sh -c, and each on-click command the same way.
        let stream = try ChildProcess(executable: "/bin/sh", arguments: ["-c", try #require(mail["exec"]?.string)], environment: environment,
                                      stdin: .null, ownProcessGroup: true)
        defer { stream.killGroup(SIGKILL); stream.waitForExit(timeout: 5) }
        let first = try JSONValue(parsing: try #require(try stream.readLine(timeout: 10)))
        #expect(first["text"]?.string == "Mail 2" && first["class"]?.string == "unread" && first["percentage"]?.int == 100, "\(first)")
        func run(_ key: String) throws {
            let command = try #require(mail[key]?.string, "\(key)")
            let child = try ChildProcess(executable: "/bin/sh", arguments: ["-c", command], environment: environment, stdin: .null)
            #expect(child.waitForExit(timeout: 15) == .exited(0), "\(command): \(child.stderrText)")
        }
        try run("on-click")
        // The window asks for attention (a line for that) just before the count's own line.
        var clicked: JSONValue?
        while clicked?["text"]?.string != "Mail 3", let line = try stream.readLine(timeout: 10) { clicked = try JSONValue(parsing: line) }
        #expect(clicked?["text"]?.string == "Mail 3")
        try run("on-scroll-down")
        try Self.waitForCount(s, "mail", 2)
        try run("on-click-middle")
        var cleared: JSONValue?
        while cleared?["class"]?.array == nil, let line = try stream.readLine(timeout: 10) { cleared = try JSONValue(parsing: line) }
        // Cleared: zero (beside urgent, as the unfocused window asks for attention since the first click).
        #expect(cleared?["class"]?.array?.compactMap(\.string).contains("zero") == true && cleared?["percentage"]?.int == 0, "\(String(describing: cleared))")
        try run("on-click-right")
        #expect(try s.peekEvent("opened")["id"]?.string == "mail")
        try s.key(Keysym.escape)
        _ = try s.peekEvent("closed")
        #expect(try s.state().button("chat").count == 5)
    }

    @Test("i3blocks runs docs/bars.md's block: its i3bar output carries the summary, the total, and follows a change",
          .enabled(if: findOnPath("i3blocks") != nil, "i3blocks is not installed"))
    func realI3blocks() throws {
        let runtime = try BarStreamTests.runtimeFolder("i3blocks")
        defer { removeTree(runtime) }
        let config = Self.twoButtons(in: runtime)
        let s = try DemoSession("bar-i3blocks", arguments: ["--no-state", "--config", config], environment: ["XDG_RUNTIME_DIR": runtime])
        let blocks = runtime + "/i3blocks.conf"
        let file = fopen(blocks, "w")
        fputs(try Self.module("i3blocks") + "\n", file)
        fclose(file)
        let bar = try ChildProcess(executable: "i3blocks", arguments: ["-c", blocks],
                                   environment: .inherited(adding: ["XDG_RUNTIME_DIR": runtime, "PATH": try Self.pathWithDemo()], removing: ["DISPLAY"]),
                                   stdin: .pipe, ownProcessGroup: true)
        defer { bar.killGroup(SIGKILL); bar.waitForExit(timeout: 5) }
        func nextBlock(containing text: String) throws -> JSONValue? {
            let deadline = Deadline(seconds: 15)
            while !deadline.hasPassed, let line = try bar.readLine(timeout: 15) {
                var trimmed = Substring(line)
                while trimmed.first == "," { trimmed = trimmed.dropFirst() }
                guard trimmed.hasPrefix("["), let array = try? JSONValue(parsing: String(trimmed)).array else { continue }
                if let block = array.first(where: { $0["full_text"]?.string?.contains(text) == true }) { return block }
            }
            return nil
        }
        let block = try #require(try nextBlock(containing: "Mail 2"), "i3blocks: \(bar.stderrText.suffix(400))")
        #expect(block["full_text"]?.string == "Mail 2 · Chat 5" && block["short_text"]?.string == "7", "\(block)")
        try s.command("set mail 9")
        let changed = try #require(try nextBlock(containing: "Mail 9"))
        #expect(changed["short_text"]?.string == "14")
    }

    @Test("Hostile input on i3bar's stdin: one message per bad line (five at most), an endless line bounded, the counts still flow and clicks still act")
    func hostileClickInput() throws {
        let runtime = try BarStreamTests.runtimeFolder("i3bar-hostile")
        defer { removeTree(runtime) }
        let s = try DemoSession("bar-hostile", arguments: ["--no-state"], environment: ["XDG_RUNTIME_DIR": runtime])
        let stream = try ChildProcess(executable: try BuiltProducts.executable(named: "badge-demo"), arguments: ["msg", "--watch", "--format", "i3bar"],
                                      environment: .inherited(adding: ["XDG_RUNTIME_DIR": runtime], removing: ["DISPLAY"]))
        defer { stream.kill(SIGKILL); stream.waitForExit(timeout: 5) }
        #expect(try stream.readLine(timeout: 10) == #"{"version":1,"click_events":true}"#)
        #expect(try stream.readLine(timeout: 10) == "[")
        #expect(try stream.readLine(timeout: 10)?.hasPrefix(#"[{"name":"badge-demo","instance":"bell""#) == true)
        try stream.writeLine("[")
        try stream.writeLine("{not json")
        try stream.writeDraining(Array(repeating: UInt8(ascii: "x"), count: 1 << 20) + [0x0A])
        for _ in 0..<20 { try stream.writeLine(",\u{7}garbage") }
        try stream.writeLine(#",{"name":"badge-demo","instance":"bell","button":1,"x":1,"y":1}"#)
        try Self.waitForCount(s, "bell", 4)
        var line = ""
        while !line.contains("Notifications 4"), let next = try stream.readLine(timeout: 10) { line = next }
        #expect(line.hasPrefix(",[") && line.contains(#""full_text":"Notifications 4""#), "\(line)")
        let messages = stream.stderrText.split(separator: "\n")
        #expect(messages.count == 5 && messages.contains { $0.contains("over 4096 bytes") }, "\(messages)")
        #expect(!stream.stderrText.contains("\u{7}"), "control characters are not echoed")
        #expect(stream.waitForExit(timeout: 0) == nil)
        // Waiting on the socket and on the bar's clicks at once costs no wakeups while nothing comes.
        #expect(try stream.waitUntilIdle(timeout: 10, quiet: 60), "the stream keeps a deadline")
        let switches = try stream.contextSwitches()
        measureInterval(seconds: 1)
        #expect(try stream.contextSwitches() == switches, "the i3bar stream woke up while nothing changed")
    }
}

extension String {
    /// The string without `characters` at either end.
    func trimmingCharacters(in characters: String) -> String {
        let set = Set(characters)
        return String(drop { set.contains($0) }.reversed().drop { set.contains($0) }.reversed())
    }

    /// Every `target` replaced by `replacement`.
    func replacingOccurrences(of target: String, with replacement: String) -> String {
        var result = ""
        var rest = self[...]
        while let range = rest.firstRange(of: target) {
            result += rest[..<range.lowerBound] + replacement
            rest = rest[range.upperBound...]
        }
        return result + rest
    }
}
