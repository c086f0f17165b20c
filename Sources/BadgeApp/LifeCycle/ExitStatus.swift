import BadgeX11

/// The demo's exit statuses: one table, the same as the README's.
enum ExitStatus: Int32, CaseIterable, Sendable {
    /// Closed: the window manager's close button, Escape, Ctrl+Q, `quit`, or SIGTERM / SIGINT
    /// (logging out, Ctrl+C), after the queued control events are delivered.
    case closed = 0
    /// No `$DISPLAY`, or the display cannot be opened (the message names it); also an offscreen
    /// render (`--screenshot`, `--gallery`) that could not be written.
    case cannotOpenDisplay = 1
    /// Bad arguments (with the usage), or a bad config or icon file (naming the file and field).
    case badArguments = 2
    /// The connection to the X server was lost (server killed, or a client such as xkill closed ours).
    case connectionLost = 3
    /// Text or drawing could not be set up (fonts, Pango, cairo), or another X failure at start-up;
    /// or the running instance of the profile did not answer a hand-over in time (it is stopped).
    case setupFailed = 4
    /// Another X client destroyed the window.
    case windowDestroyed = 5

    /// The status for a failure of the X11 shell.
    init(_ error: X11Error) {
        switch error {
        case .noDisplay, .cannotOpenDisplay: self = .cannotOpenDisplay
        case .connectionLost: self = .connectionLost
        case .requestRefused, .noSuchWindow, .unavailable: self = .setupFailed
        }
    }

    /// The README's wording of what the status means.
    var meaning: String {
        switch self {
        case .closed: return "closed (window manager, Escape, Ctrl+Q, `quit`), or ended by SIGTERM or SIGINT (logging out, Ctrl+C) after delivering the queued control events; or, with the profile running, handed its `--count` values over and raised that window"
        case .cannotOpenDisplay: return "no `$DISPLAY`, or the display cannot be opened (the message names it)"
        case .badArguments: return "bad arguments (with the usage), or a bad config or icon file (naming the file and field), or a `--count` the running instance refused, or a `--state` file in use by a running instance"
        case .connectionLost: return "the connection to the X server was lost (server killed, or a client such as xkill closed ours), within a second"
        case .setupFailed: return "text or drawing could not be set up (fonts, Pango, cairo), or another X failure at start-up; or, with the profile running, that instance gave no answer within 5 s to connect and 10 s per reply (it is stopped)"
        case .windowDestroyed: return "another X client destroyed the window"
        }
    }
}
