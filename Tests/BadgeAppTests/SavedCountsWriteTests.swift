import BadgeCore
import BadgeDrawing
import CEarlySignals
import Glibc
import Testing
import XvfbHarness
import BadgeIO
@testable import BadgeApp

private final class FixedWidthMeasurer: TextMeasuring {
    func size(of text: String, font: BadgeFont) -> Size { Size(width: 7 * Double(text.count), height: 13) }
}

/// A private folder under /tmp for one test, removed at the end.
private final class Scratch {
    let path: String

    init(_ name: String) throws {
        var template = Array("/tmp/badgekit-state-\(name)-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress.flatMap { mkdtemp($0) }.map { String(cString: $0) }
        }
        path = try #require(made, "mkdtemp: \(String(cString: strerror(errno)))")
    }

    deinit {
        // Two levels are enough for these tests; symlinks are removed, never followed.
        if let listing = opendir(path) {
            while let entry = readdir(listing) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                guard name != ".", name != ".." else { continue }
                let child = path + "/" + name
                if unlink(child) != 0, let inner = opendir(child) {
                    while let e = readdir(inner) {
                        let n = withUnsafeBytes(of: e.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                        if n != "." && n != ".." { unlink(child + "/" + n) }
                    }
                    closedir(inner)
                    rmdir(child)
                }
            }
            closedir(listing)
        }
        rmdir(path)
    }

    func write(_ text: String, to name: String) {
        let fd = open(path + "/" + name, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        _ = Array(text.utf8).withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }

    func read(_ name: String) -> String? {
        (try? BoundedFile.read(path + "/" + name, kind: .config)).map { String(decoding: $0, as: UTF8.self) }
    }

    func names() -> [String] { folderEntries(path) }
}

private func lstatMode(_ path: String) -> mode_t? {
    var info = stat()
    return lstat(path, &info) == 0 ? info.st_mode : nil
}

@Suite("Saved counts: writing, merging, retrying")
struct SavedCountsWriteTests {
    let clock = ManualClock(now: 100)

    func toolbar(_ counts: [(String, Int)]) -> Toolbar {
        Toolbar(buttons: counts.map { id, count in
            ToolbarButton(id: id, iconName: id, badge: BadgeController(accessibilityLabel: id, content: .count(count),
                                                                       clock: clock, measurer: FixedWidthMeasurer()))
        })
    }

    func counts(_ path: String) -> [String: Int] {
        guard let bytes = try? BoundedFile.read(path, kind: .config), let contents = try? SavedCounts.decode(bytes) else { return [:] }
        return contents.compactMapValues { if case .count(let n) = $0 { return n } else { return nil } }
    }

    // MARK: Merge rule

    @Test func eachProcessWritesOnlyWhatItChanged() {
        let merged = SavedCountsMerge.merge(
            shown: [("mail", BadgeContent.count(5)), ("bell", .count(3)), ("chat", .text("Hi"))],
            changed: ["mail", "chat"],
            inFile: ["mail": .count(1), "bell": .count(9), "updates": .dot])
        // mail changed here: ours. bell not changed here (the other process changed it): theirs. chat
        // changed here and missing from the file: ours. updates is not ours: kept, after our buttons.
        #expect(merged.map(\.id) == ["mail", "bell", "chat", "updates"])
        #expect(merged.map(\.content) == [.count(5), .count(9), .text("Hi"), .dot])
    }

    @Test func aFileThatIsGoneOrDamagedGetsEverythingShown() {
        let merged = SavedCountsMerge.merge(shown: [("mail", BadgeContent.count(5)), ("bell", .count(3))], changed: [],
                                            inFile: [String: BadgeContent]())
        #expect(merged.map(\.content) == [.count(5), .count(3)])
    }

    @Test("Each entry keeps where its value came from (\"from\"); a file without it reads as set by hand")
    func entriesKeepTheirOrigin() throws {
        let bytes = SavedCounts.encode(entries: [("bell", .init(content: .count(3), from: "demo")), ("mail", .init(content: .count(2), from: "maildir")),
                                                 ("chat", .init(content: .text("Hi"), from: nil))])
        #expect(String(decoding: bytes, as: UTF8.self)
                == #"{"version":1,"buttons":{"bell":{"kind":"count","count":3,"from":"demo"},"mail":{"kind":"count","count":2,"from":"maildir"},"chat":{"kind":"text","text":"Hi"}}}"# + "\n")
        let entries = try SavedCounts.decodeEntries(bytes)
        #expect(entries["bell"] == .init(content: .count(3), from: "demo") && entries["chat"]?.from == nil)
        #expect(BadgeOrigins.Origin(saved: "maildir") == .source("maildir") && BadgeOrigins.Origin(saved: nil) == .hand)
        #expect(BadgeOrigins.Origin.demo.saved == "demo" && BadgeOrigins.Origin.hand.saved == nil)
    }

