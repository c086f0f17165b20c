import BadgeCore
import Glibc
import BadgeControl

/// A desktop's accessibility stack for one test: a session bus of its own, at-spi2-core's bus
/// launcher on it (which starts the accessibility bus, and the registry daemon on first use), and
/// a screen reader's view through pyatspi (``ScreenReader``).
package final class AccessibilityStack {
    package static let launcherPath = "/usr/libexec/at-spi-bus-launcher"
    /// True when at-spi2-core, python3-pyatspi and dbus-daemon are installed.
    package static var isAvailable: Bool {
        access(launcherPath, X_OK) == 0 && access("/usr/lib/python3/dist-packages/pyatspi", F_OK) == 0
            && access("/usr/bin/python3", X_OK) == 0 && findOnPath("dbus-daemon") != nil
    }

    package let bus: SessionBus
    /// A private XDG_RUNTIME_DIR: the launcher puts the accessibility bus's socket there.
    package let runtimeFolder: String
    package let launcher: ChildProcess
    /// The display the launcher published the bus on (AT_SPI_BUS), or nil.
    package let display: String?

    /// Starts the session bus and the launcher. With `display`, the launcher also sets the root
    /// window's AT_SPI_BUS there (waited for through `x`); without, only org.a11y.Bus tells the address.
    package init(display: String?, x: XTestClient? = nil) throws {
        bus = try SessionBus()
        var template = Array("/tmp/badgekit-test-runtime-XXXXXX".utf8CString)
        guard let folder = template.withUnsafeMutableBufferPointer({ $0.baseAddress.flatMap { mkdtemp($0) } }) else {
            throw HarnessError("mkdtemp failed: errno \(errno)")
        }
        runtimeFolder = String(cString: folder)
        self.display = display
        var variables = ["DBUS_SESSION_BUS_ADDRESS": bus.address, "XDG_RUNTIME_DIR": runtimeFolder]
        if let display { variables["DISPLAY"] = display }
        if display != nil, let x { try x.selectPropertyChanges(window: x.root) }
        // Its own process group: the accessibility bus daemon and the registry end with it. Output
        // goes to /dev/null: the bus daemon keeps inherited pipes open for ever.
        launcher = try ChildProcess(executable: Self.launcherPath, arguments: ["--launch-immediately"],
                                    environment: .inherited(adding: variables, removing: display == nil ? ["DISPLAY"] : []),
                                    stdin: .null, stdout: .null, stderr: .null, ownProcessGroup: true)
        try bus.waitForOwner(of: "org.a11y.Bus")
        if display != nil, let x {
            try x.waitForProperty(window: x.root, name: "AT_SPI_BUS", timeout: 10) { $0 != nil }
        }
    }

    deinit {
        launcher.killGroup(SIGKILL)
        launcher.waitForExit(timeout: 5)
        removeTree(runtimeFolder)
    }

    /// What the app needs to find this stack (the session bus; the root window's property, if set, is on the display).
    package var environment: [String: String] { ["DBUS_SESSION_BUS_ADDRESS": bus.address, "XDG_RUNTIME_DIR": runtimeFolder] }

    /// The accessibility bus's own dbus-daemon (the launcher's child), to stop and continue it.
    package func accessibilityBusDaemon() -> pid_t? {
        for name in folderEntries("/proc") {
            guard let pid = pid_t(name),
                  let stat = try? String(decoding: readSmallFile("/proc/\(pid)/stat"), as: UTF8.self),
                  let close = stat.lastIndex(of: ")") else { continue }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 1, pid_t(fields[1]) == launcher.pid,
                  let command = try? readSmallFile("/proc/\(pid)/cmdline"),
                  String(decoding: command, as: UTF8.self).contains("dbus-daemon") else { continue }
            return pid
        }
        return nil
    }

    /// A new screen reader on this stack.
    package func screenReader() throws -> ScreenReader { try ScreenReader(stack: self) }
}

