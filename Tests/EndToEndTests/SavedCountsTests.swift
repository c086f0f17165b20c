import BadgeCore
import Glibc
import Testing
import XvfbHarness
import BadgeControl

/// Counts that survive restarts and crashes: a state file in the test's own XDG_STATE_HOME,
/// written atomically and debounced, restored at start (flags win), and never a reason to fail.
@Suite("E2E: saved counts", .endToEnd(minutes: 2))
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

    // MARK: Issue 18: never lost, never damaging

    /// The state file at `path` decoded, or nil when it is missing or not valid JSON.
    static func parsed(_ path: String) -> JSONValue? {
        guard let bytes = try? readProcFile(path), !bytes.isEmpty else { return nil }
        return try? JSONValue(parsing: String(decoding: bytes, as: UTF8.self))
    }

    /// Waits (polling, up to `seconds`) until `condition` holds; returns whether it did.
    static func eventually(_ seconds: Double, _ condition: () -> Bool) -> Bool {
        let deadline = Deadline(seconds: seconds)
        while !deadline.hasPassed {
            if condition() { return true }
            var pause = timespec(tv_sec: 0, tv_nsec: 10_000_000)
            nanosleep(&pause, nil)
        }
        return condition()
    }

    /// The names in a folder, sorted.
    static func names(in folder: String) -> [String] { folderEntries(folder) }

    static func fileType(_ path: String) -> mode_t? {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & S_IFMT : nil
    }

    static func writeFile(_ path: String, _ text: String) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        _ = Array(text.utf8).withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }

    @Test("--state /dev/null, or a link to it: nothing saved, the device stays a device, not a word on stderr")
    func devNullSavesNothing() throws {
        let home = try Self.stateHome("devnull")
        #expect(symlink("/dev/null", home + "/to-null") == 0)
        var before = stat()
        #expect(stat("/dev/null", &before) == 0)
        for path in ["/dev/null", home + "/to-null"] {
            let s = try DemoSession("state-devnull", arguments: ["--state", path])
            for _ in 0..<3 { try s.command("inc mail") }
            try s.sync()
            try Self.quit(s)
            #expect(s.app.stderrText.isEmpty, "\(path): \(s.app.stderrText)")
        }
        var after = stat()
        #expect(stat("/dev/null", &after) == 0 && after.st_mode & S_IFMT == S_IFCHR && after.st_rdev == before.st_rdev
                && after.st_ino == before.st_ino, "/dev/null is still the null device")
        #expect(Self.fileType(home + "/to-null") == S_IFLNK)
        #expect(Self.names(in: home) == ["to-null"])
        #expect(!Self.names(in: "/dev").contains { $0.hasPrefix("null.") }, "no lock or temporary file beside /dev/null")
    }

    @Test("A state file that is a symlink (dotfiles) stays a link, and its target holds the counts")
    func symlinkedStateFile() throws {
        let home = try Self.stateHome("symlink")
        #expect(mkdir(home + "/dotfiles", 0o700) == 0 && mkdir(home + "/badge-demo", 0o700) == 0)
        Self.writeFile(home + "/dotfiles/state.json", #"{"version": 1, "buttons": {"mail": {"kind": "count", "count": 5}}}"#)
        #expect(symlink("../dotfiles/state.json", home + "/badge-demo/state.json") == 0)
        let s = try DemoSession("state-symlink", environment: ["XDG_STATE_HOME": home])
        #expect(try s.state().button("mail").count == 5, "read through the link")
        try s.command("set mail 77")
        try s.sync()
        #expect(Self.eventually(2) { Self.parsed(home + "/dotfiles/state.json")?["buttons"]?["mail"]?["count"]?.int == 77 })
        try s.command("set mail 78")
        try Self.quit(s)
        #expect(Self.fileType(home + "/badge-demo/state.json") == S_IFLNK, "the link is still a link")
        #expect(Self.parsed(home + "/dotfiles/state.json")?["buttons"]?["mail"]?["count"]?.int == 78)
        #expect(Self.names(in: home + "/badge-demo") == ["state.json"], "nothing written beside the link")
        #expect(s.app.stderrText.isEmpty, "\(s.app.stderrText)")
    }

    @Test("Symlinks planted at temporary names (the old PID name, hex names) are never followed")
    func plantedSymlinksAreNotFollowed() throws {
        let home = try Self.stateHome("planted")
        let folder = home + "/badge-demo"
        #expect(mkdir(folder, 0o700) == 0)
        Self.writeFile(home + "/victim", "precious")
        let s = try DemoSession("state-planted", environment: ["XDG_STATE_HOME": home])
        var planted = ["state.json.tmp-\(s.app.pid)", "state.json.tmp"]
        planted += (0..<8).map { _ in "state.json.tmp-" + (0..<24).map { _ in String(Int.random(in: 0..<16), radix: 16) }.joined() }
        for name in planted { #expect(symlink(home + "/victim", folder + "/" + name) == 0) }
        for count in [41, 42] {
            try s.command("set mail \(count)")
            try s.sync()
            #expect(Self.eventually(2) { Self.parsed(folder + "/state.json")?["buttons"]?["mail"]?["count"]?.int == count })
        }
        try Self.quit(s)
        #expect(String(decoding: try readProcFile(home + "/victim"), as: UTF8.self) == "precious", "the link's target is untouched")
        #expect(Self.fileType(home + "/victim") == S_IFREG)
        #expect(Self.parsed(folder + "/state.json")?["buttons"]?["mail"]?["count"]?.int == 42)
    }

    /// Breaks the state folder with `fault`, checks the one warning, the retry that saves once it is
    /// repaired, and the exit that saves the counts shown after a failed write.
    static func failThenRecover(_ name: String, state: String, fault: () throws -> Void, repair: () throws -> Void) throws {
        let s = try DemoSession("state-\(name)", arguments: ["--state", state])
        func saved() -> Int? { Self.parsed(state)?["buttons"]?["mail"]?["count"]?.int }
        func warnings() -> Int { s.app.stderrText.split(separator: "\n").filter { $0.contains("cannot save the counts") }.count }
        func recoveries() -> Int { s.app.stderrText.split(separator: "\n").filter { $0.contains("saved again") }.count }

        // 1. A failed write is retried, with backoff, until it works.
        try fault()
        try s.command("set mail 101")
        try s.sync()
        #expect(Self.eventually(3) { warnings() == 1 }, "a warning once the write fails: \(s.app.stderrText)")
        try s.command("set mail 102")
        try s.sync()
        try repair()
        #expect(Self.eventually(5) { saved() == 102 }, "saved by a retry after the repair; stderr: \(s.app.stderrText)")
        #expect(Self.eventually(1) { recoveries() == 1 }, "says it recovered: \(s.app.stderrText)")
        #expect(warnings() == 1, "one warning for the streak: \(s.app.stderrText)")

        // 2. A failed write, repaired, then a clean exit before the retry: the exit saves what is shown.
        try fault()
        try s.command("set mail 103")
        try s.sync()
        #expect(Self.eventually(3) { warnings() == 2 }, "a new streak, a new warning: \(s.app.stderrText)")
        try repair()
        try Self.quit(s)
        #expect(saved() == 103, "the exit saved the shown count; stderr: \(s.app.stderrText)")
    }

    @Test("A state folder replaced by a file, then restored: retried until saved; the exit saves the shown counts")
    func folderReplacedByAFileThenRestored() throws {
        let home = try Self.stateHome("replaced")
        let folder = home + "/counts"
        #expect(mkdir(folder, 0o700) == 0)
        try Self.failThenRecover("replaced", state: folder + "/state.json", fault: {
            removeTree(folder)
            Self.writeFile(folder, "not a folder")
        }, repair: {
            #expect(unlink(folder) == 0 && mkdir(folder, 0o700) == 0)
        })
    }

    /// True when this process may mount a tmpfs (root with CAP_SYS_ADMIN, as on a fresh CI machine).
    static let canMountTmpfs: Bool = {
        guard geteuid() == 0, let home = try? stateHome("mount-probe") else { return false }
        defer { removeTree(home) }
        guard mount("tmpfs", home, "tmpfs", 0, "size=64k") == 0 else { return false }
        umount(home)
        return true
    }()

    @Test("A full tmpfs, then freed: retried until saved; the exit saves the shown counts",
          .enabled(if: canMountTmpfs, "needs root with CAP_SYS_ADMIN to mount a 256 KiB tmpfs"))
    func fullDiskThenFreed() throws {
        let home = try Self.stateHome("full")
        #expect(mount("tmpfs", home, "tmpfs", 0, "size=256k,mode=0700") == 0, "mount: \(String(cString: strerror(errno)))")
        defer { umount2(home, Int32(MNT_DETACH)) }
        let filler = home + "/filler"
        func fill() {
            let fd = open(filler, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            let block = [UInt8](repeating: 0x55, count: 4096)
            while block.withUnsafeBytes({ Glibc.write(fd, $0.baseAddress, $0.count) }) > 0 {}
            #expect(errno == ENOSPC)
            close(fd)
        }
        #expect(mkdir(home + "/badge-demo", 0o700) == 0)
        try Self.failThenRecover("full", state: home + "/badge-demo/state.json", fault: fill, repair: { #expect(unlink(filler) == 0) })
        #expect(!Self.names(in: home + "/badge-demo").contains { $0.contains(".tmp-") }, "no temporary file left on the full disk")
    }

    @Test("One state file, one writer: a second --control launch naming it is refused; a plain one hands its counts over")
    func oneWriterPerFile() throws {
        // Short, wherever the checkout is: the socket's path must fit in 107 bytes.
        let home = try shortTemporaryFolder("bk-shared")
        defer { removeTree(home) }
        let file = home + "/state.json"
        let runtime = home + "/runtime"
        #expect(mkdir(runtime, 0o700) == 0)
        func saved(_ id: String) -> JSONValue? { Self.parsed(file)?["buttons"]?[id] }
        let a = try DemoSession("state-shared-a", arguments: ["--state", file], environment: ["XDG_RUNTIME_DIR": runtime])
        try a.command("set mail 20")
        try a.sync()
        #expect(Self.eventually(2) { saved("mail")?["count"]?.int == 20 })
        // A parent that wants a window of its own, or --new-instance, on the same file: refused, naming it.
        let executable = try BuiltProducts.executable(named: "badge-demo")
        for flag in ["--control", "--new-instance"] {
            let b = try ChildProcess(executable: executable, arguments: [flag, "--state", file],
                                     environment: .inherited(adding: ["DISPLAY": a.server.display, "XDG_RUNTIME_DIR": runtime]))
            #expect(b.waitForExit(timeout: 10) == .exited(2), "\(flag): \(b.stderrText)")
            #expect(b.stderrText.contains("\(file) is in use by the running badge-demo (pid \(a.app.pid))"), "\(b.stderrText)")
        }
        // A plain launch (another spelling of the same path) hands its count to a, which saves it.
        let c = try ChildProcess(executable: executable, arguments: ["--state", runtime + "/.././state.json", "--count", "bell=7"],
                                 environment: .inherited(adding: ["DISPLAY": a.server.display, "XDG_RUNTIME_DIR": runtime]))
        #expect(c.waitForExit(timeout: 10) == .exited(0), "\(c.stderrText)")
        #expect(try a.state().button("bell").count == 7)
        #expect(Self.eventually(2) { saved("bell")?["count"]?.int == 7 })
        try Self.quit(a)
        #expect(saved("mail")?["count"]?.int == 20 && saved("bell")?["count"]?.int == 7)
        #expect(a.app.stderrText.isEmpty, "\(a.app.stderrText)")
        #expect(Self.names(in: home).filter { $0 != "runtime" } == ["state.json", "state.json.lock"])
    }

    @Test("A kill -9 storm during writes: the file is always valid JSON, and a clean run tidies what was left")
    func killNineStormKeepsTheFileValid() throws {
        let home = try Self.stateHome("storm")
        let file = home + "/badge-demo/state.json"
        var existed = false
        for round in 0..<12 {
            let s = try DemoSession("state-storm-\(round)", environment: ["XDG_STATE_HOME": home])
            try s.app.writeDraining(Array(String(repeating: "inc mail\ninc bell\n", count: 100).utf8))
            // Writes come at most every half second: kill anywhere in the first one or two.
            var pause = timespec(tv_sec: 0, tv_nsec: Int.random(in: 400_000_000..<1_100_000_000))
            nanosleep(&pause, nil)
            s.app.kill(SIGKILL)
            _ = s.app.waitForExit(timeout: 5)
            let parsed = Self.parsed(file)
            if existed || parsed != nil {
                #expect(parsed?["version"]?.int == 1, "round \(round): not a valid state file")
                existed = true
            }
        }
        #expect(existed, "no write happened in the storm")
        let clean = try DemoSession("state-storm-clean", environment: ["XDG_STATE_HOME": home])
        #expect(clean.app.stderrText.isEmpty, "the file after the storm does not load: \(clean.app.stderrText)")
        try clean.command("inc mail")
        try Self.quit(clean)
        #expect(Self.names(in: home + "/badge-demo") == ["state.json", "state.json.lock"], "leftovers of killed writes are removed")
    }
}