    // MARK: Backoff

    @Test func retriesDoubleFromOneSecondToAMinute() {
        var backoff = RetryBackoff()
        let delays = (0..<9).map { _ in backoff.failed() }
        #expect(delays.map(\.delay) == [1, 2, 4, 8, 16, 32, 60, 60, 60])
        #expect(delays.map(\.isFirst) == [true] + Array(repeating: false, count: 8))
        let recovered = backoff.succeeded(), again = backoff.succeeded()
        #expect(recovered, "a success after failures is a recovery")
        #expect(!again, "a success after a success is not")
        let next = backoff.failed()
        #expect(next.delay == 1 && next.isFirst, "a new streak starts again at 1 s, with a warning")
    }

    @Test("The control socket's accept pauses: 0.1 s doubling to 2 s, with the streak's length")
    func acceptPausesDoubleFromATenthToTwoSeconds() {
        var backoff = RetryBackoff(first: 0.1, longest: 2)
        let delays = (0..<7).map { _ in backoff.failed().delay }
        #expect(delays == [0.1, 0.2, 0.4, 0.8, 1.6, 2, 2])
        #expect(backoff.failures == 7 && backoff.succeeded() && backoff.failures == 0)
    }

    // MARK: Where the write goes

    @Test func symlinksAreFollowedToTheirTarget() throws {
        let scratch = try Scratch("resolve")
        let dir = scratch.path
        scratch.write("{}", to: "real.json")
        #expect(mkdir(dir + "/dotfiles", 0o700) == 0)
        #expect(symlink("../real.json", dir + "/dotfiles/relative") == 0)
        #expect(symlink(dir + "/dotfiles/relative", dir + "/chain") == 0)
        #expect(symlink(dir + "/missing.json", dir + "/dangling") == 0)
        #expect(symlink(dir + "/loop-b", dir + "/loop-a") == 0 && symlink(dir + "/loop-a", dir + "/loop-b") == 0)
        #expect(try StateFileTarget.resolve(dir + "/real.json") == .file(dir + "/real.json"))
        #expect(try StateFileTarget.resolve(dir + "/chain") == .file(dir + "/dotfiles/../real.json"))
        #expect(try StateFileTarget.resolve(dir + "/dangling") == .file(dir + "/missing.json"))
        #expect(try StateFileTarget.resolve(dir + "/new/state.json") == .file(dir + "/new/state.json"))
        #expect(throws: StateWriteError.tooManyLinks(path: dir + "/loop-a")) { try StateFileTarget.resolve(dir + "/loop-a") }
    }

    @Test func theNullDeviceSavesNothingAndOtherSpecialFilesAreRefused() throws {
        let scratch = try Scratch("special")
        let dir = scratch.path
        #expect(try StateFileTarget.resolve("/dev/null") == .discard)
        #expect(symlink("/dev/null", dir + "/to-null") == 0)
        #expect(try StateFileTarget.resolve(dir + "/to-null") == .discard)
        #expect(mkfifo(dir + "/fifo", 0o600) == 0)
        #expect(mkdir(dir + "/folder", 0o700) == 0)
        for (name, kind) in [("fifo", "a FIFO"), ("folder", "a folder")] {
            #expect(throws: StateWriteError.notAFile(path: dir + "/" + name, kind: kind)) { try StateFileTarget.resolve(dir + "/" + name) }
        }
        #expect(throws: StateWriteError.notAFile(path: "/dev/zero", kind: "a character device")) { try StateFileTarget.resolve("/dev/zero") }
        let message = StateWriteError.notAFile(path: dir + "/fifo", kind: "a FIFO").description
        #expect(message.contains(dir + "/fifo") && message.contains("/dev/null"), "names the file and what to do: \(message)")

        // Writing to the null device: no warning, no file, the device stays a device.
        let saved = SavedCounts(path: dir + "/to-null", clock: clock)
        var warnings: [String] = []
        saved.warn = { warnings.append($0) }
        #expect(saved.load().isEmpty)
        saved.changed()
        clock.advance(by: 1)
        saved.writeIfDue(toolbar([("mail", 3)]))
        saved.writeIfDue(toolbar([("mail", 4)]), force: true)
        #expect(warnings.isEmpty, "\(warnings)")
        #expect(lstatMode("/dev/null").map { $0 & S_IFMT } == S_IFCHR)
        #expect(lstatMode(dir + "/to-null").map { $0 & S_IFMT } == S_IFLNK)
        #expect(scratch.names() == ["fifo", "folder", "to-null"])
    }

