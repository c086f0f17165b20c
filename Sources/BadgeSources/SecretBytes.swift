import Glibc

/// Bytes that must not outlive their use (a password): kept in pages of their own that are left
/// out of core dumps (`MADV_DONTDUMP`) and locked in memory where the limits allow (never written
/// to swap), filled straight from a descriptor so no other buffer ever holds them, and zeroed with
/// `explicit_bzero` when released. Not Sendable: the loop's thread owns it.
package final class SecretBytes {
    private let base: UnsafeMutableRawPointer
    private let size: Int
    private let mapped: Bool
    /// How many bytes it holds.
    package private(set) var count = 0

    /// Room for `capacity` bytes.
    package init(capacity: Int) {
        let page = max(1, sysconf(Int32(_SC_PAGESIZE)))
        let wanted = max(page, (capacity + page - 1) / page * page)
        let made = mmap(nil, wanted, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        if let made, made != MAP_FAILED {
            base = made
            mapped = true
            _ = madvise(made, wanted, MADV_DONTDUMP)
            _ = mlock(made, wanted)  // best effort: RLIMIT_MEMLOCK may say no
        } else {
            // No page to spare: ordinary memory, still zeroed when released.
            base = UnsafeMutableRawPointer.allocate(byteCount: wanted, alignment: 16)
            mapped = false
        }
        size = wanted
    }

    /// A copy of `bytes` (which the caller then wipes).
    package convenience init(copying bytes: UnsafeRawBufferPointer) {
        self.init(capacity: bytes.count)
        if let source = bytes.baseAddress, bytes.count > 0 {
            base.copyMemory(from: source, byteCount: min(bytes.count, size))
            count = min(bytes.count, size)
        }
    }

    deinit {
        explicit_bzero(base, size)
        if mapped {
            munlock(base, size)
            munmap(base, size)
        } else {
            base.deallocate()
        }
    }

    /// Bytes that still fit.
    package var room: Int { size - count }

    /// Reads from `descriptor` into the free space: what read(2) returned (-1 with errno, 0 at
    /// the end, or the bytes read).
    package func read(from descriptor: Int32) -> Int {
        guard room > 0 else { return 0 }
        let got = Glibc.read(descriptor, base + count, room)
        if got > 0 { count += got }
        return got
    }

    /// Appends `bytes` as far as they fit; returns how many did.
    @discardableResult
    package func append(_ bytes: UnsafeRawBufferPointer) -> Int {
        let taken = min(room, bytes.count)
        if taken > 0, let source = bytes.baseAddress { (base + count).copyMemory(from: source, byteCount: taken) }
        count += taken
        return taken
    }

    /// Appends one byte when it fits; returns whether it did.
    @discardableResult
    package func append(byte: UInt8) -> Bool {
        guard room > 0 else { return false }
        base.storeBytes(of: byte, toByteOffset: count, as: UInt8.self)
        count += 1
        return true
    }

    /// Keeps only the first `length` bytes; the rest is zeroed.
    package func truncate(to length: Int) {
        let kept = max(0, min(length, count))
        explicit_bzero(base + kept, size - kept)
        count = kept
    }

    /// The bytes, for the duration of `body` only.
    package func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: base, count: count))
    }
}

extension SecretBytes: Equatable {
    /// Whether both hold the same bytes (compared in time that depends only on the lengths).
    package static func == (left: SecretBytes, right: SecretBytes) -> Bool {
        guard left.count == right.count else { return false }
        return left.withUnsafeBytes { a in
            right.withUnsafeBytes { b in
                var difference: UInt8 = 0
                for index in 0..<a.count { difference |= a[index] ^ b[index] }
                return difference == 0
            }
        }
    }
}
