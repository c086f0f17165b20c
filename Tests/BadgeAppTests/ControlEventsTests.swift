import BadgeControl
import BadgeCore
import BadgeIO
import Glibc
import Testing
@testable import BadgeApp

private final class SevenPixelText: TextMeasuring {
    func size(of text: String, font: BadgeFont) -> Size { Size(width: 7 * Double(text.count), height: 13) }
}

/// The control channel's event lines, as scripts read them (issue 27: pinned before the board).
@Suite struct ControlEventsTests {
    let clock = ManualClock(now: 100)

    func button(_ id: String, _ content: BadgeContent) -> ToolbarButton {
        ToolbarButton(id: id, iconName: id, badge: BadgeController(accessibilityLabel: "Mail", content: content,
                                                                   clock: clock, measurer: SevenPixelText()))
    }

    @Test("change: the id, cause, content, the text shown, the description and the confidence, in that order")
    func change() {
        let line = ControlEvents.change(button("mail", .count(120)), cause: .source).serialized
        #expect(line == #"{"event":"change","id":"mail","cause":"source","content":{"kind":"count","count":120},"text":"99+","description":"Mail, more than 99 unread","confidence":"current"}"#)
        let text = ControlEvents.change(button("chat", .text("New")), cause: .click).serialized
        #expect(text.hasPrefix(#"{"event":"change","id":"chat","cause":"click","content":{"kind":"text","text":"New"},"text":"New""#), "\(text)")
    }

    @Test("config, its errors, urgency and command errors")
    func otherEvents() {
        #expect(ControlEvents.configReloaded(cause: "file", buttons: ["mail", "ci"], warnings: ["buttons[1].sorce: unknown key"]).serialized
                == #"{"event":"config","cause":"file","buttons":["mail","ci"],"warnings":["buttons[1].sorce: unknown key"],"state":null}"#)
        #expect(ControlEvents.configError("line 1, column 1: not valid JSON", cause: "file").serialized
                == #"{"event":"error","line":0,"source":"config","cause":"file","reason":"line 1, column 1: not valid JSON"}"#)
        #expect(ControlEvents.urgent(true).serialized == #"{"event":"urgent","urgent":true}"#)
        #expect(ControlEvents.error(line: 3, reason: "unknown command \"explode\"").serialized
                == #"{"event":"error","line":3,"reason":"unknown command \"explode\""}"#)
        #expect(ControlEvents.sync("t1").serialized == #"{"event":"sync","token":"t1"}"#)
    }
}

/// The config watcher without a window: what it watches, and that it reports a change once per
/// write, including a rename over the file and a folder made after it started.
@Suite struct ConfigWatcherTests {
    static func scratch() throws -> String {
        var template = Array("/tmp/badgekit-watch-XXXXXX".utf8CString)
        return try #require(template.withUnsafeMutableBufferPointer { $0.baseAddress.flatMap { mkdtemp($0) } }.map { String(cString: $0) })
    }

    static func write(_ path: String, _ text: String) {
        let file = fopen(path, "w")
        fputs(text, file)
        fclose(file)
    }

    /// Polls the watcher's descriptor for up to `seconds`, handing it readiness; returns how many
    /// changes it reported.
    static func changes(_ watcher: ConfigWatcher, within seconds: Double) -> Int {
        var count = 0
        watcher.onChange = { count += 1 }
        let source = watcher.source
        let end = SystemTime.monotonic + seconds
        while SystemTime.monotonic < end, let fd = source.descriptor() {
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if poll(&entry, 1, 50) > 0 { try? source.handle(EventLoop.Readiness(readable: true, writable: false, failed: false)) }
        }
        return count
    }

    @Test("A write, a rename over the file, and a folder made later are each one change; another file in the folder is none")
    func changes() throws {
        let folder = try Self.scratch()
        defer { _ = system("rm -rf '\(folder)'") }
        let path = folder + "/badge-demo/config.json"
        let watcher = ConfigWatcher(path: path)
        #expect(watcher.isWatching, "the nearest existing parent is watched")
        // The folder appears, then the file in it.
        #expect(mkdir(folder + "/badge-demo", 0o700) == 0)
        Self.write(path, #"{"theme": "dark"}"#)
        #expect(Self.changes(watcher, within: 1) >= 1, "the file written in a folder made after the start")
        // A write in place.
        Self.write(path, #"{"theme": "light"}"#)
        #expect(Self.changes(watcher, within: 1) == 1)
        // An editor's save: write a temporary file, rename it over.
        Self.write(path + ".tmp", #"{"theme": "dark"}"#)
        #expect(rename(path + ".tmp", path) == 0)
        #expect(Self.changes(watcher, within: 1) == 1)
        // Another file beside it changes nothing.
        Self.write(folder + "/badge-demo/notes.txt", "x")
        #expect(Self.changes(watcher, within: 0.5) == 0)
    }
}