    // MARK: Atomic replacement

    @Test func aSymlinkPlantedAtTheTemporaryNameIsNotFollowed() throws {
        let scratch = try Scratch("planted")
        let dir = scratch.path
        scratch.write("precious", to: "victim")
        #expect(symlink(dir + "/victim", dir + "/state.json.tmp-planted") == 0)
        var names = ["planted", "fresh"]
        try AtomicFileWriter.replace(dir + "/state.json", with: Array("new\n".utf8), temporaryName: { names.removeFirst() })
        #expect(names.isEmpty, "the planted name was skipped for the next one")
        #expect(scratch.read("victim") == "precious")
        #expect(scratch.read("state.json") == "new\n")
        #expect(lstatMode(dir + "/state.json.tmp-planted").map { $0 & S_IFMT } == S_IFLNK)
        #expect(!scratch.names().contains("state.json.tmp-fresh"), "the temporary file became the file")
    }

    @Test func temporaryNamesAreUnpredictable() {
        let names = (0..<100).map { _ in AtomicFileWriter.randomTemporaryName() }
        #expect(Set(names).count == 100)
        #expect(names.allSatisfy { $0.count == 24 && $0.allSatisfy(\.isHexDigit) })
    }

    @Test func theReplacedFileKeepsItsPermissionsAndLeftoversAreRemoved() throws {
        let scratch = try Scratch("mode")
        let dir = scratch.path
        scratch.write("old", to: "state.json")
        #expect(chmod(dir + "/state.json", 0o640) == 0)
        scratch.write("junk", to: "state.json.tmp-0123456789abcdef01234567")
        scratch.write("junk", to: "state.json.tmp-4242")
        scratch.write("mine", to: "state.json.tmp-notes.txt")
        #expect(symlink(dir + "/state.json", dir + "/state.json.tmp-abc") == 0)
        AtomicFileWriter.removeLeftovers(of: dir + "/state.json")
        try AtomicFileWriter.replace(dir + "/state.json", with: Array("new".utf8))
        #expect(lstatMode(dir + "/state.json").map { $0 & 0o777 } == 0o640)
        #expect(scratch.names() == ["state.json", "state.json.tmp-notes.txt"])
        #expect(scratch.read("state.json") == "new")
    }

    // MARK: SavedCounts

