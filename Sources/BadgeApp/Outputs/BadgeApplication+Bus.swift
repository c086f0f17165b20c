import BadgeCore
import BadgeControl
import BadgeX11

/// The badges on the session bus (`io.github.badgekit.Badges1`, see docs/dbus.md): the shell's
/// ``BadgeBusService`` under the demo's name, told every change.
extension BadgeApplication {
    /// The demo's well-known name on the session bus (the default profile's): its application id,
    /// as in its AppStream metainfo.
    static let defaultBusName = "io.github.badgekit.BadgeDemo"
    /// The demo's object.
    static let busObjectPath = "/io/github/badgekit/BadgeDemo"

    /// The bus name of `profile`: the plain name for the default profile (nil or ""), else with
    /// `.p_<profile>` appended (`-` and anything else a bus name does not allow become `_`).
    static func busName(forProfile profile: String?) -> String {
        BadgeBusService.busName(defaultBusName, profile: profile)
    }

    /// Offers the badges on the session bus under ``busName`` (after the first frame, when the host's
    /// session bus starts). A name D-Bus does not allow is reported and the app goes on without.
    func startBusService(_ host: ToolbarHost) {
        guard busService == nil else { return }
        do {
            let service = try BadgeBusService(host: host, busName: busName, objectPath: Self.busObjectPath)
            service.onMarkRead = { [weak self] id, keys in
                guard let bindings = self?.bindings else { return "\(id.prefix(40)) has no source to mark anything read" }
                // A D-Bus error reply is for programs: in English (docs/desktop.md).
                return bindings.markRead(id, keys: keys)?.english
            }
            service.onStatusChange = { [busName] status in
                switch status {
                case .taken:
                    StandardError.say(Sentence("another program owns %s on the session bus; carrying on without it (it is taken over when that program quits)", .text(busName)))
                case .off(let reason):
                    StandardError.say(Sentence("no D-Bus interface: %s", .text(reason)))
                case .owned, .waiting:
                    break
                }
            }
            service.onWarning = { StandardError.say(Sentence("D-Bus: %s", .text("\($0)"))) }
            busService = service
            board.observe(service)
        } catch {
            StandardError.say(Sentence("no D-Bus interface: %s", .text("\(error)")))
            busFailure = error.description
        }
    }

    /// The `dbus` field of `state`: "status" (owned, taken, waiting or off, with a "reason" for the
    /// last two), "name", "path" and "interface".
    var busState: JSONValue {
        var fields: [(String, JSONValue)]
        switch busService?.status {
        case .owned?: fields = [("status", .string("owned"))]
        case .taken?: fields = [("status", .string("taken"))]
        case .waiting(let reason)?: fields = [("status", .string("waiting")), ("reason", .string(reason))]
        case .off(let reason)?: fields = [("status", .string("off")), ("reason", .string(reason))]
        case nil:
            fields = busFailure.map { [("status", .string("off")), ("reason", .string($0))] }
                ?? [("status", .string("waiting")), ("reason", .string("the session bus starts after the first frame"))]
        }
        return .object(fields + [("name", .string(busName)), ("path", .string(Self.busObjectPath)),
                                 ("interface", .string(BadgeBusService.interfaceName))])
    }
}
