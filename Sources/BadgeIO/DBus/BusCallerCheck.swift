import CDBusProtocol
import Glibc

/// Lets through only the method calls of this user's own connections: the bus is asked for each new
/// caller's uid (`GetConnectionUnixUser`), once per unique name (a unique name is never reused on a
/// bus), and calls from any other uid, or one the bus cannot vouch for, are refused with
/// `AccessDenied`. A session bus normally lets only its user in; this holds when it does not (a
/// bus configured for anonymous or other users' clients).
///
/// Calls wait for their caller's answer in order, without blocking; how many may wait is bounded
/// (`LimitsExceeded` beyond). The bound is one no honest burst reaches: a new connection may
/// send ``waitingCallsLimit`` calls (100,000, about 40 MB at worst) before the bus has said who it is,
/// since a call sent with NO_REPLY_EXPECTED could not be told that it was refused. A refusal
/// past it is still told to ``onDecision`` (and so to the log).
///
/// A caller that sent its calls and left before the bus could say who it was (a burst of
/// no-reply calls from a script that exits) is judged by the bus itself: a bus daemon that runs
/// as this user admits only this user's connections unless its configuration says otherwise
/// (dbus-daemon's default policy), so the calls are accepted there; on any other bus they are
/// refused, and the refusal is told. Not Sendable: event-loop thread only.
package final class BusCallerCheck {
    /// What becomes of a call.
    package enum Decision: Equatable, Sendable {
        /// Answer it.
        case allowed
        /// Refuse it with this error.
        case refused(DBusFailure)
    }

    /// How many callers' answers are kept (all are forgotten when there are more).
    package static let knownLimit = 512
    /// How many callers may wait for the bus's answer, and how many calls may wait in all.
    package static let waitingCallersLimit = 64, waitingCallsLimit = 100_000
    private static let busName = "org.freedesktop.DBus", busPath = "/org/freedesktop/DBus"

    /// Told what becomes of each call, in the order each caller sent them.
    package var onDecision: (DBusMessage, Decision) -> Void = { _, _ in }

    private let bus: BusConnection
    private let uid: UInt32
    /// Each caller's uid, nil where the bus did not say.
    private var known: [String: UInt32?] = [:]
    private var waiting: [String: [DBusMessage]] = [:]
    private var waitingCalls = 0

    /// Checks the callers on `bus` against `uid` (this process's, unless given).
    package init(bus: BusConnection, uid: UInt32 = getuid()) {
        self.bus = bus
        self.uid = uid
        bus.whenLost { [weak self] _ in
            // A new connection may be to a new bus (names start over); the calls waiting went with the old one.
            self?.known = [:]
            self?.waiting = [:]
            self?.waitingCalls = 0
        }
    }

    /// Decides on `call`: at once for a caller seen before, after the bus's answer for a new one.
    package func admit(_ call: DBusMessage) {
        guard let sender = call.sender, !sender.isEmpty else {
            return onDecision(call, .refused(DBusFailure(DBUS_ERROR_ACCESS_DENIED, "calls without a sender are not accepted")))
        }
        if let uid = known[sender] { return onDecision(call, decision(sender, uid)) }
        if waiting[sender] != nil {
            guard waitingCalls < Self.waitingCallsLimit else {
                return onDecision(call, .refused(DBusFailure(DBUS_ERROR_LIMITS_EXCEEDED, "more than \(Self.waitingCallsLimit) calls wait for the bus to say who \(sender) is")))
            }
            waiting[sender, default: []].append(call)
            waitingCalls += 1
            return
        }
        guard waiting.count < Self.waitingCallersLimit, waitingCalls < Self.waitingCallsLimit else {
            return onDecision(call, .refused(DBusFailure(DBUS_ERROR_LIMITS_EXCEEDED, "too many new callers at once")))
        }
        waiting[sender] = [call]
        waitingCalls += 1
        bus.call(Self.busName, path: Self.busPath, interface: Self.busName, member: "GetConnectionUnixUser",
                 arguments: [.string(sender)]) { [weak self] values in
            guard let self, self.waiting[sender] != nil else { return }
            if case .uint32(let uid)? = values?.first { return self.decide(sender, uid: uid) }
            // No answer: is the caller still there? A caller that left is vouched for by the bus's owner.
            self.bus.call(Self.busName, path: Self.busPath, interface: Self.busName, member: "NameHasOwner",
                          arguments: [.string(sender)]) { [weak self] values in
                guard let self else { return }
                let left = values?.first == .bool(false)
                self.decide(sender, uid: left && self.bus.daemonUID == self.uid ? self.uid : nil)
            }
        }
    }

    /// Decides on every call of `sender` that waits, and on its later ones, by `uid`.
    private func decide(_ sender: String, uid: UInt32?) {
        guard let calls = waiting.removeValue(forKey: sender) else { return }
        waitingCalls -= calls.count
        if known.count >= Self.knownLimit { known = [:] }
        known[sender] = .some(uid)
        let decision = decision(sender, uid)
        for call in calls { onDecision(call, decision) }
    }

    private func decision(_ sender: String, _ callerUID: UInt32?) -> Decision {
        guard let callerUID else {
            return .refused(DBusFailure(DBUS_ERROR_ACCESS_DENIED, "the bus does not say which user \(sender) is; only user \(uid) may call"))
        }
        guard callerUID == uid else {
            return .refused(DBusFailure(DBUS_ERROR_ACCESS_DENIED, "user \(callerUID) may not call; only user \(uid) may"))
        }
        return .allowed
    }
}
