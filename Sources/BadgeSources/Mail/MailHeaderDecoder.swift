import CGMime
import Glibc

/// Reads a message's From, Subject, Date and Message-ID with GMime 3, a well-kept library of the
/// field (notmuch, Evolution and Balsa use it): RFC 2047 encoded words in any charset iconv knows
/// (Shift_JIS, ISO-2022-JP, ISO-8859-*), RFC 2231, raw 8-bit headers tried as UTF-8 then
/// ISO-8859-1, and the many date forms mail clients write. Nothing is decoded by hand.
///
/// GMime is loaded with dlopen on the first message read (about 1.2 MiB resident with Pango's
/// GLib already mapped, 0.3 MiB of it private; docs/performance.md). Only the header block is
/// read, at most ``maximumHeaderBytes`` of it, without blocking, from a regular file only; a
/// 5 MB message costs the same as a short one. Not Sendable: the loop's thread only.
package final class MailHeaderDecoder {
    /// The most of a message read for its headers.
    package static let maximumHeaderBytes = 64 * 1024

    private var library: BadgeGMime?
    /// Why GMime could not be loaded (the summaries are then empty), once tried.
    package private(set) var loadFailure: String?
    private var tried = false

    /// A decoder; GMime is loaded on first use.
    package init() {}

    /// The summary of the message file at `path`, or why it cannot be read.
    package func summary(ofFile path: String) -> Result<MailSummary, BoundedRead.Failure> {
        do {
            let bytes = try BoundedRead.prefix(of: path, limit: Self.maximumHeaderBytes)
            return .success(summary(ofMessage: bytes))
        } catch {
            return .failure(error)
        }
    }

    /// The summary of a message's first bytes (its header block is used, up to the first empty line).
    package func summary(ofMessage bytes: [UInt8]) -> MailSummary {
        guard let gmime = loaded() else { return MailSummary() }
        var header = Array(bytes[..<Self.headerEnd(bytes)])
        header += Array("\n\n".utf8)
        return header.withUnsafeBufferPointer { buffer -> MailSummary in
            guard let base = buffer.baseAddress else { return MailSummary() }
            let pointer = UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self)
            guard let stream = gmime.stream_mem_new_with_buffer(pointer, buffer.count) else { return MailSummary() }
            defer { gmime.object_unref(stream) }
            guard let parser = gmime.parser_new_with_stream(stream) else { return MailSummary() }
            defer { gmime.object_unref(parser) }
            guard let message = gmime.parser_construct_message(parser, nil) else { return MailSummary() }
            defer { gmime.object_unref(message) }
            var summary = MailSummary()
            summary.subject = gmime.message_get_subject(message).map { String(cString: $0) }
            if let list = gmime.message_get_from(message), gmime.address_list_length(list) > 0,
               let address = gmime.address_list_get_address(list, 0) {
                let name = gmime.address_get_name(address).map { String(cString: $0) } ?? ""
                if !name.isEmpty {
                    summary.from = name
                } else if let text = gmime.address_to_string(address, nil, 0) {
                    summary.from = String(cString: text)
                    gmime.free(text)
                }
            }
            if let date = gmime.message_get_date(message) { summary.date = Double(gmime.date_time_to_unix(date)) }
            summary.messageID = gmime.message_get_message_id(message).map { String(cString: $0) }
            return summary
        }
    }

    /// Where the header block ends: the first empty line (LF LF or CR LF CR LF), or all of `bytes`.
    static func headerEnd(_ bytes: [UInt8]) -> Int {
        var index = 0
        while index + 1 < bytes.count {
            if bytes[index] == 0x0A {
                if bytes[index + 1] == 0x0A { return index }
                if index + 2 < bytes.count, bytes[index + 1] == 0x0D, bytes[index + 2] == 0x0A { return index }
            }
            index += 1
        }
        return bytes.count
    }

    private func loaded() -> BadgeGMime? {
        if let library { return library }
        guard !tried else { return nil }
        tried = true
        var made = BadgeGMime()
        guard badge_gmime_load(&made) != 0 else {
            let reason = badge_gmime_error().map { String(cString: $0) } ?? "missing entry points"
            loadFailure = "cannot load GMime to read message headers (\(reason)); install the Debian package libgmime-3.0-0"
            return nil
        }
        made.initialize()
        library = made
        return made
    }
}
