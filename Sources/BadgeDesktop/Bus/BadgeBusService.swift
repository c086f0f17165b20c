import BadgeCore
import BadgeIO
import CDBusProtocol

/// A toolbar's badges on the session bus, for programs that would rather call a method than run a
/// client: a well-known name, and an object with the interface `io.github.badgekit.Badges1`.
///
/// - Methods: `Set(s id, x count)`, `Increment(s id, x step)`, `Decrement(s id, x step)`,
///   `Clear(s id)` (an empty id clears every button), `SetText(s id, s text)`, `ShowDot(s id, b blink)`.
///   Each changes the badge as input does, through the model's funnel
///   (`ToolbarModel.change(_:cause:_:)`, cause `control`): no window is involved.
/// - Read-only properties: `Buttons` (`as`, the ids in order), `Badges` (`a{sa{sv}}`: each id's
///   "kind", "text", and "count" or "blink"), `Version` (`u`, 1).
/// - Signals: `BadgeChanged(s id, a{sv} content)` on every change, and the standard
///   `PropertiesChanged` for `Badges` (and `Buttons` after ``toolbarReplaced()``).
/// - The standard Properties, Introspectable and Peer interfaces; bad calls get the standard
///   errors (`InvalidArgs`, `UnknownMethod`, `UnknownInterface`, `UnknownObject`, `PropertyReadOnly`).
///   Only the user's own connections may call (`AccessDenied` for others).
///
/// The service starts on a session bus (a toolbar host's, after its first frame) and asks for the name
/// without queueing; a name another program has is ``Status-swift.enum/taken`` (and taken over when
/// that program lets go). Nothing waits and no timer runs: idle costs no wakeups.
///
/// Forward the model's badge changes to ``badgeChanged(_:)`` and its replacements to
/// ``toolbarReplaced()`` (an application's outputs do). It lives in BadgeDesktop, with no X: a
/// toolbar host in BadgeX11 makes one for its model with `init(host:busName:objectPath:)`.
/// Not Sendable: event-loop thread only, like the model.
public final class BadgeBusService {
    /// Where the service stands on the bus.
    public enum Status: Equatable, Sendable {
        /// Not on a bus, and why (no session bus; the bus refused the name).
        case off(String)
        /// The bus is not there now, or its answer is awaited (with what happens).
        case waiting(String)
        /// The service owns its name: calls and signals go through it.
        case owned
        /// Another program owns the name; the service takes it when that program lets go. Calls to
        /// this connection's unique name are still answered.
        case taken
    }

    /// A bus name or object path that D-Bus does not allow.
    public struct InvalidName: Error, Equatable, Sendable, CustomStringConvertible {
        /// What is wrong, naming the value.
        public let description: String
    }

    /// The interface's name, `io.github.badgekit.Badges1`.
    public static let interfaceName = BadgeBusInterface.name
    /// The well-known name asked for.
    public let busName: String
    /// The object's path.
    public let objectPath: String
    /// Where the service stands now.
    public private(set) var status: Status = .waiting("the session bus starts after the first frame") {
        didSet { if status != oldValue { statusChanged() } }
    }
    /// Called with every new ``status``.
    public var onStatusChange: ((Status) -> Void)?
    /// Called with a line for the log when a call that expects no reply is refused (it cannot be
    /// told, so the log is the only place that says so): the first of each caller's refusals,
    /// then every 1,000th, with the count.
    public var onWarning: ((String) -> Void)?
    /// Marks items of a button read (`MarkRead`, `MarkAllRead`: keys nil), through the
    /// application's sources: nil when asked, else why not. Without it the calls are refused.
    public var onMarkRead: ((_ id: String, _ keys: [String]?) -> String?)?
    private var silentRefusals: [String: Int] = [:]

    /// How much may wait to be written before signals are dropped (a bus that does not read).
    package static let signalLimit = 1 << 20
    /// How much may wait before replies are dropped too (the caller's call then times out).
    package static let replyLimit = 8 << 20

    private weak var model: ToolbarModel?
    private let interface: BadgeBusInterface
    private var bus: BusConnection?
    private var claim: BusNameClaim?
    private var callers: BusCallerCheck?
    /// The `Badges` value last signalled (a change that leaves it as it was sends no PropertiesChanged).
    private var signalledBadges: DBusValue?

    /// Offers `model`'s badges as `objectPath` under the well-known name `busName`, on the session
    /// bus it is started on (a toolbar host's: BadgeX11's `init(host:busName:objectPath:)` starts it
    /// with the host's bus). Throws when either is not a valid D-Bus name.
    public init(model: ToolbarModel, busName: String, objectPath: String) throws(InvalidName) {
        guard DBusIntrospection.isValidBusName(busName) else {
            throw InvalidName(description: "\(InputEcho.quoted(busName, limit: 80)) is not a D-Bus bus name (two or more dot-separated elements of A-Z, a-z, 0-9, _ and -, not starting with a digit, at most 255 bytes)")
        }
        guard DBusIntrospection.isValidObjectPath(objectPath) else {
            throw InvalidName(description: "\(InputEcho.quoted(objectPath, limit: 80)) is not a D-Bus object path (\"/\"-separated elements of A-Z, a-z, 0-9 and _)")
        }
        self.model = model
        self.busName = busName
        self.objectPath = objectPath
        interface = BadgeBusInterface(path: objectPath)
    }

    deinit {
        bus?.unexport(objectPath)
    }

