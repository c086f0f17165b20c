import BadgeSources
import BadgeX11
import Glibc
import Testing
import XvfbHarness

/// The badge hub: a button for another application raises that application's window (by its
/// WM_CLASS or pid, through `_NET_ACTIVE_WINDOW` under openbox, directly without a window
/// manager) or launches it from its desktop file, leaving no zombie behind.
@Suite("E2E: the badge hub raises or launches other applications", .endToEnd(minutes: 2))
struct BadgeHubTests {
    /// The window xdotool reports for `command` ("getactivewindow", "getwindowfocus").
    /// nil while there is none: xdotool fails before the window manager has set `_NET_ACTIVE_WINDOW`
    /// (a slow start under load), and the callers wait on a deadline.
    func window(_ command: String, display: String) throws -> UInt32? {
        guard let output = try? runClient("xdotool", [command], display: display) else { return nil }
        return UInt32(output.split(separator: "\n").first.map(String.init) ?? "")
    }

    /// Waits until `command` reports `expected`, syncing with the server between tries.
    func waitFor(_ command: String, _ expected: UInt32, display: String, x: XTestClient) throws -> UInt32? {
        let deadline = Deadline(seconds: 10)
        var seen = try window(command, display: display)
        while seen != expected, !deadline.hasPassed {
            try x.sync()
            seen = try window(command, display: display)
        }
        return seen
    }

