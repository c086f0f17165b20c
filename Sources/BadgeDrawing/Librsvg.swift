import CRsvg

/// librsvg's entry points, loaded with dlopen the first time an SVG must be rendered.
///
/// Not Sendable: one per icon library, on the event-loop thread.
final class Librsvg {
    let functions: BadgeLibrsvg

    /// Loads librsvg-2.so.2; throws a message naming the Debian package when it is missing.
    init() throws {
        var loaded = BadgeLibrsvg()
        guard badge_librsvg_load(&loaded) != 0 else {
            let reason = badge_librsvg_error().map { String(cString: $0) } ?? "missing entry points"
            throw DrawingError("cannot load librsvg to draw SVG icons (\(reason)); install the Debian package librsvg2-2")
        }
        functions = loaded
    }

    /// Turns a GError into its message and frees it.
    func consume(_ error: UnsafeMutablePointer<BadgeGError>?) -> String {
        guard let error else { return "unknown error" }
        let message = error.pointee.message.map { String(cString: $0) } ?? "unknown error"
        functions.error_free(error)
        return message
    }
}
