/// Where a ``ToolbarHost`` is in starting up, in order: the first frame comes before anything the
/// first frame does not need (the keymap, the tooltip window, the buses, the window icon), and
/// `.ready` is announced once all of it is done and the frame is on the server.
enum StartupPhase: Equatable {
    /// Waiting for the window to be mapped and its first frame drawn.
    case firstFrame
    /// The first frame is on its way; the rest is set up at `due` (clock seconds), a frame later.
    case firstFrameSent(due: Double)
    /// Set up (``ToolbarHost/completeStartup()`` ran); `.ready` is announced at the next refresh.
    case setUp
    /// `.ready` was announced.
    case ready

    /// True once the rest was set up.
    var isSetUp: Bool { self == .setUp || self == .ready }
}
