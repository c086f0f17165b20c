import BadgeIO
import Glibc

/// The XDG desktop portal's `org.freedesktop.appearance` `color-scheme` (0 no preference, 1 prefer
/// dark, 2 prefer light), read once and then followed through `SettingChanged`, on the session bus.
///
/// Only with a session bus (`DBUS_SESSION_BUS_ADDRESS`). Nothing blocks: the read is sent each time
/// the bus greets the connection and its reply handled when it comes, as signals are; no portal (or
/// no bus, or a bus that goes away) means no preference. Not Sendable: event-loop thread only.
package final class PortalAppearance {
    private static let service = "org.freedesktop.portal.Desktop"
    private static let path = "/org/freedesktop/portal/desktop"
    private static let interface = "org.freedesktop.portal.Settings"
    private static let namespace = "org.freedesktop.appearance", key = "color-scheme"

    private let bus: BusConnection
    /// The portal's colour scheme: 1 dark, 2 light, 0 or nil no preference.
    package private(set) var colorScheme: UInt32?
    /// Called when ``colorScheme`` changes.
    package var onChange: (() -> Void)?

    /// Asks the portal on `bus` (now, or once it is greeted, and again after every reconnection) and
    /// follows its changes.
    package init(bus: BusConnection) {
        self.bus = bus
        bus.subscribe(.signal(Self.interface, "SettingChanged", arguments: [0: Self.namespace])) { [weak self] in self?.handle($0) }
        bus.whenReady { [weak self] _ in self?.read() }
        bus.whenLost { [weak self] _ in self?.update(nil) }
    }

    private func read() {
        bus.call(Self.service, path: Self.path, interface: Self.interface, member: "Read",
                 arguments: [.string(Self.namespace), .string(Self.key)]) { [weak self] values in
            // No portal, or no such setting: no preference.
            self?.update(values.flatMap { $0.first.flatMap(Self.scheme) })
        }
    }

    /// Follows `SettingChanged`.
    private func handle(_ message: DBusMessage) {
        let values = message.body
        guard message.isSignal(Self.interface, "SettingChanged"), values.count == 3,
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

    private func update(_ scheme: UInt32?) {
        guard scheme != colorScheme else { return }
        colorScheme = scheme
        onChange?()
    }
}
