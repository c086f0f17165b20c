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

    private let bus: BusConnection
    private var dbus: BadgeDBus { bus.dbus }
    /// The portal's colour scheme: 1 dark, 2 light, 0 or nil no preference.
    package private(set) var colorScheme: UInt32?
    /// Called when ``colorScheme`` changes.
    package var onChange: (() -> Void)?

    /// Asks the portal on `bus` and follows its changes; nil when the connection is gone.
    package init?(bus: BusConnection) {
        guard let connection = bus.connection else { return nil }
        self.bus = bus
        // Without an error argument the match is sent without waiting for the bus's answer.
        let rule = "type='signal',interface='\(Self.interface)',member='SettingChanged',arg0='\(Self.namespace)'"
        bus.dbus.bus_add_match(connection, rule, nil)
        bus.call(Self.service, path: Self.path, interface: Self.interface, member: "Read",
                 arguments: [.string(Self.namespace), .string(Self.key)]) { [weak self] values in
            // No portal, or no such setting: no preference.
            self?.update(values.flatMap { $0.first.flatMap(Self.scheme) })
        }
        bus.listen { [weak self] in self?.handle($0) }
    }

    /// Follows `SettingChanged`.
    private func handle(_ message: OpaquePointer) {
        guard dbus.message_is_signal(message, Self.interface, "SettingChanged") != 0,
              let values = dbus.arguments(of: message), values.count == 3,
              values[0].stringValue == Self.namespace, values[1].stringValue == Self.key else { return }
        update(Self.scheme(values[2]))
    }

    /// A uint32, unwrapping variants (the portal's Read answers a variant in a variant).
    private static func scheme(_ value: DBusValue) -> UInt32? {
        switch value {
        case .uint32(let scheme): return scheme
        case .variant(let inner): return scheme(inner)
        default: return nil
        }
    }

    /// The session bus went away: no preference any more.
    package func busWentAway() { update(nil) }

    private func update(_ scheme: UInt32?) {
        guard scheme != colorScheme else { return }
        colorScheme = scheme
        onChange?()
    }
}
