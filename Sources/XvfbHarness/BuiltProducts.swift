import Glibc

/// Finds executables built by SwiftPM next to the running test binary.
public enum BuiltProducts {
    /// The directory of the running executable (from /proc/self/exe); for `swift test` this is the
    /// build products directory, e.g. `.build/debug` (the test binary is `<Package>PackageTests.xctest`).
    public static func productsDirectory() throws -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { throw HarnessError.posix("readlink(/proc/self/exe)") }
        let exe = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var parts = exe.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast()
        // A bundle-style layout (.../X.xctest/Contents/...) : climb out of the bundle.
        if let bundle = parts.lastIndex(where: { $0.hasSuffix(".xctest") }) { parts.removeSubrange(bundle...) }
        return parts.joined(separator: "/")
    }

    /// The path of the built executable `name` (e.g. "badge-demo"). `BADGE_DEMO_PATH` overrides
    /// the lookup for "badge-demo". Throws with instructions when it has not been built.
    public static func executable(named name: String) throws -> String {
        if name == "badge-demo", let override = getenv("BADGE_DEMO_PATH") {
            let path = String(cString: override)
            guard access(path, X_OK) == 0 else { throw HarnessError("BADGE_DEMO_PATH=\(path) is not an executable file") }
            return path
        }
        let dir = try productsDirectory()
        let candidates = [dir + "/" + name, dir + "/../" + name]
        for path in candidates where access(path, X_OK) == 0 { return path }
        throw HarnessError("the executable '\(name)' was not found in \(dir): build it first with "
            + "`swift build` (using the same --scratch-path / configuration as `swift test`)")
    }
}
