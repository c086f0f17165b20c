import Glibc

/// What `readdir` returned, read in place: a `dirent` record is only as long as its name, so
/// copying the whole struct (`entry.pointee`, with its 256-byte `d_name`) reads past the end of the
/// directory buffer for the last records. AddressSanitizer reports it; here the name is read up to
/// its NUL, from where it lies.
package enum DirectoryEntry {
    /// The entry's name.
    package static func name(of entry: UnsafeMutablePointer<dirent>) -> String {
        guard let offset = MemoryLayout<dirent>.offset(of: \dirent.d_name) else { return "" }
        return String(cString: (UnsafeRawPointer(entry) + offset).assumingMemoryBound(to: CChar.self))
    }

    /// The entry's type (`DT_DIR`, `DT_REG`, `DT_UNKNOWN` …).
    package static func type(of entry: UnsafeMutablePointer<dirent>) -> UInt8 {
        guard let offset = MemoryLayout<dirent>.offset(of: \dirent.d_type) else { return UInt8(DT_UNKNOWN) }
        return (UnsafeRawPointer(entry) + offset).load(as: UInt8.self)
    }
}
