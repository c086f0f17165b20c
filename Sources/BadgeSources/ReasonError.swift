/// A one-line reason, for parsers that report without knowing the file's path.
package struct ReasonError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The reason.
    package let description: String
    /// Creates the reason.
    package init(_ description: String) { self.description = description }
}
