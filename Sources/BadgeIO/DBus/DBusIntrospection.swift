/// Introspection XML (`org.freedesktop.DBus.Introspectable.Introspect`): the document around an
/// object's interfaces and child nodes, the standard interfaces' members, and the child node names
/// of a path between objects (so that `busctl tree` and `gdbus introspect --recurse` find them).
package enum DBusIntrospection {
    /// A whole document: `interfaces` (XML elements, each ending in a newline) and a `<node>` a child.
    package static func document(interfaces: [String], children: [String] = []) -> String {
        var xml = "<!DOCTYPE node PUBLIC \"-//freedesktop//DTD D-BUS Object Introspection 1.0//EN\" "
            + "\"http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd\">\n<node>\n"
        for interface in interfaces { xml += interface }
        for child in children { xml += "  <node name=\"\(child)\"/>\n" }
        return xml + "</node>\n"
    }

    /// An interface named only (its members documented elsewhere).
    package static func named(_ interface: String) -> String {
        "  <interface name=\"\(interface)\"/>\n"
    }

    /// The standard interfaces with their members: Properties, Introspectable and Peer.
    package static let standardInterfaces = [
        """
          <interface name="\(DBusFailure.propertiesInterface)">
            <method name="Get"><arg name="interface_name" type="s" direction="in"/><arg name="property_name" type="s" direction="in"/><arg name="value" type="v" direction="out"/></method>
            <method name="GetAll"><arg name="interface_name" type="s" direction="in"/><arg name="properties" type="a{sv}" direction="out"/></method>
            <method name="Set"><arg name="interface_name" type="s" direction="in"/><arg name="property_name" type="s" direction="in"/><arg name="value" type="v" direction="in"/></method>
            <signal name="PropertiesChanged"><arg name="interface_name" type="s"/><arg name="changed_properties" type="a{sv}"/><arg name="invalidated_properties" type="as"/></signal>
          </interface>

        """,
        """
          <interface name="\(DBusFailure.introspectableInterface)">
            <method name="Introspect"><arg name="xml_data" type="s" direction="out"/></method>
          </interface>

        """,
        """
          <interface name="\(DBusFailure.peerInterface)">
            <method name="Ping"/>
            <method name="GetMachineId"><arg name="machine_uuid" type="s" direction="out"/></method>
          </interface>

        """,
    ]

    /// The names of the elements right below `path` on the way to each of `paths` ("io" below "/"
    /// for "/io/github/x"), each once, in order.
    package static func childNames(below path: String, among paths: some Sequence<String>) -> [String] {
        let prefix = path == "/" ? "/" : path + "/"
        var names: [String] = []
        for other in paths where other.hasPrefix(prefix) {
            if let name = other.dropFirst(prefix.count).split(separator: "/").first.map(String.init), !names.contains(name) {
                names.append(name)
            }
        }
        return names
    }

    /// The answer to a call to `request.path` on a connection that exports objects at `paths` but
    /// none there: `Introspect` with the child nodes on the way to them (a path on the way, or
    /// "/"), `Peer`, and `UnknownObject` for anything else.
    package static func answerBetween(objects paths: some Sequence<String>, _ request: DBusRequest) -> Result<[DBusValue], DBusFailure> {
        if let peer = request.peerAnswer { return peer }
        let children = childNames(below: request.path, among: paths)
        guard request.path == "/" || !children.isEmpty else { return .failure(.unknownObject(request.path)) }
        guard request.interface == DBusFailure.introspectableInterface || request.interface.isEmpty,
              request.member == "Introspect" else {
            if request.interface != DBusFailure.introspectableInterface { return .failure(.unknownObject(request.path)) }
            return .failure(.unknownMethod(request))
        }
        guard request.signature.isEmpty else { return .failure(.wrongSignature(request, expected: "")) }
        return .success([.string(document(interfaces: Array(standardInterfaces.dropFirst()), children: children))])
    }

    /// True for a valid object path ("/", or "/" elements of [A-Za-z0-9_], none empty, no trailing "/").
    package static func isValidObjectPath(_ path: String) -> Bool {
        guard path.hasPrefix("/") else { return false }
        if path == "/" { return true }
        let elements = path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).dropFirst()
        return elements.allSatisfy { element in !element.isEmpty && element.allSatisfy(isNameByte) }
    }

    /// True for a valid well-known bus name: two or more "."-separated elements of [A-Za-z0-9_-],
    /// none empty or starting with a digit, at most 255 bytes.
    package static func isValidBusName(_ name: String) -> Bool {
        let elements = name.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        return name.utf8.count <= 255 && elements.count >= 2 && elements.allSatisfy { element in
            guard let first = element.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else { return false }
            return element.allSatisfy { isNameByte($0) || $0 == UInt8(ascii: "-") }
        }
    }

    /// [A-Za-z0-9_]
    private static func isNameByte(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_")
    }
}
