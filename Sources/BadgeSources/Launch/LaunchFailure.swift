/// Why a program could not be started (it was not found, not executable, the folder is missing):
/// one line naming the program.
public struct LaunchFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The reason, e.g. "cannot run telegram-desktop: No such file or directory".
    public let description: String

    /// Creates a failure with its reason.
    public init(_ description: String) { self.description = description }
}
