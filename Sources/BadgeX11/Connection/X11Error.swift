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
    public var description: String { sentence.english }

    /// The line, to say in the user's language (the reasons inside are the server's or the
    /// library's words, as they are).
    package var sentence: Sentence {
        switch self {
        case .noDisplay:
            return Sentence("no display: DISPLAY is not set (run inside an X session)")
        case .cannotOpenDisplay(let name, let reason):
            return reason.isEmpty ? Sentence("cannot open display \"%s\"", .text(InputEcho.escaped(name, limit: 80, quote: true)))
                : Sentence("cannot open display \"%1$s\" (%2$s)", .text(InputEcho.escaped(name, limit: 80, quote: true)), .text(reason))
        case .connectionLost(let display, let reason):
            return Sentence("lost the connection to the X server on %1$s (%2$s)", .text(display), .text(reason))
        case .requestRefused(let request, let error):
            return Sentence("the X server refused to %1$s (%2$s)", .text(request), .text(error))
        case .noSuchWindow(let window):
            return Sentence("there is no window 0x%s to embed the toolbar in", .text(String(window, radix: 16)))
        case .unavailable(let what, let reason):
            return Sentence("%1$s is not available: %2$s", .text(what), .text(reason))
        }
    }
}
