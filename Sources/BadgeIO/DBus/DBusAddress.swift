import BadgeCore
import Glibc

/// A D-Bus server address (`unix:path=/run/user/1000/bus`, `unix:abstract=…`, `tcp:host=127.0.0.1,port=…`;
/// several separated by `;` are tried in order), parsed into the socket addresses the bus client can
/// connect to without blocking. Host names are not looked up (that would block on DNS): a `tcp`
/// address must name a numeric IPv4 or IPv6 host.
package struct DBusAddress: Equatable, Sendable {
    /// One place to connect to.
    package enum Endpoint: Equatable, Sendable {
        /// A Unix socket in the file system.
        case path(String)
        /// A Linux abstract Unix socket (the name without its leading NUL).
        case abstract(String)
        /// A TCP socket at a numeric address.
        case tcp(host: String, port: UInt16)
    }

    /// The endpoints, in the order to try them.
    package let endpoints: [Endpoint]

    /// Parses `text`; throws with the reason when no part of it is usable.
    package init(_ text: String) throws(DBusWire.Malformed) {
        var endpoints: [Endpoint] = []
        var reasons: [String] = []
        for part in text.split(separator: ";") where !part.isEmpty {
            guard let colon = part.firstIndex(of: ":") else {
                reasons.append("\(InputEcho.quoted(part, limit: 80)) has no transport")
                continue
            }
            let transport = part[..<colon]
            var keys: [String: String] = [:]
            for pair in part[part.index(after: colon)...].split(separator: ",") {
                guard let equals = pair.firstIndex(of: "=") else { continue }
                keys[String(pair[..<equals])] = Self.unescape(pair[pair.index(after: equals)...])
            }
            switch transport {
            case "unix":
                if let path = keys["path"] {
                    endpoints.append(.path(path))
                } else if let name = keys["abstract"] {
                    endpoints.append(.abstract(name))
                } else {
                    reasons.append("a unix address without path= or abstract=")
                }
            case "tcp":
                guard let host = keys["host"], let port = keys["port"].flatMap({ UInt16($0) }) else {
                    reasons.append("a tcp address without host= and port=")
                    continue
                }
                endpoints.append(.tcp(host: host, port: port))
            default:
                reasons.append("the transport \(InputEcho.quoted(transport)) is not supported")
            }
        }
        guard !endpoints.isEmpty else {
            throw DBusWire.Malformed(reasons.isEmpty ? "the address is empty" : reasons.joined(separator: "; "))
        }
        self.endpoints = endpoints
    }

    /// The address's %-escapes decoded.
    private static func unescape(_ text: Substring) -> String {
        var bytes: [UInt8] = []
        var utf8 = text.utf8.makeIterator()
        while let byte = utf8.next() {
            if byte == UInt8(ascii: "%"), let high = utf8.next(), let low = utf8.next(),
               let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16) {
                bytes.append(value)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension DBusAddress.Endpoint {
    /// A non-blocking, close-on-exec socket with a connect() started to this endpoint: the
    /// descriptor and whether the connection is still in progress. Throws the reason it cannot be
    /// reached now (refused, no such socket, a backlog that is full, a host name).
    package func connectWithoutBlocking() throws(DBusWire.Malformed) -> (descriptor: Int32, inProgress: Bool) {
        switch self {
        case .path(let path): return try Self.connectUnix(Array(path.utf8), abstract: false, shown: path)
        case .abstract(let name): return try Self.connectUnix(Array(name.utf8), abstract: true, shown: "@" + name)
        case .tcp(let host, let port): return try Self.connectTCP(host: host, port: port)
        }
    }

    private static func failure(_ what: String) -> DBusWire.Malformed {
        DBusWire.Malformed("\(what): \(String(cString: strerror(errno)))")
    }

    private static func connectUnix(_ name: [UInt8], abstract: Bool, shown: String) throws(DBusWire.Malformed) -> (descriptor: Int32, inProgress: Bool) {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        let offset = abstract ? 1 : 0
        guard name.count + offset < capacity else { throw DBusWire.Malformed("the socket name \(shown) is too long") }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in name.enumerated() { raw[index + offset] = byte }
        }
        let length = abstract ? MemoryLayout<sa_family_t>.size + offset + name.count : MemoryLayout<sockaddr_un>.size
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw failure("cannot create a socket") }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(length)) }
        }
        if result == 0 { return (fd, false) }
        // A Unix socket whose server does not accept and whose backlog is full answers EAGAIN
        // without blocking: as unreachable as a refusal, for now.
        let error = failure("cannot connect to \(shown)")
        if errno == EINPROGRESS { return (fd, true) }
        close(fd)
        throw error
    }

    private static func connectTCP(host: String, port: UInt16) throws(DBusWire.Malformed) -> (descriptor: Int32, inProgress: Bool) {
        var hints = addrinfo()
        hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &found) == 0, let info = found else {
            throw DBusWire.Malformed("the tcp host \(InputEcho.quoted(host, limit: 80)) is not a numeric address (names are not looked up, as that would block)")
        }
        defer { freeaddrinfo(found) }
        let fd = socket(info.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw failure("cannot create a socket") }
        if connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 { return (fd, false) }
        if errno == EINPROGRESS { return (fd, true) }
        let error = failure("cannot connect to \(host):\(port)")
        close(fd)
        throw error
    }
}
