import BadgeDrawing
import Glibc
import Testing

/// The shared reader of every file the app reads: regular files only, opened without blocking,
/// each kind within its cap.
@Suite struct BoundedFileTests {
    /// A fresh folder under /tmp for one test (removed by `cleanUp`).
    static func folder(_ name: String) throws -> String {
        var template = Array("/tmp/badgekit-bounded-\(name)-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer in buffer.baseAddress.flatMap { mkdtemp($0) } }
        return try #require(made.map { String(cString: $0) })
    }

    static func write(_ bytes: [UInt8], to path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        try #require(fd >= 0)
        defer { close(fd) }
        #expect(Glibc.write(fd, bytes, bytes.count) == bytes.count)
    }

    static func cleanUp(_ folder: String, _ names: [String]) {
        for name in names { unlink(folder + "/" + name) }
        rmdir(folder + "/dir")
        rmdir(folder)
    }

    static func failure(_ path: String, kind: BoundedFile.Kind) -> BoundedFile.Failure? {
        do {
            _ = try BoundedFile.read(path, kind: kind)
            return nil
        } catch {
            return error
        }
    }

    @Test func readsARegularFileAndASymlinkToOne() throws {
        let folder = try Self.folder("regular")
        defer { Self.cleanUp(folder, ["file", "link"]) }
        try Self.write(Array("{\"a\": 1}".utf8), to: folder + "/file")
        #expect(symlink(folder + "/file", folder + "/link") == 0)
        #expect(try BoundedFile.read(folder + "/file", kind: .config) == Array("{\"a\": 1}".utf8))
        #expect(try BoundedFile.read(folder + "/link", kind: .config) == Array("{\"a\": 1}".utf8))
    }

    @Test func refusesAFIFOWithoutBlocking() throws {
        let folder = try Self.folder("fifo")
        defer { Self.cleanUp(folder, ["fifo", "link"]) }
        #expect(mkfifo(folder + "/fifo", 0o600) == 0)
        #expect(symlink(folder + "/fifo", folder + "/link") == 0)
        let start = ContinuousClock.now
        #expect(Self.failure(folder + "/fifo", kind: .icon)?.reason == "not a regular file but a FIFO")
        #expect(Self.failure(folder + "/link", kind: .config)?.reason == "not a regular file but a FIFO", "symlinks are followed")
        #expect(ContinuousClock.now - start < .seconds(1))
    }

    @Test func refusesDevZeroAndAFolder() throws {
        let folder = try Self.folder("special")
        defer { Self.cleanUp(folder, []) }
        #expect(mkdir(folder + "/dir", 0o700) == 0)
        #expect(Self.failure("/dev/zero", kind: .state)?.reason == "not a regular file but a character device")
        #expect(Self.failure(folder + "/dir", kind: .config)?.reason == "not a regular file but a folder")
    }

    @Test func refusesAFileOverItsKindsCapBeforeReadingIt() throws {
        let folder = try Self.folder("large")
        defer { Self.cleanUp(folder, ["state", "big"]) }
        // 64 KiB is the state cap: one byte more is refused, exactly the cap is read.
        try Self.write([UInt8](repeating: 0x20, count: 64 << 10), to: folder + "/state")
        #expect(try BoundedFile.read(folder + "/state", kind: .state).count == 64 << 10)
        try Self.write([UInt8](repeating: 0x20, count: (64 << 10) + 1), to: folder + "/state")
        #expect(Self.failure(folder + "/state", kind: .state)?.reason == "at 65537 bytes it is larger than the 64 KiB allowed")
        // A sparse 50 MB file: refused by its size, not read.
        let fd = open(folder + "/big", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        #expect(fd >= 0 && ftruncate(fd, 50_000_000) == 0)
        close(fd)
        #expect(Self.failure(folder + "/big", kind: .icon)?.reason == "at 48 MiB it is larger than the 4 MiB allowed")
        #expect(Self.failure(folder + "/big", kind: .config)?.reason == "at 48 MiB it is larger than the 1 MiB allowed")
    }

    @Test func aMissingFileIsMarkedMissing() {
        let failure = Self.failure("/nonexistent/badgekit/config.json", kind: .config)
        #expect(failure?.missing == true && failure?.reason == "no such file")
        #expect(Self.failure("/dev/null/x", kind: .config)?.missing == false, "ENOTDIR is a failure, not a missing file")
    }

    @Test func theCapsAreThoseTheManPageStates() {
        #expect(BoundedFile.Kind.config.maximumBytes == 1 << 20 && BoundedFile.Kind.config.maximumDescription == "1 MiB")
        #expect(BoundedFile.Kind.state.maximumBytes == 64 << 10 && BoundedFile.Kind.state.maximumDescription == "64 KiB")
        #expect(BoundedFile.Kind.icon.maximumBytes == 4 << 20 && BoundedFile.Kind.icon.maximumDescription == "4 MiB")
        #expect(IconLibrary.maximumPixels == 4096)
    }
}
