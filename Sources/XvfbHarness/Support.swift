import BadgeIO
import Glibc

/// An error raised by the test harness. The message says what failed and, where possible, what to do.
public struct HarnessError: Error, CustomStringConvertible, Sendable {
    /// A human-readable, actionable explanation.
    public let description: String

    /// Creates an error with the given message.
    public init(_ description: String) {
        self.description = description
    }

    /// An error for a failed C call, with `errno` decoded.
    static func posix(_ what: String, errno code: Int32 = errno) -> HarnessError {
        HarnessError("\(what) failed: \(String(cString: strerror(code))) (errno \(code))")
    }
}

/// A point in time on the monotonic clock, used for poll()-based deadlines.
public struct Deadline: Sendable {
    private let instant: ContinuousClock.Instant

    /// A deadline `seconds` from now (NaN and negative values: now; at most about 31 years away).
    public init(seconds: Double) {
        let milliseconds = (seconds * 1000).rounded()
        let bounded = milliseconds.isNaN ? 0 : Int64(min(max(milliseconds, 0), 1e12))
        instant = ContinuousClock.now.advanced(by: .milliseconds(bounded))
    }

    /// Milliseconds left (never negative), rounded up, capped to fit poll()'s `Int32` timeout.
    public var remainingMilliseconds: Int32 {
        let left = ContinuousClock.now.duration(to: instant)
        let (seconds, attoseconds) = left.components
        if seconds < 0 || (seconds == 0 && attoseconds <= 0) { return 0 }
        let ms = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(clamping: ms)
    }

    /// Whether the deadline has passed.
    public var hasPassed: Bool { ContinuousClock.now >= instant }
}

/// Seconds elapsed since `start` on the monotonic clock.
public func secondsSince(_ start: ContinuousClock.Instant) -> Double {
    let (s, atto) = start.duration(to: .now).components
    return Double(s) + Double(atto) / 1e18
}

/// Waits `seconds` in poll() without watching any descriptor. Only for measuring a process over an
/// interval (e.g. idle CPU), never to wait for something to happen.
public func measureInterval(seconds: Double) {
    let deadline = Deadline(seconds: seconds)
    while !deadline.hasPassed {
        _ = poll(nil, 0, deadline.remainingMilliseconds)
    }
}

/// A new private folder (0700) with a short path in /tmp, for a test's `XDG_RUNTIME_DIR`: a socket
/// path must fit in `sockaddr_un` (107 bytes), wherever the checkout is. The caller removes it.
public func shortTemporaryFolder(_ prefix: String = "bk") throws -> String {
    var template = Array("/tmp/\(prefix)-XXXXXX".utf8CString)
    let made = template.withUnsafeMutableBufferPointer { buffer in
        buffer.baseAddress.flatMap { mkdtemp($0) }.map { String(cString: $0) }
    }
    guard let folder = made else { throw HarnessError("mkdtemp failed: \(String(cString: strerror(errno)))") }
    return folder
}

/// Reads a whole (small) file such as /proc/PID/stat. Throws when it cannot be opened.
func readSmallFile(_ path: String) throws -> [UInt8] {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw HarnessError.posix("open(\(path))") }
    defer { close(fd) }
    var result: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n < 0 {
            if errno == EINTR { continue }
            throw HarnessError.posix("read(\(path))")
        }
        if n == 0 { break }
        result.append(contentsOf: chunk[0..<n])
    }
    return result
}

/// Writes `bytes` to a new file at `path` (created or truncated).
func writeFile(_ path: String, _ bytes: [UInt8]) throws {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard fd >= 0 else { throw HarnessError.posix("open(\(path)) for writing") }
    defer { close(fd) }
    try writeAll(fd, bytes, what: path)
}

/// Writes every byte, retrying on EINTR and short writes.
func writeAll(_ fd: Int32, _ bytes: [UInt8], what: String) throws {
    var offset = 0
    while offset < bytes.count {
        let n = bytes.withUnsafeBytes { buffer -> Int in
            guard let base = buffer.baseAddress else { return 0 }
            return write(fd, base + offset, buffer.count - offset)
        }
        if n < 0 {
            if errno == EINTR { continue }
            throw HarnessError.posix("write to \(what)")
        }
        offset += n
    }
}

