import BadgeX11

/// Publishes the total count to docks and taskbars through the Unity LauncherEntry D-Bus API:
/// the signal `com.canonical.Unity.LauncherEntry.Update` with the app's desktop-file URI and
/// {"count": x, "count-visible": b, "urgent": b}.
///
/// On the host's session bus (``ToolbarHost/sessionBus``), which exists only when a session bus is
/// configured (DBUS_SESSION_BUS_ADDRESS). While the bus is away nothing is sent; every time the bus
/// greets the connection again, and every time `com.canonical.Unity` gets a new owner (a dock started
/// after the app), the latest values are sent anew, so a dock sees the count.
/// Signals need no reply: each is queued and written without waiting. Not Sendable: event-loop thread only.
final class LauncherEntry {
    /// The application URI docks match against their .desktop files ("application://badge-demo.desktop").
    let applicationURI: String
    /// The object path the signal is sent from ("/com/canonical/unity/launcherentry/badge_demo").
    let objectPath: String

    private let bus: BusConnection
    /// The values to show, and the last ones sent on the current connection.
    private var wanted: (count: Int, urgent: Bool)?
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
        bus.whenReady { [weak self] _ in self?.republish() }
        // A dock started (or restarted) after the app: Unity's name gets a new owner, which has not
        // seen the count (signals are not kept), so it is sent again.
        bus.subscribe(.nameOwnerChanged(Self.dockName)) { [weak self] message in
            guard message.body.count == 3, let owner = message.body[2].stringValue, !owner.isEmpty else { return }
            self?.republish()
        }
    }

    /// The name a Unity-style dock owns on the session bus.
    static let dockName = "com.canonical.Unity"

    /// Sends the latest values again, whatever was sent before.
    private func republish() {
        guard let wanted else { return }
        last = nil
        publish(count: wanted.count, urgent: wanted.urgent)
    }

    /// Sends Update when the values differ from the last ones sent.
    func publish(count: Int, urgent: Bool) {
        wanted = (count, urgent)
        let visible = count > 0
        if let last, last.count == count, last.visible == visible, last.urgent == urgent { return }
        guard bus.isReady else { return }
        let properties = DBusValue.dictionary([("count", .int64(Int64(count))), ("count-visible", .bool(visible)),
                                               ("urgent", .bool(urgent))])
        guard bus.send(.signal(path: objectPath, interface: "com.canonical.Unity.LauncherEntry", member: "Update",
                               arguments: [.string(applicationURI), properties])) != nil else { return }
        last = (count, visible, urgent)
    }
}
