/// A failure of the drawing layer, with a message a user can act on.
public struct DrawingError: Error, CustomStringConvertible, Sendable {
    /// What went wrong and, where possible, what to do about it.
    public let message: String

    /// Creates an error with a message.
    public init(_ message: String) { self.message = message }

    /// The message.
    public var description: String { message }
}
