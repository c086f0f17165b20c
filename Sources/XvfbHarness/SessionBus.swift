import CDBus
import Glibc

/// A private D-Bus session bus for one test (its own `dbus-daemon`), and a listener for the Unity
/// LauncherEntry `Update` signals apps send on it.
public final class SessionBus {
    /// One received `com.canonical.Unity.LauncherEntry.Update` signal.
    public struct LauncherUpdate: Sendable, Equatable {
        /// The app URI argument ("application://badge-demo.desktop").
        public var uri: String
        /// The object path the signal came from.
        public var path: String
        /// "count" (int64), when present.
        public var count: Int64?
        /// "count-visible", when present.
        public var countVisible: Bool?
        /// "urgent", when present.
        public var urgent: Bool?
    }

    /// The bus address, for DBUS_SESSION_BUS_ADDRESS.
    public let address: String
    /// The daemon's process id (to stop and continue it, as a hung bus).
    public var daemonPID: pid_t { daemon.pid }
    private let daemon: ChildProcess
    private let connection: OpaquePointer

    /// Starts `dbus-daemon --session` and subscribes to LauncherEntry signals (the match is in place
    /// when this returns). Throws when dbus-daemon is not installed.
    /// With `serviceFolder`, the bus starts services by D-Bus activation from the `.service`
    /// files in that folder only (none of the machine's own), as a desktop's session bus starts
    /// dunst at the first notification.
    public init(serviceFolder: String? = nil) throws {
        guard let executable = findOnPath("dbus-daemon") else { throw HarnessError("dbus-daemon is not installed (apt package dbus)") }
        var arguments = ["--session", "--nofork", "--nopidfile", "--print-address=1"]
        if let serviceFolder {
            let config = serviceFolder + "/session.conf"
            guard let file = fopen(config, "w") else { throw HarnessError("cannot write \(config): errno \(errno)") }
            fputs("""
                <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
                 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
                <busconfig>
                  <type>session</type>
                  <keep_umask/>
                  <listen>unix:tmpdir=/tmp</listen>
                  <servicedir>\(serviceFolder)</servicedir>
                  <policy context="default">
                    <allow send_destination="*" eavesdrop="true"/>
                    <allow eavesdrop="true"/>
                    <allow own="*"/>
                  </policy>
                </busconfig>

                """, file)
            fclose(file)
            arguments = ["--config-file=" + config, "--nofork", "--nopidfile", "--print-address=1"]
        }
        daemon = try ChildProcess(executable: executable, arguments: arguments)
        guard let line = try daemon.readLine(timeout: 10), !line.isEmpty else {
            throw HarnessError("dbus-daemon printed no address; stderr: \(daemon.stderrText)")
        }
        address = line
        var error = DBusError()
        dbus_error_init(&error)
        guard let connection = dbus_connection_open_private(address, &error) else {
            defer { dbus_error_free(&error) }
            throw HarnessError("cannot connect to the test bus \(address): \(error.message.map { String(cString: $0) } ?? "?")")
        }
        dbus_connection_set_exit_on_disconnect(connection, 0)
        guard dbus_bus_register(connection, &error) != 0 else {
            defer { dbus_error_free(&error) }
            dbus_connection_close(connection)
            dbus_connection_unref(connection)
            throw HarnessError("cannot register on the test bus: \(error.message.map { String(cString: $0) } ?? "?")")
        }
        // dbus_bus_add_match with an error pointer waits for the bus's reply: the match is active after it.
        dbus_bus_add_match(connection, "type='signal',interface='com.canonical.Unity.LauncherEntry',member='Update'", &error)
        if dbus_error_is_set(&error) != 0 {
            defer { dbus_error_free(&error) }
            dbus_connection_close(connection)
            dbus_connection_unref(connection)
            throw HarnessError("AddMatch failed: \(error.message.map { String(cString: $0) } ?? "?")")
        }
        self.connection = connection
    }

    deinit {
        dbus_connection_close(connection)
        dbus_connection_unref(connection)
        daemon.kill(SIGTERM)
        daemon.waitForExit(timeout: 5)
    }

