import BadgeX11
import CDBusLoader

/// Publishes the total count to docks and taskbars through the Unity LauncherEntry D-Bus API:
/// the signal `com.canonical.Unity.LauncherEntry.Update` with the app's desktop-file URI and
/// {"count": x, "count-visible": b, "urgent": b}.
///
/// On the host's session bus (``ToolbarHost/sessionBus``), which exists only when a session bus is
/// configured (DBUS_SESSION_BUS_ADDRESS), so a toolbar without a bus never maps libdbus. If the bus
/// goes away, publishing is skipped quietly. Signals need no reply: each is queued and written
/// without waiting. Not Sendable: event-loop thread only.
final class LauncherEntry {
    /// The application URI docks match against their .desktop files ("application://badge-demo.desktop").
    let applicationURI: String
    /// The object path the signal is sent from ("/com/canonical/unity/launcherentry/badge_demo").
    let objectPath: String

    private let bus: BusConnection
    private var dbus: BadgeDBus { bus.dbus }
    private var last: (count: Int, visible: Bool, urgent: Bool)?

    /// Publishes on `bus` for the application `desktopFileID`.
    init(bus: BusConnection, desktopFileID: String) {
        applicationURI = "application://\(desktopFileID).desktop"
        // An object path element allows only [A-Za-z0-9_].
        let element = desktopFileID.unicodeScalars.map { scalar -> Character in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)) ? Character(scalar) : "_"
        }
        objectPath = "/com/canonical/unity/launcherentry/" + (element.isEmpty ? "_" : String(element))
        self.bus = bus
    }

    /// Sends Update when the values differ from the last ones sent.
    func publish(count: Int, urgent: Bool) {
        let visible = count > 0
        if let last, last.count == count, last.visible == visible, last.urgent == urgent { return }
        guard let connection = bus.connection, dbus.connection_get_is_connected(connection) != 0,
              let message = dbus.message_new_signal(objectPath, "com.canonical.Unity.LauncherEntry", "Update") else { return }
        defer { dbus.message_unref(message) }
        let properties = DBusValue.dictionary([("count", .int64(Int64(count))), ("count-visible", .bool(visible)),
                                               ("urgent", .bool(urgent))])
        guard dbus.append([.string(applicationURI), properties], to: message),
              dbus.connection_send(connection, message, nil) != 0 else { return }
        last = (count, visible, urgent)
        bus.service()  // write it now if the socket takes it; the rest when it is writable
    }
}
