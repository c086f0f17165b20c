import BadgeIO
import CDBusProtocol
import Glibc

/// A StatusNotifierItem on the session bus (the KDE/freedesktop tray protocol that KDE Plasma,
/// GNOME's AppIndicator extension, waybar, xfce4-panel and others host): the name
/// `org.kde.StatusNotifierItem-<pid>-<n>`, the object `/StatusNotifierItem` with the interface
/// `org.kde.StatusNotifierItem` (also answered as `org.freedesktop.StatusNotifierItem`), registered
/// with the watcher (`RegisterStatusNotifierItem`) under `org.kde.StatusNotifierWatcher` or
/// `org.freedesktop.StatusNotifierWatcher`, and again whenever a watcher gets a new owner.
///
/// - Properties: `Category` ("ApplicationStatus"), `Id`, `Title`, `Status` (Active or
///   NeedsAttention), `WindowId`, `IconName` (""), `IconPixmap` (`a(iiay)`, ARGB32 in network byte
///   order, from ``pixmaps``), `OverlayIconName`, `AttentionIconName`, `AttentionIconPixmap`,
///   `ToolTip` (`(sa(iiay)ss)`), `ItemIsMenu` (false), `Menu` ("/NO_DBUSMENU").
/// - Methods: `Activate(ii)` and `SecondaryActivate(ii)` (``onActivate``), `ContextMenu(ii)` and
///   `Scroll(is)` (accepted, nothing done), `ProvideXdgActivationToken(s)`; the standard
///   Properties, Introspectable and Peer interfaces, with the standard errors.
/// - Signals: `NewIcon`, `NewStatus(s)`, `NewToolTip`, `NewTitle`.
///
/// Nothing waits and nothing is timed: the watcher's coming and going arrive as signals. Not
/// Sendable: event-loop thread only.
package final class StatusNotifierItem {
    /// The object's path.
    package static let path = "/StatusNotifierItem"
    /// The item's interface.
    package static let interface = "org.kde.StatusNotifierItem"
    /// The interface names answered (KDE's, and the freedesktop spelling some hosts ask for).
    package static let interfaces = [interface, "org.freedesktop.StatusNotifierItem"]
    /// The watchers' names, in the order they are tried.
    package static let watchers = ["org.kde.StatusNotifierWatcher", "org.freedesktop.StatusNotifierWatcher"]

    /// The item's id (the application's).
    package let id: String
    /// The well-known name it owns.
    package let busName: String
    /// The title.
    package var title: String {
        didSet { if title != oldValue { signal("NewTitle") } }
    }
    /// The window the item stands for (0 for none).
    package var windowID: UInt32 = 0
    /// "Active" or "NeedsAttention" ("Passive" asks hosts to hide the item).
    package var status = "Active" {
        didSet { if status != oldValue { signal("NewStatus", [.string(status)]) } }
    }
    /// The tooltip's text (the counts per button).
    package var tooltip = "" {
        didSet { if tooltip != oldValue { signal("NewToolTip") } }
    }
    /// The icon at each size: side in pixels and its ARGB32 bytes in network order; asked for only
    /// when a host reads `IconPixmap`.
    package var pixmaps: (() -> [(side: Int, argb: [UInt8])])?
    /// Called with the screen point of an `Activate` (a click) or `SecondaryActivate` (a middle click).
    package var onActivate: ((_ primary: Bool) -> Void)?
    /// Called with the screen point of a `ContextMenu(x, y)` (the host's right click).
    package var onContextMenu: ((_ x: Int, _ y: Int) -> Void)?
    /// Called when the item becomes or stops being registered with a watcher.
    package var onRegistrationChange: (() -> Void)?

    /// The watcher the item is registered with now, or nil.
    package private(set) var watcher: String?
    /// True once it is known whether a watcher took the item (registered, refused, none there, no
    /// bus): until then, a caller that would show another icon instead waits.
    package private(set) var isSettled = false

    private let bus: BusConnection
    private let claim: BusNameClaim
    /// Bumped on every reconnection and new lookup: answers to older attempts are ignored.
    private var attempt = 0

    /// Puts the item on `bus` as `org.kde.StatusNotifierItem-<pid>-<instance>` and registers it
    /// with the watcher, now and whenever one appears.
    package init(bus: BusConnection, id: String, title: String, instance: Int = 1) {
        self.bus = bus
        self.id = id
        self.title = title
        busName = "org.kde.StatusNotifierItem-\(getpid())-\(instance)"
        claim = BusNameClaim(name: busName, bus: bus)
        bus.export(Self.path) { [weak self] call in self?.answer(call) }
        for name in Self.watchers {
            bus.subscribe(.nameOwnerChanged(name)) { [weak self] message in self?.heard(message) }
        }
        bus.whenReady { [weak self] _ in self?.start() }
        bus.whenLost { [weak self] _ in self?.lost() }
    }

    deinit {
        bus.unexport(Self.path)
        guard bus.isReady else { return }
        var release = DBusMessage.call("org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                                       member: "ReleaseName", arguments: [.string(busName)])
        release.flags |= DBusMessage.noReplyExpectedFlag
        bus.send(release)
    }

    /// Tells hosts that the icon changed (they read `IconPixmap` again).
    package func iconChanged() {
        signal("NewIcon")
    }

    // MARK: Registration

    private func start() {
        // The claim asks for the name first (it set itself up before this handler): the watcher
        // reads the name's owner after the bus has handled that request.
        lookUp(Self.watchers[...])
    }

    /// Asks who owns each watcher name in turn and registers with the first that has an owner.
    private func lookUp(_ names: ArraySlice<String>) {
        attempt += 1
        let current = attempt
        guard let name = names.first else {
            settle(watcher: nil)
            return
        }
        bus.call("org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus", member: "GetNameOwner",
                 arguments: [.string(name)]) { [weak self] values in
            guard let self, current == self.attempt else { return }
            if values?.first?.stringValue?.isEmpty == false {
                self.register(with: name, fallingBackTo: names.dropFirst())
            } else {
                self.lookUp(names.dropFirst())
            }
        }
    }

    private func register(with watcher: String, fallingBackTo others: ArraySlice<String>) {
        attempt += 1
        let current = attempt
        bus.call(watcher, path: "/StatusNotifierWatcher", interface: watcher, member: "RegisterStatusNotifierItem",
                 arguments: [.string(busName)]) { [weak self] values in
            guard let self, current == self.attempt else { return }
            if values != nil {
                self.settle(watcher: watcher)
            } else {
                self.lookUp(others)
            }
        }
    }

    private func settle(watcher: String?) {
        let changed = watcher != self.watcher || !isSettled
        self.watcher = watcher
        isSettled = true
        if changed { onRegistrationChange?() }
    }

    private func lost() {
        attempt += 1
        settle(watcher: nil)
    }

    private func heard(_ message: DBusMessage) {
        guard message.isSignal("org.freedesktop.DBus", "NameOwnerChanged"), message.sender == "org.freedesktop.DBus",
              message.body.count == 3, let name = message.body[0].stringValue, Self.watchers.contains(name),
              let owner = message.body[2].stringValue else { return }
        if !owner.isEmpty {
            register(with: name, fallingBackTo: [])
        } else if watcher == name {
            // Gone: another watcher may still be there.
            settle(watcher: nil)
            lookUp(Self.watchers.filter { $0 != name }[...])
        }
    }

    // MARK: Calls

    private func answer(_ call: DBusMessage) {
        let request = DBusRequest(call)
        let result: Result<[DBusValue], DBusFailure>
        if call.bodyError != nil {
            result = .failure(.unreadableArguments(call.signature))
        } else if let peer = request.peerAnswer {
            result = peer
        } else if let access = request.propertyAccess {
            result = access.flatMap(property)
        } else if request.interface == DBusFailure.introspectableInterface || (request.interface.isEmpty && request.member == "Introspect") {
            result = request.member == "Introspect" && request.signature.isEmpty
                ? .success([.string(DBusIntrospection.document(interfaces: [Self.introspection] + DBusIntrospection.standardInterfaces))])
                : .failure(.unknownMethod(request))
        } else if request.interface.isEmpty || Self.interfaces.contains(request.interface) {
            result = method(request)
        } else {
            result = .failure(.unknownInterface(request.interface, at: Self.path))
        }
        let reply: DBusMessage
        switch result {
        case .success(let values): reply = .methodReturn(to: call, values: values)
        case .failure(let failure): reply = .error(to: call, name: failure.name, text: failure.message)
        }
        bus.answer(call, with: reply)
    }

    private func method(_ request: DBusRequest) -> Result<[DBusValue], DBusFailure> {
        let expected: String
        switch request.member {
        case "Activate", "SecondaryActivate", "ContextMenu": expected = "ii"
        case "Scroll": expected = "is"
        case "ProvideXdgActivationToken": expected = "s"
        default: return .failure(.unknownMethod(request))
        }
        guard request.signature == expected else { return .failure(.wrongSignature(request, expected: expected)) }
        switch request.member {
        case "Activate": onActivate?(true)
        case "SecondaryActivate": onActivate?(false)
        case "ContextMenu":
            let point = (request.arguments[0].integerValue ?? 0, request.arguments[1].integerValue ?? 0)
            onContextMenu?(Int(clamping: point.0), Int(clamping: point.1))
        default: break
        }
        return .success([])
    }

    private func property(_ access: DBusRequest.PropertyAccess) -> Result<[DBusValue], DBusFailure> {
        switch access {
        case .get(let interface, let name):
            guard Self.interfaces.contains(interface) else { return .failure(.unknownInterface(interface, at: Self.path)) }
            guard let value = properties(only: name).first?.1 else { return .failure(.unknownProperty(name, of: interface)) }
            return .success([.variant(value)])
        case .getAll(let interface):
            guard Self.interfaces.contains(interface) else { return .failure(.unknownInterface(interface, at: Self.path)) }
            return .success([.dictionary(properties(only: nil))])
        case .set(let interface, let name, _):
            return .failure(.readOnly(name, of: interface))
        }
    }

    /// The properties (all, or the one named), computed when asked: the pixmaps only then.
    private func properties(only wanted: String?) -> [(String, DBusValue)] {
        let names = ["Category", "Id", "Title", "Status", "WindowId", "IconName", "IconPixmap", "OverlayIconName",
                     "AttentionIconName", "AttentionIconPixmap", "ToolTip", "ItemIsMenu", "Menu"]
        return names.filter { wanted == nil || $0 == wanted }.map { name in
            switch name {
            case "Category": return (name, .string("ApplicationStatus"))
            case "Id": return (name, .string(id))
            case "Title": return (name, .string(title))
            case "Status": return (name, .string(status))
            case "WindowId": return (name, .uint32(windowID))
            case "IconPixmap": return (name, iconPixmap())
            case "AttentionIconPixmap": return (name, .array(element: "(iiay)", []))
            case "ToolTip": return (name, .structure([.string(""), .array(element: "(iiay)", []), .string(title), .string(tooltip)]))
            case "ItemIsMenu": return (name, .bool(false))
            case "Menu": return (name, .objectPath("/NO_DBUSMENU"))
            default: return (name, .string(""))
            }
        }
    }

    private func iconPixmap() -> DBusValue {
        let icons = pixmaps?() ?? []
        return .array(element: "(iiay)", icons.map { icon in
            .structure([.int32(Int32(icon.side)), .int32(Int32(icon.side)), .array(element: "y", icon.argb.map { .byte($0) })])
        })
    }

    private func signal(_ member: String, _ arguments: [DBusValue] = []) {
        guard bus.isReady, watcher != nil else { return }
        bus.send(.signal(path: Self.path, interface: Self.interface, member: member, arguments: arguments))
    }

    private static let introspection = """
          <interface name="\(interface)">
            <property name="Category" type="s" access="read"/>
            <property name="Id" type="s" access="read"/>
            <property name="Title" type="s" access="read"/>
            <property name="Status" type="s" access="read"/>
            <property name="WindowId" type="u" access="read"/>
            <property name="IconName" type="s" access="read"/>
            <property name="IconPixmap" type="a(iiay)" access="read"/>
            <property name="OverlayIconName" type="s" access="read"/>
            <property name="AttentionIconName" type="s" access="read"/>
            <property name="AttentionIconPixmap" type="a(iiay)" access="read"/>
            <property name="ToolTip" type="(sa(iiay)ss)" access="read"/>
            <property name="ItemIsMenu" type="b" access="read"/>
            <property name="Menu" type="o" access="read"/>
            <method name="Activate"><arg name="x" type="i" direction="in"/><arg name="y" type="i" direction="in"/></method>
            <method name="SecondaryActivate"><arg name="x" type="i" direction="in"/><arg name="y" type="i" direction="in"/></method>
            <method name="ContextMenu"><arg name="x" type="i" direction="in"/><arg name="y" type="i" direction="in"/></method>
            <method name="Scroll"><arg name="delta" type="i" direction="in"/><arg name="orientation" type="s" direction="in"/></method>
            <method name="ProvideXdgActivationToken"><arg name="token" type="s" direction="in"/></method>
            <signal name="NewTitle"/>
            <signal name="NewIcon"/>
            <signal name="NewToolTip"/>
            <signal name="NewStatus"><arg name="status" type="s"/></signal>
          </interface>

        """
}
