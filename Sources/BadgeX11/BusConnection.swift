import CDBusLoader

/// A private connection to a D-Bus bus through libdbus, loaded with dlopen only when a bus is there:
/// the session bus (`DBUS_SESSION_BUS_ADDRESS`), which the portal client, the accessibility-bus
/// lookup and an application's dock badge share, or the accessibility bus. Nothing waits on the
/// bus: messages are queued and written as the descriptor allows, replies go to their calls, and
/// everything else is handed to the listeners. A bus that goes away closes the connection quietly.
/// Not Sendable: event-loop thread only.
package final class BusConnection {
    /// libdbus's entry points.
    package let dbus: BadgeDBus
    /// The connection, or nil once the bus went away.
    package private(set) var connection: OpaquePointer?
    /// Replies awaited, by the serial of their call.
    private var awaited: [UInt32: ([DBusValue]?) -> Void] = [:]
    /// Everything else that arrives (signals), for each part of the program that listens.
    private var listeners: [(OpaquePointer) -> Void] = []

    /// Connects to the session bus; nil (quietly) without an address, without libdbus, or when the
    /// bus cannot be reached.
    package init?(sessionAddress address: String?) {
        guard let address, !address.isEmpty else { return nil }
        var dbus = BadgeDBus()
        guard badge_dbus_load(&dbus) != 0 else { return nil }
        self.dbus = dbus
        var error = BadgeDBusError()
        dbus.error_init(&error)
        guard let connection = dbus.bus_get_private(BADGE_DBUS_BUS_SESSION, &error) else {
            dbus.error_free(&error)
            return nil
        }
        dbus.error_free(&error)
        // libdbus would otherwise call exit() when the bus disconnects.
        dbus.connection_set_exit_on_disconnect(connection, 0)
        self.connection = connection
    }

    /// Opens a connection to the bus at `address` without waiting: the caller says Hello (with
    /// ``call(_:path:interface:member:arguments:reply:)``) before anything else. Nil when the address
    /// cannot be used, with the reason given to `failure`.
    package init?(address: String, dbus: BadgeDBus, failure: (String) -> Void) {
        self.dbus = dbus
        var error = BadgeDBusError()
        dbus.error_init(&error)
        defer { dbus.error_free(&error) }
        guard let connection = dbus.connection_open_private(address, &error) else {
            failure(BadgeDBus.text(error.message))
            return nil
        }
        dbus.connection_set_exit_on_disconnect(connection, 0)
        self.connection = connection
    }

    deinit { close() }

    /// The descriptor to poll, or nil.
    package var fileDescriptor: Int32? {
        guard let connection else { return nil }
        var fd: Int32 = -1
        return dbus.connection_get_unix_fd(connection, &fd) != 0 && fd >= 0 ? fd : nil
    }

    /// True while messages wait to be written (poll for writing then).
    package var hasPendingOutput: Bool {
        guard let connection else { return false }
        return dbus.connection_has_messages_to_send(connection) != 0
    }

    /// Reads and writes what the socket allows and hands each incoming message to `body` (then
    /// frees it); false when the bus went away (the connection is closed then).
    @discardableResult
    package func service(_ body: (OpaquePointer) -> Void = { _ in }) -> Bool {
        guard let connection else { return false }
        guard dbus.connection_read_write(connection, 0) != 0 else {
            close()
            return false
        }
        while let message = dbus.connection_pop_message(connection) {
            let type = dbus.message_get_type(message)
            let serial = dbus.message_get_reply_serial(message)
            if type == DBUS_MESSAGE_TYPE_METHOD_RETURN || type == DBUS_MESSAGE_TYPE_ERROR, let reply = awaited.removeValue(forKey: serial) {
                reply(type == DBUS_MESSAGE_TYPE_ERROR ? nil : dbus.arguments(of: message) ?? [])
            } else {
                for listener in listeners { listener(message) }
                body(message)
            }
            dbus.message_unref(message)
        }
        return true
    }

    /// Sends a method call without waiting; `reply` gets the answer's values, or nil for an error
    /// reply (or a bus that goes away first).
    package func call(_ destination: String, path: String, interface: String, member: String,
                      arguments: [DBusValue] = [], reply: @escaping ([DBusValue]?) -> Void) {
        guard let connection, let message = dbus.message_new_method_call(destination, path, interface, member) else {
            reply(nil)
            return
        }
        defer { dbus.message_unref(message) }
        var serial: UInt32 = 0
        guard dbus.append(arguments, to: message), dbus.connection_send(connection, message, &serial) != 0 else {
            reply(nil)
            return
        }
        awaited[serial] = reply
    }

    /// Hands every incoming message that is not an awaited reply (signals, method calls) to `body`.
    package func listen(_ body: @escaping (OpaquePointer) -> Void) {
        listeners.append(body)
    }

    /// The loop source `name` for this connection: incoming messages go to `onMessage`, and
    /// `onDisconnect` runs once the bus went away.
    package func source(named name: String, onMessage: @escaping (OpaquePointer) -> Void = { _ in },
                        onDisconnect: @escaping () -> Void = {}) -> EventLoop.Source {
        EventLoop.Source(name: name, descriptor: { [weak self] in self?.fileDescriptor },
                         interest: { [weak self] in self?.hasPendingOutput == true ? [.readable, .writable] : .readable },
                         handle: { [weak self] _ in if self?.service(onMessage) == false { onDisconnect() } })
    }

    /// Closes the connection; awaited replies get nil.
    package func close() {
        guard let connection else { return }
        let unanswered = awaited.values
        awaited.removeAll()
        for reply in unanswered { reply(nil) }
        // A private connection must be closed before its last unref.
        dbus.connection_close(connection)
        dbus.connection_unref(connection)
        self.connection = nil
    }
}
