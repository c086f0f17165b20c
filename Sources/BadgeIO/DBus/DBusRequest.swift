import CDBusProtocol

/// A method call as a service answers it: the object path, interface, member, and the arguments
/// with their signature. Pure, so that every answer (and every standard error) is tested without a bus.
package struct DBusRequest: Sendable {
    /// The object path called.
    package var path: String
    /// The interface ("" when the caller named none).
    package var interface: String
    /// The method.
    package var member: String
    /// The arguments' signature.
    package var signature: String
    /// The arguments.
    package var arguments: [DBusValue]

    /// A call.
    package init(path: String, interface: String, member: String, signature: String? = nil, arguments: [DBusValue] = []) {
        self.path = path
        self.interface = interface
        self.member = member
        self.signature = signature ?? DBusValue.signature(of: arguments)
        self.arguments = arguments
    }

    /// The call `message` carries.
    package init(_ message: DBusMessage) {
        self.init(path: message.path ?? "", interface: message.interface ?? "", member: message.member ?? "",
                  signature: message.signature, arguments: message.body)
    }

    /// The `index`th argument's string, or "" (after the signature was checked, it is there).
    package func string(_ index: Int) -> String {
        index < arguments.count ? arguments[index].stringValue ?? "" : ""
    }

    /// The answer to `org.freedesktop.DBus.Peer` (the same for every object of a connection), or nil
    /// for another interface.
    package var peerAnswer: Result<[DBusValue], DBusFailure>? {
        guard interface == DBusFailure.peerInterface else { return nil }
        switch (member, signature) {
        case ("Ping", ""): return .success([])
        case ("GetMachineId", ""): return .failure(DBusFailure(DBUS_ERROR_NOT_SUPPORTED, "no machine id here"))
        default: return .failure(.unknownMethod(self))
        }
    }

    /// What a call of `org.freedesktop.DBus.Properties` asks for.
    package enum PropertyAccess: Equatable, Sendable {
        /// `Get(s interface, s name)`.
        case get(interface: String, name: String)
        /// `GetAll(s interface)`.
        case getAll(interface: String)
        /// `Set(s interface, s name, v value)`.
        case set(interface: String, name: String, value: DBusValue)
    }

    /// The Properties call this is, with its signature checked: nil for another interface; an error
    /// for an unknown member or a wrong signature.
    package var propertyAccess: Result<PropertyAccess, DBusFailure>? {
        guard interface == DBusFailure.propertiesInterface else { return nil }
        switch (member, signature) {
        case ("Get", "ss"): return .success(.get(interface: string(0), name: string(1)))
        case ("GetAll", "s"): return .success(.getAll(interface: string(0)))
        case ("Set", "ssv"):
            guard case .variant(let value) = arguments[2] else { return .failure(.wrongSignature(self, expected: "ssv")) }
            return .success(.set(interface: string(0), name: string(1), value: value))
        case ("Get", _): return .failure(.wrongSignature(self, expected: "ss"))
        case ("GetAll", _): return .failure(.wrongSignature(self, expected: "s"))
        case ("Set", _): return .failure(.wrongSignature(self, expected: "ssv"))
        default: return .failure(.unknownMethod(self))
        }
    }
}

/// A standard D-Bus error reply (`org.freedesktop.DBus.Error.…`) with a message for people.
package struct DBusFailure: Error, Equatable, Sendable {
    /// The error name.
    package var name: String
    /// What went wrong, for people.
    package var message: String

    /// The error `name` saying `message`.
    package init(_ name: String, _ message: String) {
        self.name = name
        self.message = message
    }

    /// The standard interfaces every object has.
    package static let propertiesInterface = "org.freedesktop.DBus.Properties"
    /// D-Bus introspection.
    package static let introspectableInterface = "org.freedesktop.DBus.Introspectable"
    /// D-Bus ping.
    package static let peerInterface = "org.freedesktop.DBus.Peer"

    /// `UnknownMethod`: no such member (with this signature) at the path.
    package static func unknownMethod(_ request: DBusRequest) -> DBusFailure {
        DBusFailure(DBUS_ERROR_UNKNOWN_METHOD,
                    "\(request.interface.isEmpty ? "no interface" : request.interface) has no method \(request.member)(\(request.signature)) at \(request.path)")
    }

    /// `InvalidArgs`: the member takes other arguments.
    package static func wrongSignature(_ request: DBusRequest, expected: String) -> DBusFailure {
        DBusFailure(DBUS_ERROR_INVALID_ARGS, "\(request.interface).\(request.member) takes (\(expected)), not (\(request.signature))")
    }

    /// `UnknownInterface`: the object has no such interface.
    package static func unknownInterface(_ interface: String, at path: String) -> DBusFailure {
        DBusFailure(DBUS_ERROR_UNKNOWN_INTERFACE, "\(path) has no interface \(interface)")
    }

    /// `UnknownProperty`.
    package static func unknownProperty(_ name: String, of interface: String) -> DBusFailure {
        DBusFailure(DBUS_ERROR_UNKNOWN_PROPERTY, "\(interface) has no property \(name)")
    }

    /// `PropertyReadOnly`.
    package static func readOnly(_ name: String, of interface: String) -> DBusFailure {
        DBusFailure(DBUS_ERROR_PROPERTY_READ_ONLY, "\(interface).\(name) is read-only")
    }

    /// `UnknownObject`: nothing at the path.
    package static func unknownObject(_ path: String, what: String = "object") -> DBusFailure {
        DBusFailure(DBUS_ERROR_UNKNOWN_OBJECT, "no \(what) at \(path)")
    }

    /// `InvalidArgs` for a body of a type no method reads (a file descriptor, say).
    package static func unreadableArguments(_ signature: String) -> DBusFailure {
        DBusFailure(DBUS_ERROR_INVALID_ARGS, "arguments of type (\(signature)) are not understood")
    }
}
