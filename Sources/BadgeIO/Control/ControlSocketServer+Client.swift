/// One connection of a control socket: who is at the other end, and what the server holds for it
/// (its line reader, its output queue, where it stands).
extension ControlSocketServer {
    /// Who is at the other end of a connection, as the kernel told at accept (`SO_PEERCRED`).
    public struct Peer: Hashable, Sendable {
        /// The client's process id when it connected.
        public var pid: Int32
        /// The client's user id.
        public var uid: UInt32
        /// True when the client is root and the instance is not (only with ``allowsRoot``).
        public var isForeignRoot: Bool
    }

    /// A class, so that queuing a reply never copies the queue already waiting.
    final class Client {
        let descriptor: Int32
        let peer: Peer
        var pid: Int32 { peer.pid }
        var lines: LineReader
        var output = OutputQueue()
        var partialSince: Double?
        var subscribed = false
        var closing = false
        var watchingWrites = false
        /// The client is gone for writing (EPIPE or reset): its replies are dropped, and what it
        /// sent before it went is still read and run.
        var peerGone = false
        /// Set when the client is a subscriber dropped for reading too slowly: its last line (the
        /// reason) waits to be written until then, and it gets nothing more.
        var farewellDeadline: Double?
        /// Replies left out because the client read none of them (counted for the log).
        var repliesLeftOut = 0

        init(descriptor: Int32, peer: Peer, maximumLineLength: Int) {
            self.descriptor = descriptor
            self.peer = peer
            lines = LineReader(maximumLineLength: maximumLineLength)
        }
    }
}
