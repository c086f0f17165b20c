/// A D-Bus match rule (the specification's "Match Rules"): what a subscription of a
/// ``BusConnection`` asks the bus for (`AddMatch`) and, as sd-bus's match slots do, what picks out
/// the messages that reach it, so that no subscriber sees another's traffic.
///
/// The keys kept are those BadgeKit uses: `type`, `sender`, `interface`, `member`, `path` and
/// `argN` (a string argument, compared whole). A `sender` that is a well-known name is compared
/// with that name's current owner, which the connection follows for the rule's sake.
package struct DBusMatchRule: Hashable, Sendable, CustomStringConvertible {
    /// The message kind, or nil for any.
    package var kind: DBusMessage.Kind?
    /// The sender: a unique name, `org.freedesktop.DBus`, or a well-known name (its owner).
    package var sender: String?
    /// The interface.
    package var interface: String?
    /// The member (method or signal name).
    package var member: String?
    /// The object path.
    package var path: String?
    /// String arguments by position (`arg0='org.freedesktop.Notifications'`); an empty string is a
    /// real value (`arg2=''`: a name that lost its owner).
    package var arguments: [Int: String]

    /// A rule with these keys; every key left nil matches anything.
    package init(kind: DBusMessage.Kind? = nil, sender: String? = nil, interface: String? = nil, member: String? = nil,
                 path: String? = nil, arguments: [Int: String] = [:]) {
        self.kind = kind
        self.sender = sender
        self.interface = interface
        self.member = member
        self.path = path
        self.arguments = arguments
    }

    /// The signals `member` of `interface` (from `sender`, at `path`, with these arguments).
    package static func signal(_ interface: String, _ member: String, sender: String? = nil, path: String? = nil,
                               arguments: [Int: String] = [:]) -> DBusMatchRule {
        DBusMatchRule(kind: .signal, sender: sender, interface: interface, member: member, path: path, arguments: arguments)
    }

    /// The bus daemon's name and object.
    package static let busName = "org.freedesktop.DBus"

    /// The bus's `NameOwnerChanged` for `name` alone.
    package static func nameOwnerChanged(_ name: String) -> DBusMatchRule {
        .signal(busName, "NameOwnerChanged", sender: busName, arguments: [0: name])
    }

    /// The rule as the bus reads it: `type='signal',sender='…',…,arg0='…'`.
    package var description: String {
        var keys: [String] = []
        if let kind { keys.append("type='\(Self.typeName(kind))'") }
        if let sender { keys.append("sender='\(Self.quoted(sender))'") }
        if let interface { keys.append("interface='\(Self.quoted(interface))'") }
        if let member { keys.append("member='\(Self.quoted(member))'") }
        if let path { keys.append("path='\(Self.quoted(path))'") }
        for index in arguments.keys.sorted() { keys.append("arg\(index)='\(Self.quoted(arguments[index] ?? ""))'") }
        return keys.joined(separator: ",")
    }

    /// True when `message` meets every key; `owner` answers who owns a well-known ``sender`` now
    /// (nil: nobody, or not known yet, and then nothing from it matches).
    package func matches(_ message: DBusMessage, owner: (String) -> String? = { _ in nil }) -> Bool {
        if let kind, message.kind != kind { return false }
        if let interface, message.interface != interface { return false }
        if let member, message.member != member { return false }
        if let path, message.path != path { return false }
        if let sender {
            guard let from = message.sender else { return false }
            if Self.isOwnerless(sender) {
                if from != sender { return false }
            } else if owner(sender) != from {
                return false
            }
        }
        for (index, value) in arguments {
            guard index < message.body.count, message.body[index].stringValue == value else { return false }
        }
        return true
    }

    /// True for a name that is its own owner: a unique name (":1.42") or the bus itself.
    package static func isOwnerless(_ name: String) -> Bool { name.hasPrefix(":") || name == busName }

    /// The sender when it is a well-known name whose owner must be followed.
    package var followedSender: String? { sender.flatMap { Self.isOwnerless($0) ? nil : $0 } }

    private static func typeName(_ kind: DBusMessage.Kind) -> String {
        switch kind {
        case .methodCall: return "method_call"
        case .methodReturn: return "method_return"
        case .error: return "error"
        case .signal: return "signal"
        }
    }

    /// A value between single quotes: a quote is written as `'\''`, as the specification says.
    private static func quoted(_ value: String) -> String {
        value.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''")
    }
}
