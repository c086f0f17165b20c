import Glibc

/// Writes diagnostics to standard error without touching C's `stderr` global (not concurrency-safe).
public enum StandardError {
    /// Writes `message` and a newline to file descriptor 2.
    public static func write(_ message: String) {
        writeLine(message, to: 2)
    }
}

/// Writes `line` and a newline to `descriptor`, retrying short and interrupted writes; gives up
/// quietly when the reader has gone (EPIPE) or the descriptor fails, so output never stops the app.
func writeLine(_ line: String, to descriptor: Int32) {
    var text = line
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
