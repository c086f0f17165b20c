import CDBusLoader
import Glibc

/// The XDG desktop portal's `org.freedesktop.appearance` `color-scheme` (0 no preference, 1 prefer
/// dark, 2 prefer light), read once and then followed through `SettingChanged`, on the session bus.
///
/// Only with a session bus (`DBUS_SESSION_BUS_ADDRESS`): only then is libdbus loaded (dlopen).
/// Nothing blocks: the read is sent and its reply handled when it comes, as signals are; no portal
/// (or no bus, or a bus that goes away) means no preference. Not Sendable: event-loop thread only.
package final class PortalAppearance {
    private static let service = "org.freedesktop.portal.Desktop"
    private static let path = "/org/freedesktop/portal/desktop"
    private static let interface = "org.freedesktop.portal.Settings"
    private static let namespace = "org.freedesktop.appearance", key = "color-scheme"
    // D-Bus type codes (the C macros are character casts Swift does not import).
    private static let stringType = Int32(UInt8(ascii: "s")), variantType = Int32(UInt8(ascii: "v"))
    private static let uint32Type = Int32(UInt8(ascii: "u"))

    private let bus: SessionBusConnection
    private var dbus: BadgeDBus { bus.dbus }
    private var readSerial: UInt32 = 0
    /// The portal's colour scheme: 1 dark, 2 light, 0 or nil no preference.
    package private(set) var colorScheme: UInt32?
    /// Called when ``colorScheme`` changes.
    package var onChange: (() -> Void)?

    /// Connects and asks the portal; nil (quietly) without a session bus or libdbus.
    package init?(environment address: String?) {
        guard let bus = SessionBusConnection(address: address), let connection = bus.connection else { return nil }
        self.bus = bus
        let dbus = bus.dbus
        // Without an error argument the match is sent without waiting for the bus's answer.
        let rule = "type='signal',interface='\(Self.interface)',member='SettingChanged',arg0='\(Self.namespace)'"
        dbus.bus_add_match(connection, rule, nil)
        guard let call = dbus.message_new_method_call(Self.service, Self.path, Self.interface, "Read") else { return }
        var iter = BadgeDBusMessageIter()
        dbus.message_iter_init_append(call, &iter)
        for argument in [Self.namespace, Self.key] {
            _ = argument.withCString { text in
                var pointer: UnsafePointer<CChar>? = text
                return dbus.message_iter_append_basic(&iter, Self.stringType, &pointer)
            }
        }
        var serial: UInt32 = 0
        _ = dbus.connection_send(connection, call, &serial)
        readSerial = serial
        dbus.message_unref(call)
    }

    /// The loop source "portal".
    package var source: EventLoop.Source {
        bus.source(named: "portal", onMessage: { [weak self] in self?.handle($0) }, onDisconnect: { [weak self] in self?.update(nil) })
    }

    /// Handles the read's reply and `SettingChanged`.
    private func handle(_ message: OpaquePointer) {
        let type = dbus.message_get_type(message)
        if type == BADGE_DBUS_MESSAGE_TYPE_METHOD_RETURN, dbus.message_get_reply_serial(message) == readSerial {
            var iter = BadgeDBusMessageIter()
            if dbus.message_iter_init(message, &iter) != 0 { update(value(at: &iter)) }
        } else if type == BADGE_DBUS_MESSAGE_TYPE_ERROR, dbus.message_get_reply_serial(message) == readSerial {
            update(nil)  // no portal, or no such setting
        } else if dbus.message_is_signal(message, Self.interface, "SettingChanged") != 0 {
            var iter = BadgeDBusMessageIter()
            guard dbus.message_iter_init(message, &iter) != 0, string(at: &iter) == Self.namespace,
                  dbus.message_iter_next(&iter) != 0, string(at: &iter) == Self.key,
                  dbus.message_iter_next(&iter) != 0 else { return }
            update(value(at: &iter))
        }
    }

    private func update(_ scheme: UInt32?) {
        guard scheme != colorScheme else { return }
        colorScheme = scheme
        onChange?()
    }

    private func string(at iter: inout BadgeDBusMessageIter) -> String? {
        guard dbus.message_iter_get_arg_type(&iter) == Self.stringType else { return nil }
        var pointer: UnsafePointer<CChar>?
        dbus.message_iter_get_basic(&iter, &pointer)
        return pointer.map { String(cString: $0) }
    }

    /// A uint32, unwrapping variants (the portal's Read answers a variant in a variant).
    private func value(at iter: inout BadgeDBusMessageIter) -> UInt32? {
        var current = iter
        for _ in 0..<4 {
            let type = dbus.message_iter_get_arg_type(&current)
            if type == Self.uint32Type {
                var value: UInt32 = 0
                dbus.message_iter_get_basic(&current, &value)
                return value
            }
            guard type == Self.variantType else { return nil }
            var inner = BadgeDBusMessageIter()
            dbus.message_iter_recurse(&current, &inner)
            current = inner
        }
        return nil
    }
}