    @Test("Under openbox, the first application's window is activated by its class (any case) or pid",
          .enabled(if: findOnPath("openbox") != nil && findOnPath("xdotool") != nil, "openbox or xdotool is not installed"))
    func activationUnderOpenbox() throws {
        let server = try XvfbServer.start()
        let x = try XTestClient(display: server.display)
        let manager = try WindowManager("openbox", display: server.display, x: x)
        defer { manager.kill() }
        let telegram = try TestWindow(display: server.display, x: 10, y: 10, title: "Telegram", managed: true,
                                      wmClass: ("telegram-desktop", "TelegramDesktop"))
        let mail = try TestWindow(display: server.display, x: 300, y: 10, title: "Mail", managed: true,
                                  wmClass: ("Mail", "thunderbird"), pid: 4_000_000)
        for window in [telegram.window, mail.window] {
            try x.waitForProperty(window: window, name: "WM_STATE", timeout: 10) { $0 != nil }
        }
        let connection = try XConnection(display: server.display)
        #expect(try connection.clientWindows(withClass: ["TELEGRAMDESKTOP"]) == [telegram.window])
        #expect(try connection.clientWindows(withClass: ["telegram-desktop"]) == [telegram.window], "the instance matches too")
        #expect(try connection.clientWindows(withClass: [], pid: 4_000_000) == [mail.window])
        #expect(try connection.clientWindows(withClass: ["nothing"]).isEmpty)

        // The second window takes the focus, then the first is asked for by its class.
        #expect(try connection.activateClient(withClass: ["thunderbird"], time: 0) == mail.window)
        try connection.flush()
        #expect(try waitFor("getactivewindow", mail.window, display: server.display, x: x) == mail.window)
        #expect(try connection.activateClient(withClass: ["TelegramDesktop"], time: 0) == telegram.window)
        try connection.flush()
        #expect(try waitFor("getactivewindow", telegram.window, display: server.display, x: x) == telegram.window,
                "openbox activated the first window (_NET_ACTIVE_WINDOW)")
        #expect(try connection.activateClient(withClass: ["not-running"], time: 0) == nil, "nothing to raise: launch it")
    }

    @Test("Without a window manager, the window is found among the root's children and focused directly",
          .enabled(if: findOnPath("xdotool") != nil, "xdotool is not installed"))
    func activationWithoutWindowManager() throws {
        let server = try XvfbServer.start()
        let x = try XTestClient(display: server.display)
        let first = try TestWindow(display: server.display, x: 10, y: 10, managed: true, wmClass: ("first", "First"))
        let second = try TestWindow(display: server.display, x: 300, y: 10, managed: true, wmClass: ("second", "Second"))
        let connection = try XConnection(display: server.display)
        #expect(try connection.activateClient(withClass: ["second"], time: 0) == second.window)
        try connection.flush()
        #expect(try waitFor("getwindowfocus", second.window, display: server.display, x: x) == second.window)
        #expect(try connection.activateClient(withClass: ["first"], time: 0) == first.window)
        try connection.flush()
        #expect(try waitFor("getwindowfocus", first.window, display: server.display, x: x) == first.window)
    }

    @Test("A desktop entry's Exec is launched without a shell, in its own session, with the startup id, and reaped")
    func launchFromDesktopEntry() throws {
        let folder = try TemporaryTree("hub")
        let output = folder.path + "/out"
        let script = "{ echo \"$DESKTOP_STARTUP_ID\"; cut -d' ' -f6 /proc/$$/stat; echo $$; readlink /proc/$$/fd/0; } > \(output)"
        let exec = "sh -c " + Self.quotedForExec(script) + " %U"
        try folder.write("[Desktop Entry]\nType=Application\nName=Hub test\nExec=\(exec)\n", to: "applications/org.example.Hub.desktop")
        let finder = DesktopEntryFinder(directories: XDGDataDirectories(home: folder.path, system: []), locale: nil)
        let entry = try finder.entry(forID: "org.example.Hub")
        let arguments = try entry.arguments()
        #expect(arguments == ["sh", "-c", script])

        let launcher = ProgramLauncher()
        let startupID = launcher.startupID(for: arguments[0], time: 1234)
        #expect(startupID.hasPrefix("badgekit-\(getpid())-") && startupID.hasSuffix("-sh-1_TIME1234"))
        let pid = try launcher.launch(entry, startupID: startupID)
        #expect(launcher.runningPIDs == [pid])

        // The launcher's descriptor becomes readable when the program ends; then it reaps it.
        let deadline = Deadline(seconds: 10)
        while !launcher.runningPIDs.isEmpty, !deadline.hasPassed {
            let descriptor = try #require(launcher.descriptor, "a pidfd is watched while the program runs")
            var entries = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)]
            _ = poll(&entries, 1, deadline.remainingMilliseconds)
            if entries[0].revents != 0 { launcher.reapEnded() }
        }
        #expect(launcher.runningPIDs.isEmpty && launcher.descriptor == nil)
        var status: Int32 = 0
        #expect(waitpid(pid, &status, WNOHANG) == -1 && errno == ECHILD, "reaped: no zombie left")
        #expect(access("/proc/\(pid)", F_OK) != 0, "the process is gone")

        let lines = try folder.read("out").split(separator: "\n").map(String.init)
        #expect(lines.count == 4, "\(lines)")
        guard lines.count == 4 else { return }
        #expect(lines[0] == startupID)
        #expect(lines[1] == lines[2] && lines[2] == String(pid), "its own session, led by the launched program: \(lines)")
        #expect(lines[3] == "/dev/null", "standard input from /dev/null")
    }

    /// `argument` as a desktop file writes it in `Exec`: in double quotes with `"`, `` ` ``, `$`
    /// and `\` escaped by a backslash (the quoting rule), then every backslash doubled (the
    /// string escape, which is undone first).
    static func quotedForExec(_ argument: String) -> String {
        var quoted = ""
        for character in argument {
            if character == "\\" {
                quoted += "\\\\\\\\"
            } else if "\"`$".contains(character) {
                quoted += "\\\\" + String(character)
            } else {
                quoted.append(character)
            }
        }
        return "\"" + quoted + "\""
    }

    @Test("A program that is not installed is a one-line failure")
    func launchFailure() throws {
        let launcher = ProgramLauncher()
        #expect(throws: LaunchFailure("cannot run no-such-program-badgekit: No such file or directory")) {
            try launcher.launch(["no-such-program-badgekit", "--flag"])
        }
        #expect(launcher.runningPIDs.isEmpty, "glibc's posix_spawn reaps the child that could not exec")
    }
}

/// A private folder for one test, removed with what is in it.
private final class TemporaryTree {
    let path: String

    init(_ name: String) throws {
        path = try makeTemporaryFolder(name)
    }

    deinit { removeTree(path) }

    /// Writes `text` to `relative`, making the folders above it.
    func write(_ text: String, to relative: String) throws {
        var folder = path
        for part in relative.split(separator: "/").dropLast() {
            folder += "/" + part
            guard mkdir(folder, 0o755) == 0 || errno == EEXIST else { throw HarnessError("mkdir \(folder): errno \(errno)") }
        }
        let fd = open(path + "/" + relative, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw HarnessError("cannot create \(relative): errno \(errno)") }
        defer { close(fd) }
        let bytes = Array(text.utf8)
        guard bytes.withUnsafeBytes({ Glibc.write(fd, $0.baseAddress, $0.count) }) == bytes.count else {
            throw HarnessError("short write to \(relative)")
        }
    }

    /// The text of `relative`.
    func read(_ relative: String) throws -> String {
        guard let file = fopen(path + "/" + relative, "re") else { throw HarnessError("cannot open \(relative): errno \(errno)") }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while case let count = fread(&chunk, 1, chunk.count, file), count > 0 { bytes += chunk[0..<count] }
        return String(decoding: bytes, as: UTF8.self)
    }
}
