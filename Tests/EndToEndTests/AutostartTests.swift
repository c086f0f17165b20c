import Glibc
import Testing
import XvfbHarness

/// `badge-demo --autostart[=off|on]` with its own XDG_CONFIG_HOME and XDG_CONFIG_DIRS: a system
/// folder holding a copy of the installed autostart entry, a user folder that starts empty.
@Suite("E2E: --autostart reports, turns off and on the XDG autostart entry", .endToEnd(minutes: 1))
struct AutostartTests {
    static var root: String {
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)
        return parts.joined(separator: "/")
    }

    static func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws -> (status: ProcessTermination?, output: String) {
        let child = try ChildProcess(executable: executable, arguments: arguments, environment: .inherited(adding: environment, removing: ["LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"]), stdin: .null)
        var lines: [String] = []
        while let line = try child.readLine(timeout: 20) { lines.append(line) }
        return (child.waitForExit(timeout: 20), lines.joined(separator: "\n") + "\n" + child.stderrText)
    }

    @Test("report says it starts; off writes a valid Hidden=true copy and the report says it does not; on removes it")
    func reportOffOn() throws {
        let folder = try Artifacts.path(for: "autostart-\(getpid())")
        defer { _ = try? Self.run("/bin/rm", ["-rf", folder]) }
        let system = folder + "/system/autostart", user = folder + "/home/autostart/badge-demo.desktop"
        #expect(try Self.run("/bin/mkdir", ["-p", system]).status == .exited(0))
        #expect(try Self.run("/bin/cp", [Self.root + "/Resources/session/badge-demo-autostart.desktop", system + "/badge-demo.desktop"]).status == .exited(0))
        let binary = try BuiltProducts.executable(named: "badge-demo")
        let environment = ["XDG_CONFIG_HOME": folder + "/home", "XDG_CONFIG_DIRS": "/nonexistent:" + folder + "/system"]

        let before = try Self.run(binary, ["--autostart"], environment: environment)
        #expect(before.status == .exited(0), "\(before.output)")
        #expect(before.output.contains("autostart: on, from \(system)/badge-demo.desktop"), "\(before.output)")
        #expect(before.output.contains("systemctl --user"), "\(before.output)")

        let off = try Self.run(binary, ["--autostart=off"], environment: environment)
        #expect(off.status == .exited(0), "\(off.output)")
        #expect(off.output.contains("autostart: off, \(user) has Hidden=true"), "\(off.output)")
        var info = stat()
        #expect(stat(folder + "/home/autostart", &info) == 0 && info.st_mode & 0o777 == 0o700)
        if let validator = findOnPath("desktop-file-validate") {
            let valid = try Self.run(validator, [user])
            #expect(valid.status == .exited(0) && valid.output.allSatisfy(\.isWhitespace), "\(valid.output)")
        }
        let after = try Self.run(binary, ["--autostart"], environment: environment)
        #expect(after.output.contains("autostart: off") && after.output.contains("--autostart=on"), "\(after.output)")

        let on = try Self.run(binary, ["--autostart=on"], environment: environment)
        #expect(on.status == .exited(0), "\(on.output)")
        #expect(access(user, F_OK) != 0, "the Hidden=true copy is gone")
        #expect(on.output.contains("autostart: on, from \(system)/badge-demo.desktop"), "\(on.output)")
    }

    @Test("on leaves a user's own copy and a symlink planted there as they are, and says so")
    func leavesUsersOwnCopy() throws {
        let folder = try Artifacts.path(for: "autostart-own-\(getpid())")
        defer { _ = try? Self.run("/bin/rm", ["-rf", folder]) }
        #expect(try Self.run("/bin/mkdir", ["-p", folder + "/home/autostart"]).status == .exited(0))
        let user = folder + "/home/autostart/badge-demo.desktop", target = folder + "/target"
        #expect(symlink(target, user) == 0)
        let binary = try BuiltProducts.executable(named: "badge-demo")
        let environment = ["XDG_CONFIG_HOME": folder + "/home", "XDG_CONFIG_DIRS": folder + "/none"]
        for action in ["--autostart=off", "--autostart=on"] {
            let result = try Self.run(binary, [action], environment: environment)
            #expect(result.status == .exited(2), "\(action): \(result.output)")
            #expect(result.output.contains("left as it is"), "\(action): \(result.output)")
        }
        var info = stat()
        #expect(lstat(user, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK, "the symlink is still there")
        #expect(access(target, F_OK) != 0, "nothing was written through it")
    }
}