    @Test func aSymlinkedStateFileStaysALinkAndItsTargetIsUpdated() throws {
        let scratch = try Scratch("link")
        let dir = scratch.path
        #expect(mkdir(dir + "/dotfiles", 0o700) == 0)
        scratch.write(#"{"version": 1, "buttons": {"mail": {"kind": "count", "count": 1}}}"#, to: "dotfiles/state.json")
        #expect(symlink("dotfiles/state.json", dir + "/state.json") == 0)
        let saved = SavedCounts(path: dir + "/state.json", clock: clock)
        #expect(saved.load()["mail"] == .count(1))
        saved.changed("mail")
        saved.writeIfDue(toolbar([("mail", 8)]), force: true)
        #expect(lstatMode(dir + "/state.json").map { $0 & S_IFMT } == S_IFLNK)
        #expect(counts(dir + "/dotfiles/state.json") == ["mail": 8])
        #expect(scratch.names() == ["dotfiles", "state.json"], "the lock and temporary files are beside the target")
    }

    @Test func aFailedWriteIsRetriedWithBackoffAndWarnedOncePerStreak() throws {
        let scratch = try Scratch("retry")
        let dir = scratch.path
        scratch.write("a file where the folder should be", to: "state")
        let saved = SavedCounts(path: dir + "/state/state.json", clock: clock)
        var warnings: [String] = []
        saved.warn = { warnings.append($0) }
        saved.changed("mail")
        clock.advance(by: 1)
        saved.writeIfDue(toolbar([("mail", 1)]))
        #expect(warnings.count == 1 && warnings.first?.contains("cannot save the counts") == true, "\(warnings)")
        // The retries come at 1, 2 and 4 s (the loop's deadline asks timeUntilDue), without more warnings.
        for expected in [1.0, 2.0, 4.0] {
            #expect(saved.timeUntilDue == expected)
            saved.changed("mail")  // a change does not hurry a retry
            #expect(saved.timeUntilDue == expected)
            clock.advance(by: expected)
            saved.writeIfDue(toolbar([("mail", 2)]))
        }
        #expect(warnings.count == 1, "\(warnings)")
        #expect(saved.timeUntilDue == 8)
        // The folder comes back: the next retry saves and says so.
        #expect(unlink(dir + "/state") == 0 && mkdir(dir + "/state", 0o700) == 0)
        clock.advance(by: 8)
        saved.writeIfDue(toolbar([("mail", 3)]))
        #expect(counts(dir + "/state/state.json") == ["mail": 3])
        #expect(warnings.count == 2 && warnings.last?.contains("saved again") == true, "\(warnings)")
        #expect(saved.timeUntilDue == nil)
    }

    @Test func theExitWritesWhatIsShownWheneverItDiffersFromTheFile() throws {
        let scratch = try Scratch("exit")
        let dir = scratch.path, file = dir + "/state.json"
        let saved = SavedCounts(path: file, clock: clock)
        var warnings: [String] = []
        saved.warn = { warnings.append($0) }
        _ = saved.load()
        // Nothing pending, nothing different: the exit does not touch the file.
        saved.writeIfDue(toolbar([("mail", 4)]), force: true)
        var before = stat()
        #expect(stat(file, &before) == 0)
        saved.writeIfDue(toolbar([("mail", 4)]), force: true)
        var after = stat()
        #expect(stat(file, &after) == 0 && after.st_ino == before.st_ino, "an identical file is not rewritten")
        // The file was changed behind its back (or a write failed earlier): the exit puts the shown counts back.
        scratch.write(#"{"version": 1, "buttons": {}}"#, to: "state.json")
        saved.writeIfDue(toolbar([("mail", 4)]), force: true)
        #expect(counts(file) == ["mail": 4])
        #expect(warnings.isEmpty, "\(warnings)")
    }

    @Test func twoProcessesSharingAFileKeepEachOthersCounts() throws {
        let scratch = try Scratch("shared")
        let file = scratch.path + "/state.json"
        let first = SavedCounts(path: file, clock: clock), second = SavedCounts(path: file, clock: clock)
        _ = first.load()
        _ = second.load()
        let one = toolbar([("mail", 12), ("bell", 3)]), two = toolbar([("mail", 12), ("bell", 3), ("chat", 0)])
        one.button(id: "mail")?.badge.value = .count(20)
        first.changed("mail")
        first.writeIfDue(one, force: true)
        two.button(id: "bell")?.badge.value = .count(7)
        second.changed("bell")
        second.writeIfDue(two, force: true)
        #expect(counts(file) == ["mail": 20, "bell": 7, "chat": 0])
        // The second changes mail later: the change saved last wins, and the first's exit keeps it.
        two.button(id: "mail")?.badge.value = .count(30)
        second.changed("mail")
        second.writeIfDue(two, force: true)
        first.writeIfDue(one, force: true)
        #expect(counts(file) == ["mail": 30, "bell": 7, "chat": 0])
        #expect(Set(scratch.names()) == ["state.json", "state.json.lock"])
    }

    @Test func aHeldLockDelaysTheWriteWithoutAWarning() throws {
        let scratch = try Scratch("locked")
        let file = scratch.path + "/state.json"
        let saved = SavedCounts(path: file, clock: clock)
        var warnings: [String] = []
        saved.warn = { warnings.append($0) }
        var holder: StateFileLock? = try StateFileLock(path: file + ".lock", wait: 0)
        #expect(throws: StateWriteError.busy(lock: file + ".lock")) { try StateFileLock(path: file + ".lock", wait: 0) }
        saved.changed()
        clock.advance(by: 1)
        saved.writeIfDue(toolbar([("mail", 5)]))
        #expect(warnings.isEmpty)
        #expect(abs((saved.timeUntilDue ?? 0) - SavedCounts.busyRetry) < 1e-9, "tried again soon")
        holder = nil
        _ = holder
        clock.advance(by: 1)
        saved.writeIfDue(toolbar([("mail", 5)]))
        #expect(counts(file) == ["mail": 5] && warnings.isEmpty, "\(warnings)")
    }

    // MARK: Early signals

    @Test func theTestRunnerItselfKeepsItsSignals() throws {
        // CEarlySignals is linked into this runner too, and must leave it alone: Ctrl+C stops a test run.
        #expect(badge_early_signals_blocked() == 0)
    }
}
