import BadgeCore
import Glibc

/// The demo's small files (the saved counts): reads go through BadgeDrawing's `BoundedFile`, which
/// the config and the icons share, and writes through ``AtomicFileWriter``.
enum SmallFile {
    /// Why a file could not be used: one line, without the path.
    struct Failure: Error, CustomStringConvertible {
        /// The reason, to say in the user's language.
        let sentence: Sentence
        /// The reason.
        var reason: String { sentence.english }
        /// True when the file does not exist (ENOENT): not worth a warning for an optional file.
        var missing = false
        /// The reason.
        var description: String { reason }

        init(reason: Sentence, missing: Bool = false) {
            sentence = reason
            self.missing = missing
        }

        static func system(_ what: String) -> Failure {
            Failure(reason: Sentence(verbatim: "\(what): \(String(cString: strerror(errno)))"))
        }
    }
}
