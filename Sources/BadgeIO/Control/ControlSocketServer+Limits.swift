extension ControlSocketServer {
    /// The limits each client lives within.
    public struct Limits: Sendable {
        /// The longest line, in bytes (longer: an error reply and disconnect).
        public var maximumLineLength = 4096
        /// Bytes that may wait unread for a client (64 KiB; one line of any length always fits on
        /// top). A subscriber past it is dropped, with a last line that says why; a client past it that sends commands has its
        /// further replies left out, and its commands still run. The worst case is about
        /// ``maximumClients`` × (64 KiB + the longest line): 8.5 MB with the default limits.
        public var maximumOutput = 64 << 10
        /// Seconds a partial line may hang before the client is dropped.
        public var partialLineTimeout = 10.0
        /// Seconds a dropped subscriber has to read its last line (why it was dropped) before it is
        /// closed without it; until then it holds that line only, and counts among the clients.
        public var farewellTimeout = 30.0
        /// Connections at once; one more gets an error line and is closed.
        public var maximumClients = 128
        /// The default limits.
        public init() {}
    }
}
