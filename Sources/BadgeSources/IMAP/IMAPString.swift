import Glibc

/// How the IMAP source writes strings into commands: quoted strings (RFC 9051 §4.3) and folder
/// names in modified UTF-7 (RFC 3501 §5.1.3), and base64 for SASL PLAIN; for a password, both
/// straight into secret memory.
enum IMAPString {
    private static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Appends `bytes` to `out` as a quoted string, with no copy anywhere else; false (and `out`
    /// left part-written, for the caller to drop) for bytes a quoted string cannot carry or when
    /// `out` is full.
    static func appendQuoted(_ bytes: UnsafeRawBufferPointer, to out: SecretBytes) -> Bool {
        guard out.append(byte: 0x22) else { return false }
        for byte in bytes {
            if byte == 0x0D || byte == 0x0A || byte == 0 { return false }
            if byte == 0x22 || byte == 0x5C { guard out.append(byte: 0x5C) else { return false } }
            guard out.append(byte: byte) else { return false }
        }
        return out.append(byte: 0x22)
    }

    /// Appends the padded base64 of `bytes` to `out`, a byte at a time, with no copy anywhere else;
    /// false when `out` is full.
    static func appendBase64(_ bytes: UnsafeRawBufferPointer, to out: SecretBytes) -> Bool {
        var index = 0
        while index < bytes.count {
            let a = UInt32(bytes[index])
            let b = index + 1 < bytes.count ? UInt32(bytes[index + 1]) : 0
            let c = index + 2 < bytes.count ? UInt32(bytes[index + 2]) : 0
            var triple = a << 16 | b << 8 | c
            defer { explicit_bzero(&triple, MemoryLayout<UInt32>.size) }
            guard out.append(byte: alphabet[Int(triple >> 18 & 63)]),
                  out.append(byte: alphabet[Int(triple >> 12 & 63)]),
                  out.append(byte: index + 1 < bytes.count ? alphabet[Int(triple >> 6 & 63)] : 61),
                  out.append(byte: index + 2 < bytes.count ? alphabet[Int(triple & 63)] : 61) else { return false }
            index += 3
        }
        return true
    }

    /// `"…"` with `\` and `"` escaped; nil for text a quoted string cannot carry (CR, LF, NUL).
    static func quoted(_ text: String) -> String? {
        var out = "\""
        for scalar in text.unicodeScalars {
            if scalar == "\r" || scalar == "\n" || scalar == "\0" { return nil }
            if scalar == "\"" || scalar == "\\" { out.append("\\") }
            out.unicodeScalars.append(scalar)
        }
        return out + "\""
    }

    /// A folder name as a quoted string in modified UTF-7: "Entwürfe" → `"Entw&APw-rfe"`.
    static func mailbox(_ name: String) -> String {
        quoted(modifiedUTF7(name)) ?? "\"\""
    }

    /// Whether `sent`, a mailbox name as the server wrote it (modified UTF-7), names the folder
    /// `name` (INBOX in any case, as RFC 9051 says).
    static func sameMailbox(_ sent: String, _ name: String) -> Bool {
        let encoded = modifiedUTF7(name)
        if encoded.uppercased() == "INBOX" { return sent.uppercased() == "INBOX" }
        return sent == encoded
    }

    /// A folder name in modified UTF-7 (RFC 3501 §5.1.3): "Entwürfe" → `Entw&APw-rfe`.
    static func modifiedUTF7(_ name: String) -> String {
        var out = ""
        var pending: [UInt16] = []
        func flush() {
            guard !pending.isEmpty else { return }
            var bytes: [UInt8] = []
            for unit in pending { bytes.append(UInt8(unit >> 8)); bytes.append(UInt8(unit & 0xFF)) }
            out += "&" + base64(bytes, padded: false).replacingSlashes() + "-"
            pending = []
        }
        for scalar in name.unicodeScalars {
            if scalar.value >= 0x20 && scalar.value <= 0x7E {
                flush()
                out += scalar == "&" ? "&-" : String(scalar)
            } else {
                pending.append(contentsOf: String(scalar).utf16)
            }
        }
        flush()
        return out
    }

    /// RFC 4648 base64.
    static func base64<Bytes: RandomAccessCollection>(_ bytes: Bytes, padded: Bool = true) -> String
    where Bytes.Element == UInt8, Bytes.Index == Int {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let a = UInt32(bytes[index])
            let b = index + 1 < bytes.endIndex ? UInt32(bytes[index + 1]) : 0
            let c = index + 2 < bytes.endIndex ? UInt32(bytes[index + 2]) : 0
            let triple = a << 16 | b << 8 | c
            out.append(alphabet[Int(triple >> 18 & 63)])
            out.append(alphabet[Int(triple >> 12 & 63)])
            if index + 1 < bytes.endIndex { out.append(alphabet[Int(triple >> 6 & 63)]) } else if padded { out.append(61) }
            if index + 2 < bytes.endIndex { out.append(alphabet[Int(triple & 63)]) } else if padded { out.append(61) }
            index += 3
        }
        return String(decoding: out, as: UTF8.self)
    }
}

private extension String {
    func replacingSlashes() -> String { String(map { $0 == "/" ? "," : $0 }) }
}
