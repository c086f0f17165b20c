import BadgeControl
import Glibc
import Testing
import XvfbHarness

/// D-Bus activation (issue 39, part 2): a private `dbus-daemon` whose only service folder holds a
/// service file for io.github.badgekit.BadgeDemo that runs the built badge-demo; the app's display
/// and XDG folders reach it through the bus's activation environment
/// (`dbus-update-activation-environment`, as a desktop session sets it), never through the test's own.
@Suite("E2E: started by D-Bus activation", .endToEnd(minutes: 2),
       .enabled(if: BusClients.available && findOnPath("dbus-update-activation-environment") != nil && findOnPath("xdotool") != nil,
                "needs busctl, gdbus, dbus-send, dbus-daemon, dbus-update-activation-environment and xdotool"))
struct ActivationTests {
    /// An X server, the app's folders, a service folder and the bus that starts the app from it.
    final class Activation {
        let desktop: SingleInstanceTests.Desktop
        let services: SourceBindingTests.Folder
        let bus: SessionBus
        var clients: BusClients { BusClients(address: bus.address) }
        /// Where the service's wrapper writes the pid of the badge-demo it becomes.
        var pidFile: String { services.path + "/pid" }
        var socketPath: String { desktop.runtime + "/badge-demo/control.sock" }

        /// `saved`: the counts of a last run, in the app's state file, for the restore at start.
        init(_ name: String, saved: [String: Int] = [:]) throws {
            desktop = try SingleInstanceTests.Desktop(name)
            services = try SourceBindingTests.Folder("activation-\(name)")
            let demo = try BuiltProducts.executable(named: "badge-demo")
            // The pid first, then exec: the process the bus started is the app itself.
            services.write("start-badge-demo.sh", "#!/bin/sh\necho $$ > \(services.path)/pid\nexec \(demo)\n")
            #expect(chmod(services.path + "/start-badge-demo.sh", 0o755) == 0)
            services.write("io.github.badgekit.BadgeDemo.service",
                           "[D-BUS Service]\nName=io.github.badgekit.BadgeDemo\nExec=\(services.path)/start-badge-demo.sh\n")
            if !saved.isEmpty {
                #expect(mkdir(desktop.state + "/badge-demo", 0o700) == 0)
                let buttons = saved.sorted { $0.key < $1.key }
                    .map { #""\#($0.key)": {"kind": "count", "count": \#($0.value)}"# }.joined(separator: ", ")
                let file = fopen(desktop.state + "/badge-demo/state.json", "w")
                fputs(#"{"version": 1, "buttons": {\#(buttons)}}"#, file)
                fclose(file)
            }
            bus = try SessionBus(serviceFolder: services.path)
            // What a desktop session does at login: the bus starts services with these variables.
            let variables = desktop.environment.merging(["DBUS_SESSION_BUS_ADDRESS": bus.address]) { $1 }
            let update = try ChildProcess(executable: "dbus-update-activation-environment",
                                          arguments: variables.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" },
                                          environment: .inherited(adding: ["DBUS_SESSION_BUS_ADDRESS": bus.address]), stdin: .null)
            let status = update.waitForExit(timeout: 15)
            guard status == .exited(0) else { throw HarnessError("dbus-update-activation-environment: \(String(describing: status)) \(update.stderrText)") }
        }

        deinit {
            if let pid = appPID { kill(pid, SIGKILL) }
        }

        /// The activated app's pid, once the bus has started it.
        var appPID: pid_t? {
            guard let bytes = try? readProcFile(pidFile) else { return nil }
            return pid_t(String(decoding: bytes, as: UTF8.self).split(separator: "\n").first ?? "")
        }

        /// `badge-demo msg ARGUMENTS` with the app's runtime folder and the bus, no DISPLAY.
        func msg(_ arguments: [String]) throws -> (lines: [String], status: ProcessTermination?, stderr: String) {
            try desktop.msg(arguments, environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        }

        /// `msg state`'s count of `id` (nil while no instance answers).
        func count(_ id: String) throws -> Int? {
            SingleInstanceTests.count(try desktop.state(), id)
        }
    }

    /// A connection to the Unix socket at `path`, or nil when nothing accepts there (a bound,
    /// listening socket accepts into its backlog even while its process is stopped).
    static func connectUnix(_ path: String) -> Int32? {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { close(fd); return nil }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0
            }
        }
        guard connected else { close(fd); return nil }
        return fd
    }

    /// The first line read from `fd` within `seconds` (nil at the deadline or end of file).
    static func readLine(_ fd: Int32, seconds: Double) -> String? {
        let deadline = Deadline(seconds: seconds)
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while !deadline.hasPassed {
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, Int32(max(1, deadline.remainingMilliseconds))) > 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { return nil }
            bytes += buffer[0..<count]
            if let newline = bytes.firstIndex(of: 10) { return String(decoding: bytes[..<newline], as: UTF8.self) }
        }
        return nil
    }