    /// Waits until some connection owns `name` on the bus (a service that is starting); throws on timeout.
    public func waitForOwner(of name: String, timeout: Double = 10) throws {
        var error = DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        // The match first, then the question: an owner that arrives in between is not missed.
        dbus_bus_add_match(connection, "type='signal',sender='org.freedesktop.DBus',member='NameOwnerChanged',arg0='\(name)'", &error)
        if dbus_error_is_set(&error) != 0 { throw HarnessError("AddMatch for \(name) failed") }
        let deadline = Deadline(seconds: timeout)
        var owned = dbus_bus_name_has_owner(connection, name, &error) != 0
        while !owned {
            if deadline.hasPassed { throw HarnessError("nothing owns \(name) on the test bus after \(timeout) s") }
            guard dbus_connection_read_write(connection, max(1, deadline.remainingMilliseconds)) != 0 else {
                throw HarnessError("the test bus connection closed")
            }
            while let message = dbus_connection_pop_message(connection) {
                defer { dbus_message_unref(message) }
                if dbus_message_is_signal(message, "org.freedesktop.DBus", "NameOwnerChanged") != 0 { owned = true }
            }
        }
    }

    /// Waits for the next Update signal accepted by `predicate` (others are skipped); throws on timeout.
    public func nextUpdate(timeout: Double = 10, where predicate: (LauncherUpdate) -> Bool = { _ in true }) throws -> LauncherUpdate {
        let deadline = Deadline(seconds: timeout)
        var seen: [LauncherUpdate] = []
        while true {
            while let message = dbus_connection_pop_message(connection) {
                defer { dbus_message_unref(message) }
                guard dbus_message_is_signal(message, "com.canonical.Unity.LauncherEntry", "Update") != 0 else { continue }
                let update = Self.decode(message)
                if predicate(update) { return update }
                seen.append(update)
            }
            if deadline.hasPassed { throw HarnessError("no matching LauncherEntry Update within \(timeout) s; seen: \(seen)") }
            guard dbus_connection_read_write(connection, max(1, deadline.remainingMilliseconds)) != 0 else {
                throw HarnessError("the test bus connection closed")
            }
        }
    }

    private static func decode(_ message: OpaquePointer) -> LauncherUpdate {
        var update = LauncherUpdate(uri: "", path: dbus_message_get_path(message).map { String(cString: $0) } ?? "")
        var args = DBusMessageIter()
        guard dbus_message_iter_init(message, &args) != 0 else { return update }
        let s = Int32(UInt8(ascii: "s")), a = Int32(UInt8(ascii: "a")), x = Int32(UInt8(ascii: "x")), b = Int32(UInt8(ascii: "b"))
        if dbus_message_iter_get_arg_type(&args) == s {
            var value: UnsafePointer<CChar>?
            dbus_message_iter_get_basic(&args, &value)
            update.uri = value.map { String(cString: $0) } ?? ""
        }
        guard dbus_message_iter_next(&args) != 0, dbus_message_iter_get_arg_type(&args) == a else { return update }
        var dict = DBusMessageIter()
        dbus_message_iter_recurse(&args, &dict)
        while dbus_message_iter_get_arg_type(&dict) == Int32(UInt8(ascii: "e")) {
            var entry = DBusMessageIter()
            dbus_message_iter_recurse(&dict, &entry)
            var keyPointer: UnsafePointer<CChar>?
            if dbus_message_iter_get_arg_type(&entry) == s { dbus_message_iter_get_basic(&entry, &keyPointer) }
            let key = keyPointer.map { String(cString: $0) } ?? ""
            if dbus_message_iter_next(&entry) != 0 {
                var variant = DBusMessageIter()
                dbus_message_iter_recurse(&entry, &variant)
                let type = dbus_message_iter_get_arg_type(&variant)
                if type == x {
                    var v: Int64 = 0
                    dbus_message_iter_get_basic(&variant, &v)
                    if key == "count" { update.count = v }
                } else if type == b {
                    var v: dbus_bool_t = 0
                    dbus_message_iter_get_basic(&variant, &v)
                    if key == "count-visible" { update.countVisible = v != 0 }
                    if key == "urgent" { update.urgent = v != 0 }
                }
            }
            dbus_message_iter_next(&dict)
        }
        return update
    }
}
