import BadgeCore

/// A failure of the X11 shell: what went wrong, in terms a user can act on.
///
/// The shell never exits the process and never writes to standard error; an application decides
/// what each case means for it (the demo maps them to its exit statuses).
public enum X11Error: Error, Equatable, Sendable, CustomStringConvertible {
    /// No display was named and `DISPLAY` is not set.
    case noDisplay
    /// The display could not be opened; `reason` says why ("connection refused or broken: …").
    case cannotOpenDisplay(String, reason: String)
    /// The connection to the X server broke while in use (the server exited, or a client such as
    /// xkill closed it).
    case connectionLost(display: String, reason: String)
    /// The server refused a request the shell needs, such as creating a window.
    case requestRefused(request: String, error: String)
    /// The window to embed into does not exist (or is not a window).
    case noSuchWindow(UInt32)
    /// A needed extension or service is missing or unusable ("XKB", "a timer").
    case unavailable(String, reason: String)

    /// One line saying what went wrong (no program name: the application adds its own).
    public var description: String {
        switch self {
        case .noDisplay:
            return "no display: DISPLAY is not set (run inside an X session)"
        case .cannotOpenDisplay(let name, let reason):
            return reason.isEmpty ? "cannot open display \(InputEcho.quoted(name, limit: 80))" : "cannot open display \(InputEcho.quoted(name, limit: 80)) (\(reason))"
        case .connectionLost(let display, let reason):
            return "lost the connection to the X server on \(display) (\(reason))"
        case .requestRefused(let request, let error):
            return "the X server refused to \(request) (\(error))"
        case .noSuchWindow(let window):
            return "there is no window 0x\(String(window, radix: 16)) to embed the toolbar in"
        case .unavailable(let what, let reason):
            return "\(what) is not available: \(reason)"
        }
    }
}
