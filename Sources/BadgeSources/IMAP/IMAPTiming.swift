/// How long an IMAP source waits, and how often it checks a quiet connection.
public struct IMAPTiming: Equatable, Sendable {
    /// Seconds for the lookup, the TCP connect and the TLS handshake together.
    public var connect: Double
    /// Seconds the server has to greet once connected (a slow server greets within it).
    public var greeting: Double
    /// Seconds every command has for its answer (DONE included).
    public var reply: Double
    /// Seconds IDLE runs before it is ended and begun again with a recount: the keepalive that
    /// finds a server gone silent (at most ``keepalive`` + ``reply`` seconds), far inside the
    /// 29 minutes RFC 2177 allows. Also the poll interval for a server without IDLE.
    public var keepalive: Double
    /// Seconds the password command (or the Secret Service) may take.
    public var passwordCommand: Double

    /// The defaults: 15 s to connect, 30 s to greet, 20 s per answer, a keepalive every 4 min,
    /// 10 s for the password command.
    public init(connect: Double = 15, greeting: Double = 30, reply: Double = 20, keepalive: Double = 240,
                passwordCommand: Double = 10) {
        self.connect = max(0.1, connect)
        self.greeting = max(0.1, greeting)
        self.reply = max(0.1, reply)
        self.keepalive = min(max(1, keepalive), 28 * 60)
        self.passwordCommand = max(0.1, passwordCommand)
    }
}