/// Creates a directory and its parents (like `mkdir -p`).
func makeDirectories(_ path: String) throws {
    var current = path.hasPrefix("/") ? "" : "."
    for part in path.split(separator: "/") {
        current += "/" + part
        if mkdir(current, 0o755) != 0 && errno != EEXIST {
            throw HarnessError.posix("mkdir(\(current))")
        }
    }
}

/// Finds an executable by name on `PATH` (or returns the name if it already contains a slash).
public func findOnPath(_ name: String) -> String? {
    if name.contains("/") { return access(name, X_OK) == 0 ? name : nil }
    let path = getenv("PATH").map { String(cString: $0) } ?? "/usr/local/bin:/usr/bin:/bin"
    for dir in path.split(separator: ":") {
        let candidate = "\(dir)/\(name)"
        if access(candidate, X_OK) == 0 { return candidate }
    }
    return nil
}

/// Where tests write files for humans to inspect after a failure: `BADGE_TEST_ARTIFACTS` if set,
/// else `<package>/.build/test-artifacts`.
public enum Artifacts {
    /// The artifacts directory (created on demand by `path(for:)`).
    public static var directory: String {
        if let env = getenv("BADGE_TEST_ARTIFACTS") { return String(cString: env) }
        // This file is <package>/Sources/XvfbHarness/Support.swift.
        var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)
        return parts.joined(separator: "/") + "/.build/test-artifacts"
    }

    /// A path for an artifact file named `name` inside `directory`, creating the directory. `name`
    /// may name one subfolder ("golden/gallery.png"); other unusual characters become "_".
    public static func path(for name: String) throws -> String {
        var dir = directory
        var file = Substring(name)
        if let slash = name.firstIndex(of: "/") {
            dir += "/" + String(name[..<slash]).map { $0.isLetter || $0.isNumber || "-_.".contains($0) ? $0 : "_" }
            file = name[name.index(after: slash)...]
        }
        try makeDirectories(dir)
        let safe = String(file.map { $0.isLetter || $0.isNumber || "-_.".contains($0) ? $0 : "_" })
        return "\(dir)/\(safe)"
    }
}

/// Whether this test process was built with AddressSanitizer (`swift test --sanitize=address`, as
/// `make sanitize` does); the badge-demo it launches then is too. ASan's quarantine and shadow
/// memory make resident-memory figures meaningless, so memory budgets are not checked under it.
public var addressSanitizerIsActive: Bool {
    guard let handle = dlopen(nil, RTLD_NOW) else { return false }
    defer { dlclose(handle) }
    return dlsym(handle, "__asan_init") != nil
}

/// Makes a new private folder `/tmp/badgekit-NAME-XXXXXX` (mkdtemp: mode 0700) and returns its
/// path; the caller removes it with ``removeTree(_:)``.
public func makeTemporaryFolder(_ name: String) throws -> String {
    var template = Array("/tmp/badgekit-\(name)-XXXXXX".utf8CString)
    let made = template.withUnsafeMutableBufferPointer { buffer in
        buffer.baseAddress.flatMap { mkdtemp($0) }.map { String(cString: $0) }
    }
    guard let made else { throw HarnessError.posix("mkdtemp") }
    return made
}

/// Removes `path` and everything below it (like `rm -rf`, without following links); quietly
/// leaves what it cannot remove.
public func removeTree(_ path: String) {
    var info = stat()
    guard lstat(path, &info) == 0 else { return }
    if info.st_mode & S_IFMT == S_IFDIR, let directory = opendir(path) {
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = DirectoryEntry.name(of: entry)
            if name != "." && name != ".." { names.append(name) }
        }
        closedir(directory)
        for name in names { removeTree(path + "/" + name) }
        rmdir(path)
    } else {
        unlink(path)
    }
}

/// The names in a folder (without "." and ".."), sorted; empty when it cannot be read.
public func folderEntries(_ folder: String) -> [String] {
    guard let listing = opendir(folder) else { return [] }
    defer { closedir(listing) }
    var names: [String] = []
    while let entry = readdir(listing) {
        let name = DirectoryEntry.name(of: entry)
        if name != "." && name != ".." { names.append(name) }
    }
    return names.sorted()
}
