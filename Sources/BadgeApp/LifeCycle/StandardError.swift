import BadgeCore
import Glibc

/// Writes diagnostics to standard error without touching C's `stderr` global (not concurrency-safe).
enum StandardError {
    /// Writes `message` as one line (``InputEcho/line(_:limit:)``: a control character in it is
    /// escaped, its length capped, so no input echoed in it forges a second line) and a newline to
    /// file descriptor 2, retrying short and interrupted writes; gives up quietly when the
    /// descriptor fails, so diagnostics never stop the app.
    static func write(_ message: String) {
        write(InputEcho.line(message), to: 2)
    }

    /// Writes "badge-demo: " (or `program`'s name) and `sentence` in the user's language.
    static func say(_ sentence: Sentence, program: String = "badge-demo") {
        write(program + ": " + sentence.localized)
    }

    /// Writes `line` and a newline to `descriptor` as it is (standard output for `msg`'s answers,
    /// which are JSON lines; the usage text), unbuffered.
    static func write(_ line: String, to descriptor: Int32) {
        let message = line
        var text = message
        text += "\n"
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(descriptor, bytes.baseAddress.map { $0 + offset }, bytes.count - offset)
                if written < 0 && errno == EINTR { continue }
                if written <= 0 { return }
                offset += written
            }
        }
    }
}