    /// `busName` for a profile of the application: the name itself for nil or "", else the name with
    /// `.p_` and the profile appended, each character that a bus name does not allow as `_`
    /// ("io.example.App" and "work-2" give "io.example.App.p_work_2"), cut to 255 bytes.
    public static func busName(_ busName: String, profile: String?) -> String {
        guard let profile, !profile.isEmpty else { return busName }
        let element = profile.unicodeScalars.map { scalar -> String in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_") ? String(scalar) : "_"
        }.joined()
        return String((busName + ".p_" + element).utf8.prefix(255)) ?? busName
    }

    /// Tells the service that `button`'s badge changed (forward every
    /// `ToolbarModel.Change.badge(_:cause:countRose:)` here): it sends `BadgeChanged`, and
    /// `PropertiesChanged` when `Badges` differs from what was last signalled.
    public func badgeChanged(_ button: ToolbarButton) {
        guard let bus, let model, canSignal(on: bus) else { return }
        bus.send(interface.badgeChanged(button))
        signalChanges(["Badges"], model: model, bus: bus)
    }

    /// Sends `ItemActivated(id, key)`: a person activated a producer's item in the peek.
    public func itemActivated(buttonID: String, key: String) {
        guard let bus, canSignal(on: bus) else { return }
        bus.send(interface.itemActivated(buttonID: buttonID, key: key))
    }

    /// Tells the service that the model shows another toolbar (`ToolbarModel.replace(toolbar:)`): it
    /// sends `PropertiesChanged` for `Buttons` and `Badges`.
    public func toolbarReplaced() {
        guard let bus, let model, canSignal(on: bus) else { return }
        signalChanges(["Buttons", "Badges"], model: model, bus: bus)
    }

    // MARK: The bus

    /// Puts the service on `bus` (nil: there is none, and the status says so).
    package func start(on bus: BusConnection?) {
        guard let bus else {
            status = .off("no session bus (DBUS_SESSION_BUS_ADDRESS is unset or unusable)")
            return
        }
        self.bus = bus
        let callers = BusCallerCheck(bus: bus)
        callers.onDecision = { [weak self] call, decision in self?.decided(call, decision) }
        self.callers = callers
        bus.export(objectPath) { [weak self] message in self?.callers?.admit(message) }
        let claim = BusNameClaim(name: busName, bus: bus)
        claim.onChange = { [weak self] in self?.follow($0) }
        self.claim = claim
        follow(claim.status)
    }

    private func follow(_ claim: BusNameClaim.Status) {
        switch claim {
        case .waiting(let reason): status = .waiting(reason)
        case .owned: status = .owned
        case .taken: status = .taken
        case .refused(let reason): status = .off(reason)
        }
    }

    private func statusChanged() {
        // Watchers read the properties when the name gets its owner: changes count from there.
        if status == .owned, let model { signalledBadges = BadgeBusInterface.badges(model.toolbar.buttons) }
        onStatusChange?(status)
    }

    private func canSignal(on bus: BusConnection) -> Bool {
        status == .owned && bus.isReady && bus.outgoingSize < Self.signalLimit
    }

    private func signalChanges(_ names: [String], model: ToolbarModel, bus: BusConnection) {
        let badges = BadgeBusInterface.badges(model.toolbar.buttons)
        guard names.contains("Buttons") || badges != signalledBadges else { return }
        signalledBadges = badges
        bus.send(interface.propertiesChanged(names, buttons: model.toolbar.buttons))
    }

    // MARK: Calls

    private func decided(_ call: DBusMessage, _ decision: BusCallerCheck.Decision) {
        switch decision {
        case .allowed: answer(call)
        case .refused(let failure):
            if call.noReplyExpected { reportSilentRefusal(call, failure) }
            reply(to: call, .failure(failure))
        }
    }

    private func reportSilentRefusal(_ call: DBusMessage, _ failure: DBusFailure) {
        let sender = call.sender ?? "a caller"
        let count = silentRefusals[sender, default: 0] + 1
        if silentRefusals.count > 256 { silentRefusals = [:] }
        silentRefusals[sender] = count
        guard count == 1 || count % 1000 == 0 else { return }
        onWarning?("refused \(count) call\(count == 1 ? "" : "s") to \(call.member ?? "?") from \(sender) that expected no reply: \(failure.message)")
    }

    private func answer(_ call: DBusMessage) {
        guard let model else {
            return reply(to: call, .failure(DBusFailure(DBUS_ERROR_UNKNOWN_OBJECT, "the toolbar at \(objectPath) is gone")))
        }
        if call.bodyError != nil { return reply(to: call, .failure(.unreadableArguments(call.signature))) }
        let answer = interface.answer(DBusRequest(call), buttons: model.toolbar.buttons)
        // The call is an input like any other: each change goes through the model's funnel, and
        // this service hears of it, as every output does, through ``badgeChanged(_:)``.
        if case .change(let ids, let change) = answer {
            for id in ids {
                guard let button = model.toolbar.button(id: id) else { continue }
                model.apply(change, to: button, cause: .control, verb: call.member ?? "")
            }
        }
        if case .markRead(let id, let keys) = answer {
            // The sources are the application's: it marks, or says why not.
            let refusal = onMarkRead.map { $0(id, keys) } ?? "\(id.prefix(40)) has no source to mark anything read"
            if let refusal { return reply(to: call, .failure(DBusFailure(DBUS_ERROR_INVALID_ARGS, "\(call.member ?? ""): \(refusal)"))) }
        }
        reply(to: call, answer)
    }

    private func reply(to call: DBusMessage, _ answer: BadgeBusInterface.Reply) {
        guard let bus else { return }
        let message: DBusMessage
        switch answer {
        case .values(let values): message = .methodReturn(to: call, values: values)
        case .failure(let failure): message = .error(to: call, name: failure.name, text: failure.message)
        case .change, .markRead: message = .methodReturn(to: call)
        }
        bus.answer(call, with: message, limit: Self.replyLimit)
    }
}
