/// A failure of the X11 shell, carrying the exit status the demo reports for it.
public struct X11Error: Error, CustomStringConvertible, Sendable {
    /// A one-line message a user can act on.
    public let message: String
    /// The process exit status for this failure (1: no display, 3: connection lost, 4: other X failure,
    /// 5: the window was destroyed by another client).
    public let exitStatus: Int32

    /// Creates an error with a message and an exit status.
    public init(_ message: String, exitStatus: Int32 = 4) {
        self.message = message
        self.exitStatus = exitStatus
    }

    /// The message.
    public var description: String { message }

    /// Exit status: the display could not be opened.
    public static let cannotOpenDisplayStatus: Int32 = 1
    /// Exit status: the connection to the X server was lost while running.
    public static let connectionLostStatus: Int32 = 3
    /// Exit status: another X client destroyed the toolbar window (DestroyNotify, or BadWindow on it).
    public static let windowDestroyedStatus: Int32 = 5
}