    @Test("a plain D-Bus call starts the app; the call's count lands, beside the counts restored from the last run")
    func callStartsTheApp() throws {
        let a = try Activation("call", saved: ["mail": 2, "chat": 5])
        #expect(a.appPID == nil, "nothing started yet")
        let set = try a.clients.run("busctl", ["--timeout=30", "--", "call", BusClients.name, BusClients.path, BusClients.interface,
                                               "Set", "sx", "mail", "7"])
        #expect(set.succeeded, "busctl: \(set.output) \(set.errors)")
        #expect(a.appPID != nil, "the bus ran the service's Exec=")
        #expect(try a.count("mail") == 7, "the call that started the app")
        #expect(try a.count("chat") == 5, "restored before the name was taken, not after the call")
        let windows = try a.desktop.visibleWindows()
        #expect(windows.count == 1, "one window, mapped: \(windows)")
    }

    @Test("msg --start starts the app when none runs and the command is applied; a second --start finds it running")
    func msgStart() throws {
        let a = try Activation("msg-start")
        let started = try a.msg(["--start", "set", "mail", "3"])
        #expect(started.status == .exited(0), "\(started)")
        #expect(try a.count("mail") == 3)
        let pid = a.appPID
        #expect(pid != nil)
        let again = try a.msg(["--start", "inc", "mail"])
        #expect(again.status == .exited(0), "\(again)")
        #expect(try a.count("mail") == 4)
        #expect(a.appPID == pid, "not started twice")
    }

    @Test("without --start, msg starts nothing and says how to start the app")
    func msgWithoutStart() throws {
        let a = try Activation("msg-no-start")
        let answer = try a.msg(["set", "mail", "3"])
        #expect(answer.status == .exited(1), "\(answer)")
        #expect(answer.stderr.contains("no instance is running"), "\(answer.stderr)")
        #expect(answer.stderr.contains(#"start it with "badge-demo", or add --start"#), "\(answer.stderr)")
        #expect(a.appPID == nil, "nothing was started")
        // A profile's instance is not the bus name's: the hint names the profile's own start.
        let profile = try a.msg(["--profile", "work", "state"])
        #expect(profile.status == .exited(1) && profile.stderr.contains(#"start it with "badge-demo --profile work""#), "\(profile)")
        // --start with nothing to start it: the bus's answer, exit 1.
        let empty = try SourceBindingTests.Folder("activation-none")
        let bare = try SessionBus(serviceFolder: empty.path)
        let failed = try a.desktop.msg(["--start", "state"], environment: ["DBUS_SESSION_BUS_ADDRESS": bare.address])
        #expect(failed.status == .exited(1) && failed.stderr.contains("--start failed"), "\(failed)")
    }

    @Test("ready order: when the bus name is owned, the window is mapped, the socket listens and the counts are restored")
    func readinessOrder() throws {
        let a = try Activation("ready", saved: ["mail": 6])
        // What systemd does for Type=dbus: start the service, then watch for the name.
        let start = try a.clients.start("busctl", ["--timeout=30", "--", "call", "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                                   "org.freedesktop.DBus", "StartServiceByName", "su", BusClients.name, "0"])
        try a.bus.waitForOwner(of: BusClients.name, timeout: 30)
        // Stopped the moment the name is seen: what follows is what the app had done by then. A
        // client that asks then (as a unit ordered After= this one would) is answered, from a
        // socket that is served, with the counts restored.
        let pid = try #require(a.appPID)
        #expect(kill(pid, SIGSTOP) == 0)
        let windows = try a.desktop.visibleWindows()
        let connection = Self.connectUnix(a.socketPath)
        if let connection { _ = "state\n".utf8CString.withUnsafeBytes { write(connection, $0.baseAddress, $0.count - 1) } }
        #expect(kill(pid, SIGCONT) == 0)
        #expect(windows.count == 1, "the window is mapped before the name: \(windows)")
        let fd = try #require(connection, "the control socket is bound before the name")
        defer { close(fd) }
        let line = try #require(Self.readLine(fd, seconds: 10), "the state asked for at the name's moment is answered")
        let state = try JSONValue(parsing: line)
        #expect(state["controlSocket"]?["status"]?.string == "listening", "\(line.prefix(300))")
        #expect(SingleInstanceTests.count(state, "mail") == 6, "restored before the name")
        let answer = try BusClients.finish(start)
        #expect(answer.succeeded && answer.output == "u 1", "StartServiceByName: \(answer.output) \(answer.errors)")
        #expect(try a.desktop.state()?["dbus"]?["status"]?.string == "owned")
    }
}
