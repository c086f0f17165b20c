/// Where an IMAP source reads: the server, how it is reached, whose mail, which folders.
public struct IMAPAccount: Equatable, Sendable {
    /// How the connection is protected.
    public enum Security: String, Equatable, Sendable {
        /// TLS from the first byte (port 993): the default.
        case implicitTLS = "tls"
        /// Cleartext, then STARTTLS before anything else is sent (port 143); refused without it.
        case startTLS = "starttls"
        /// No TLS at all: allowed only for a host on loopback (a local proxy, a test server).
        case cleartext = "none"
    }

    /// How the client logs in.
    public enum Mechanism: String, Equatable, Sendable {
        /// A password: `AUTHENTICATE PLAIN` (SASL-IR where offered), or LOGIN without AUTH=PLAIN.
        case password = "password"
        /// An OAuth2 access token: `AUTHENTICATE XOAUTH2` (Google's and Microsoft's).
        case xoauth2 = "xoauth2"
        /// An OAuth2 access token: `AUTHENTICATE OAUTHBEARER` (RFC 7628).
        case oauthBearer = "oauthbearer"

        /// Whether the secret is an OAuth2 access token (refreshed by running its command again).
        public var usesToken: Bool { self != .password }
    }

    /// The server's host name (checked against its certificate) or address.
    public var host: String
    /// The TCP port: 993 for ``Security/implicitTLS``, 143 otherwise, unless given.
    public var port: Int
    /// How the connection is protected.
    public var security: Security
    /// The login name.
    public var user: String
    /// The folders counted, by their IMAP names ("INBOX", "Lists/rust"); the first is watched with
    /// IDLE, the others are read with STATUS whenever the first changes and at every keepalive.
    public var folders: [String]
    /// A PEM file of the certificate authorities to trust instead of the system's (a private CA).
    public var caFile: String?
    /// How it logs in: a password (the default) or an OAuth2 token.
    public var mechanism: Mechanism = .password

    /// An account; the port defaults to the security's usual one.
    public init(host: String, port: Int? = nil, security: Security = .implicitTLS, user: String,
                folders: [String] = ["INBOX"], caFile: String? = nil, mechanism: Mechanism = .password) {
        self.mechanism = mechanism
        self.host = host
        self.security = security
        self.port = port ?? (security == .implicitTLS ? 993 : 143)
        self.user = user
        self.folders = folders.isEmpty ? ["INBOX"] : folders
        self.caFile = caFile
    }

    /// "me@imap.example.org INBOX", for the badge's description (never a secret).
    public var summary: String {
        "\(user)@\(host)\(port == (security == .implicitTLS ? 993 : 143) ? "" : ":\(port)") \(folders.joined(separator: ", "))"
    }

    /// Whether `host` names this machine's loopback (where cleartext is allowed).
    public static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127.")
    }
}
