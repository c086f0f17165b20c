import BadgeCore
import Glibc
import Testing
import XvfbHarness
import BadgeControl

/// Counts that survive restarts and crashes: a state file in the test's own XDG_STATE_HOME,
/// written atomically and debounced, restored at start (flags win), and never a reason to fail.
@Suite("E2E: saved counts", .timeLimit(.minutes(2)))
struct SavedCountsTests {
    /// A fresh, private XDG_STATE_HOME.
    static func stateHome(_ name: String) throws -> String {
        let path = try Artifacts.path(for: "state-\(name)-\(getpid())")
        removeTree(path)
        #expect(mkdir(path, 0o700) == 0)
        return path
    }

    static func quit(_ s: DemoSession) throws {
        try s.command("quit")
        #expect(s.app.waitForExit(timeout: 10) == .exited(0), "stderr: \(s.app.stderrText)")
    }

    static func savedFile(_ home: String) -> JSONValue? {
        guard let bytes = try? readProcFile(home + "/badge-demo/state.json") else { return nil }
        return try? JSONValue(parsing: String(decoding: bytes, as: UTF8.self))
    }

    @Test("Counts, texts and dots come back after a restart; --count wins; --no-state keeps nothing")
    func restartKeepsTheCounts() throws {
        let home = try Self.stateHome("restart")
        let first = try DemoSession("state-1", environment: ["XDG_STATE_HOME": home])
        try first.command("set mail 42")
        try first.command("text chat Hi")
        try first.command("clear bell")
        try first.sync()
        try Self.quit(first)
        let saved = try #require(Self.savedFile(home), "no state file after a clean exit")
        #expect(saved["version"]?.int == 1 && saved["buttons"]?["mail"]?["count"]?.int == 42)

        let second = try DemoSession("state-2", environment: ["XDG_STATE_HOME": home])
        let state = try second.state()
        #expect(try state.button("mail").count == 42 && state.button("chat").text == "Hi" && state.button("bell").count == 0)
        #expect(state.title == "(42) Badges")
        #expect(second.app.stderrText.isEmpty, "\(second.app.stderrText)")
        try Self.quit(second)

        let flagged = try DemoSession("state-3", arguments: ["--count", "mail=7"], environment: ["XDG_STATE_HOME": home])
        #expect(try flagged.state().button("mail").count == 7, "--count wins over the saved count")
        #expect(try flagged.state().button("chat").text == "Hi")
        try Self.quit(flagged)

        let other = try Self.stateHome("nostate")
        let none = try DemoSession("state-4", arguments: ["--no-state"], environment: ["XDG_STATE_HOME": other])
        try none.command("set mail 99")
        try none.sync()
        try Self.quit(none)
        #expect(access(other + "/badge-demo/state.json", F_OK) != 0, "--no-state wrote a file")
    }

    @Test("The final state is on disk within a second of the last change, without an exit")
    func writtenSoonAfterTheLastChange() throws {
        let home = try Self.stateHome("soon")
        let s = try DemoSession("state-soon", environment: ["XDG_STATE_HOME": home])
        try s.app.writeDraining(Array(String(repeating: "inc mail\n", count: 300).utf8))
        try s.sync()
        let deadline = Deadline(seconds: 1)
        var count: Int?
        while !deadline.hasPassed {
            count = Self.savedFile(home)?["buttons"]?["mail"]?["count"]?.int
            if count == 312 { break }
            var pause = timespec(tv_sec: 0, tv_nsec: 10_000_000)
            nanosleep(&pause, nil)
        }
        #expect(count == 312, "saved \(count.map(String.init) ?? "nothing") within 1 s")
    }

    @Test("kill -9 at any moment of a burst never leaves a file that fails to load")
    func killNineNeverCorrupts() throws {
        let home = try Self.stateHome("kill9")
        for round in 0..<6 {
            let s = try DemoSession("state-kill-\(round)", environment: ["XDG_STATE_HOME": home])
            try s.app.writeDraining(Array(String(repeating: "inc mail\ninc bell\n", count: 200).utf8))
            var pause = timespec(tv_sec: 0, tv_nsec: Int(round) * 97_000_000 % 600_000_000)
            nanosleep(&pause, nil)
            s.app.kill(SIGKILL)
            _ = s.app.waitForExit(timeout: 5)
            if let saved = Self.savedFile(home) {
                #expect(saved["version"]?.int == 1, "round \(round): \(saved)")
            } else {
                #expect(access(home + "/badge-demo/state.json", F_OK) != 0, "round \(round): the file is there but does not parse")
            }
        }
        let after = try DemoSession("state-kill-after", environment: ["XDG_STATE_HOME": home])
        #expect(after.app.stderrText.isEmpty, "the file after kill -9 does not load: \(after.app.stderrText)")
    }

    @Test("An unusable state file gives one warning and the defaults", arguments: ["empty", "truncated", "binary", "huge", "folder", "wrong"])
    func badFilesGiveDefaults(kind: String) throws {
        let home = try Self.stateHome("bad-\(kind)")
        let folder = home + "/badge-demo", file = folder + "/state.json"
        #expect(mkdir(folder, 0o700) == 0)
        func write(_ bytes: [UInt8]) {
            let fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            _ = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            close(fd)
        }
        switch kind {
        case "empty": write([])
        case "truncated": write(Array(#"{"version": 1, "buttons": {"mail": {"kind": "cou"#.utf8))
        case "binary": write((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) })
        case "huge":
            let fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            #expect(ftruncate(fd, 100 << 20) == 0)
            close(fd)
        case "folder": #expect(mkdir(file, 0o700) == 0)
        default: write(Array(#"{"version": 7, "counts": [1, 2]}"#.utf8))
        }
        let s = try DemoSession("state-bad-\(kind)", environment: ["XDG_STATE_HOME": home])
        #expect(try s.state().button("mail").count == 12, "defaults")
        let lines = s.app.stderrText.split(separator: "\n")
        #expect(lines.count == 1 && lines.first?.contains(file) == true && lines.first?.contains("ignoring the saved counts") == true,
                "stderr: \(s.app.stderrText)")
        try s.click(MouseButton.left, on: "mail")
        #expect(try s.nextChange()["text"]?.string == "13", "clicks still count")
    }

    @Test("A state folder that cannot be written: one warning, and the app carries on")
    func unwritableFolder() throws {
        let home = try Self.stateHome("unwritable")
        let blocker = home + "/not-a-folder"
        close(open(blocker, O_WRONLY | O_CREAT, 0o600))
        let s = try DemoSession("state-unwritable", arguments: ["--state", blocker + "/state.json"])
        for _ in 0..<3 {
            try s.command("inc mail")
            try s.sync()
            var pause = timespec(tv_sec: 0, tv_nsec: 600_000_000)
            nanosleep(&pause, nil)
        }
        _ = s.unconsumedChanges()
        try s.click(MouseButton.left, on: "bell")
        #expect(try s.app.readEvent(named: "change") { $0["id"]?.string == "bell" }["text"]?.string == "4")
        // One line saying the file cannot be read (its folder is a file), one that it cannot be saved:
        // not one per change.
        let saves = s.app.stderrText.split(separator: "\n").filter { $0.contains("cannot save the counts") }
        #expect(saves.count == 1, "stderr: \(s.app.stderrText)")
        try Self.quit(s)
    }
}
