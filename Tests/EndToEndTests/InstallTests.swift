import BadgeCore
import Glibc
import Testing
import XvfbHarness

/// `make install` into a staging folder (DESTDIR) with PREFIX, checked with the desktop's own
/// validators (desktop-file-validate, appstreamcli validate --no-net, man -l) by
/// Scripts/check-install.sh; the installed binary runs from the prefix; `make uninstall` leaves
/// nothing behind.
@Suite("E2E: make install and make uninstall", .endToEnd(minutes: 2),
       .enabled(if: findOnPath("desktop-file-validate") != nil && findOnPath("appstreamcli") != nil && findOnPath("msgfmt") != nil,
                "needs desktop-file-utils, appstream and gettext (make test installs them)"))
struct InstallTests {
    static var root: String {
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)
        return parts.joined(separator: "/")
    }

    static func run(_ executable: String, _ arguments: [String]) throws -> (status: ProcessTermination?, output: String) {
        let child = try ChildProcess(executable: executable, arguments: arguments, stdin: .null)
        var lines: [String] = []
        while let line = try child.readLine(timeout: 60) { lines.append(line) }
        return (child.waitForExit(timeout: 60), lines.joined(separator: "\n") + "\n" + child.stderrText)
    }

    @Test("Installs every file into DESTDIR+PREFIX, valid for the desktop's tools, and uninstalls to nothing", arguments: ["/usr", "/usr/local"])
    func installAndUninstall(prefix: String) throws {
        let stage = try Artifacts.path(for: "install-\(getpid())-\(prefix.filter(\.isLetter))")
        defer { _ = try? Self.run("rm", ["-rf", stage]) }
        let binary = try BuiltProducts.executable(named: "badge-demo")
        let locale = try Self.run("make", ["-C", Self.root, "--no-print-directory", "locale", "LOCALE_DIR=\(stage)-locale"])
        #expect(locale.status == .exited(0), "make locale: \(locale.output)")
        defer { _ = try? Self.run("rm", ["-rf", stage + "-locale"]) }
        let install = try Self.run("make", ["-C", Self.root, "--no-print-directory", "-f", "install.mk", "install-files",
                                            "DESTDIR=\(stage)", "PREFIX=\(prefix)", "BIN=\(binary)", "LOCALE_BUILD=\(stage)-locale"])
        #expect(install.status == .exited(0), "make install-files: \(install.output)")
        let check = try Self.run(Self.root + "/Scripts/check-install.sh", [stage, prefix])
        #expect(check.status == .exited(0) && check.output.contains("install tree OK"), "check-install: \(check.output)")
        #expect(check.output.contains("10 .mo catalogues"), "\(check.output)")
        // The installed binary runs from the prefix: an offscreen render through it.
        let png = stage + "/render.png"
        let render = try Self.run(stage + prefix + "/bin/badge-demo", ["--screenshot", png])
        #expect(render.status == .exited(0), "installed badge-demo: \(render.output)")
        #expect(access(png, R_OK) == 0)
        unlink(png)
        let uninstall = try Self.run("make", ["-C", Self.root, "--no-print-directory", "-f", "install.mk", "uninstall",
                                              "DESTDIR=\(stage)", "PREFIX=\(prefix)"])
        #expect(uninstall.status == .exited(0), "make uninstall: \(uninstall.output)")
        let empty = try Self.run(Self.root + "/Scripts/check-install.sh", ["--empty", stage])
        #expect(empty.status == .exited(0), "after uninstall: \(empty.output)")
    }
}
