import BadgeX11
import CDBusLoader
import Glibc

/// Publishes the total count to docks and taskbars through the Unity LauncherEntry D-Bus API:
/// the signal `com.canonical.Unity.LauncherEntry.Update` with the app's desktop-file URI and
/// {"count": x, "count-visible": b, "urgent": b}.
///
/// Only when a session bus is configured (DBUS_SESSION_BUS_ADDRESS): only then is libdbus loaded
/// (dlopen), so a toolbar without a bus never maps it. Without a bus, without libdbus, or if the bus
/// goes away, publishing is skipped quietly. Signals need no main loop: each is queued and written
/// without waiting for any reply. Not Sendable: event-loop thread only.
final class LauncherEntry {
    /// The application URI docks match against their .desktop files ("application://badge-demo.desktop").
    let applicationURI: String
    /// The object path the signal is sent from ("/com/canonical/unity/launcherentry/badge_demo").
    let objectPath: String

    // D-Bus type codes (the C macros are character casts Swift does not import).
    private static let arrayType = Int32(UInt8(ascii: "a")), int64Type = Int32(UInt8(ascii: "x"))
    private static let booleanType = Int32(UInt8(ascii: "b")), stringType = Int32(UInt8(ascii: "s"))
    private static let dictEntryType = Int32(UInt8(ascii: "e")), variantType = Int32(UInt8(ascii: "v"))

    private let bus: SessionBusConnection
    private var dbus: BadgeDBus { bus.dbus }
    private var last: (count: Int, visible: Bool, urgent: Bool)?

    /// Connects to the session bus; nil (quietly) when there is none or it cannot be reached.
    init?(environment address: String?, desktopFileID: String) {
        applicationURI = "application://\(desktopFileID).desktop"
        // An object path element allows only [A-Za-z0-9_].
        let element = desktopFileID.unicodeScalars.map { scalar -> Character in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)) ? Character(scalar) : "_"
        }
        objectPath = "/com/canonical/unity/launcherentry/" + (element.isEmpty ? "_" : String(element))
        guard let bus = SessionBusConnection(address: address) else { return nil }
        self.bus = bus
    }

    /// The loop source "dock" (incoming messages are only read and dropped).
    var source: EventLoop.Source { bus.source(named: "dock") }

    /// Sends Update when the values differ from the last ones sent.
    func publish(count: Int, urgent: Bool) {
        let visible = count > 0
        if let last, last.count == count, last.visible == visible, last.urgent == urgent { return }
        guard let connection = bus.connection, dbus.connection_get_is_connected(connection) != 0 else { return }
        guard let message = dbus.message_new_signal(objectPath, "com.canonical.Unity.LauncherEntry", "Update") else { return }
        defer { dbus.message_unref(message) }
        var args = BadgeDBusMessageIter()
        dbus.message_iter_init_append(message, &args)
        var ok = appendString(&args, applicationURI)
        var dict = BadgeDBusMessageIter()
        ok = ok && dbus.message_iter_open_container(&args, Self.arrayType, "{sv}", &dict) != 0
        ok = ok && appendEntry(&dict, key: "count", signature: "x") { iter in
            var value = Int64(count)
            return dbus.message_iter_append_basic(&iter, Self.int64Type, &value) != 0
        }
        ok = ok && appendEntry(&dict, key: "count-visible", signature: "b") { iter in
            var value: badge_dbus_bool_t = visible ? 1 : 0
            return dbus.message_iter_append_basic(&iter, Self.booleanType, &value) != 0
        }
        ok = ok && appendEntry(&dict, key: "urgent", signature: "b") { iter in
            var value: badge_dbus_bool_t = urgent ? 1 : 0
            return dbus.message_iter_append_basic(&iter, Self.booleanType, &value) != 0
        }
        ok = ok && dbus.message_iter_close_container(&args, &dict) != 0
        guard ok, dbus.connection_send(connection, message, nil) != 0 else { return }
        last = (count, visible, urgent)
        bus.service()  // write it now if the socket takes it; the rest when it is writable
    }

    private func appendString(_ iter: inout BadgeDBusMessageIter, _ string: String) -> Bool {
        string.withCString { pointer in
            var value: UnsafePointer<CChar>? = pointer
            return dbus.message_iter_append_basic(&iter, Self.stringType, &value) != 0
        }
    }

    private func appendEntry(_ dict: inout BadgeDBusMessageIter, key: String, signature: String,
                                    value: (inout BadgeDBusMessageIter) -> Bool) -> Bool {
        var entry = BadgeDBusMessageIter()
        guard dbus.message_iter_open_container(&dict, Self.dictEntryType, nil, &entry) != 0 else { return false }
        var variant = BadgeDBusMessageIter()
        let ok = appendString(&entry, key)
            && dbus.message_iter_open_container(&entry, Self.variantType, signature, &variant) != 0
            && value(&variant)
            && dbus.message_iter_close_container(&entry, &variant) != 0
        return dbus.message_iter_close_container(&dict, &entry) != 0 && ok
    }
}