/// pyatspi (the library Orca uses) driven line by line: Fixtures/atspi-client.py.
package final class ScreenReader {
    /// Tests/EndToEndTests/Fixtures/atspi-client.py, next to the other fixtures.
    package static var script: String {
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)
        return parts.joined(separator: "/") + "/Tests/EndToEndTests/Fixtures/atspi-client.py"
    }

    /// The python3 process.
    package let process: ChildProcess

    init(stack: AccessibilityStack) throws {
        var variables = stack.environment
        if let display = stack.display { variables["DISPLAY"] = display }
        process = try ChildProcess(executable: "/usr/bin/python3", arguments: [Self.script],
                                   environment: .inherited(adding: variables, removing: ["AT_SPI_BUS_ADDRESS", "NO_AT_BRIDGE"]))
        let ready = try answer(timeout: 20)
        guard ready["ready"]?.bool == true else { throw HarnessError("atspi-client did not start: \(ready); \(process.stderrText)") }
    }

    deinit {
        process.kill(SIGKILL)
        process.waitForExit(timeout: 5)
    }

    /// Sends one command (a JSON object) and returns its answer; a Python exception becomes an error.
    @discardableResult
    package func request(_ command: JSONValue, timeout: Double = 30) throws -> JSONValue {
        try process.writeLine(command.serialized)
        let reply = try answer(timeout: timeout)
        if let exception = reply["exception"]?.string {
            throw HarnessError("atspi-client: \(exception): \(reply["message"]?.string ?? "") for \(command)")
        }
        return reply
    }

    private func answer(timeout: Double) throws -> JSONValue {
        guard let line = try process.readLine(timeout: timeout) else {
            throw HarnessError("atspi-client exited: \(process.stderrText)")
        }
        do {
            return try JSONValue.parse(Array(line.utf8))
        } catch {
            throw HarnessError("atspi-client wrote \(line): \(error); \(process.stderrText)")
        }
    }

    /// Waits until the application `name` is on the desktop (retrying while the registry starts).
    package func find(_ name: String = "badge-demo", timeout: Double = 15) throws {
        let reply = try request(.object([("op", .string("find")), ("name", .string(name)), ("timeout", .double(timeout))]),
                                timeout: timeout + 10)
        guard reply["found"]?.bool == true else { throw HarnessError("no application \(name) on the accessibility desktop") }
    }

    /// The application's tree (see atspi-client.py's describe()).
    package func tree() throws -> JSONValue {
        guard let tree = try request(.object([("op", .string("tree"))]))["tree"] else { throw HarnessError("no tree") }
        return tree
    }

    /// Performs the action `name` of the object at `path` (child indexes from the application).
    package func action(_ name: String, at path: [Int]) throws -> Bool {
        try request(.object([("op", .string("action")), ("path", .array(path.map { .int($0) })), ("name", .string(name))]))["done"]?.bool == true
    }

    /// Registers for `events`.
    package func listen(_ events: [String]) throws {
        try request(.object([("op", .string("listen")), ("events", .array(events.map { .string($0) }))]))
    }

    /// The events received so far, after waiting until `count` came (or `timeout` passed).
    package func events(count: Int = 0, timeout: Double = 0.3) throws -> [JSONValue] {
        try request(.object([("op", .string("events")), ("count", .int(count)), ("timeout", .double(timeout))]),
                    timeout: timeout + 20)["events"]?.array ?? []
    }

    /// A raw D-Bus call on the accessibility bus: its reply, or the error's name in "error".
    package func raw(bus: String, path: String, interface: String?, member: String, signature: String = "", arguments: [JSONValue] = []) throws -> JSONValue {
        try request(.object([("op", .string("raw")), ("bus", .string(bus)), ("path", .string(path)),
                             ("interface", interface.map { .string($0) } ?? .null), ("member", .string(member)),
                             ("signature", .string(signature)), ("args", .array(arguments))]))
    }
}
