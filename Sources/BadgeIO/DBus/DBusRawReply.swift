import Glibc

/// A method's reply handed over undecoded, for a value that must not be copied anywhere (a
/// secret): the message's own bytes, valid only while the handler runs, then zeroed by the
/// connection. ``Cursor`` walks its body without building values.
package struct DBusRawReply {
    /// The whole message, as it came.
    package let message: UnsafeRawBufferPointer
    /// Where the body starts in ``message``.
    package let bodyOffset: Int
    /// The body's signature.
    package let signature: String

    /// The reply in `message` (valid for as long as the caller says), its body at `bodyOffset`.
    package init(message: UnsafeRawBufferPointer, bodyOffset: Int, signature: String) {
        self.message = message
        self.bodyOffset = bodyOffset
        self.signature = signature
    }

    /// A cursor at the start of the body.
    package var body: Cursor {
        Cursor(message: message, offset: bodyOffset, littleEndian: message.first == UInt8(ascii: "l"))
    }

    /// Reads the body's wire format in place (alignment counts from the message's first byte);
    /// every read is bounds-checked and nil past the end.
    package struct Cursor {
        private let message: UnsafeRawBufferPointer
        private let littleEndian: Bool
        /// Where the next value starts.
        package private(set) var offset: Int

        init(message: UnsafeRawBufferPointer, offset: Int, littleEndian: Bool) {
            self.message = message
            self.offset = offset
            self.littleEndian = littleEndian
        }

        /// Moves to the next multiple of `boundary`; false past the end.
        package mutating func align(_ boundary: Int) -> Bool {
            let aligned = (offset + boundary - 1) / boundary * boundary
            guard aligned <= message.count else { return false }
            offset = aligned
            return true
        }

        /// A `u` (or an array's or a string's length).
        package mutating func uint32() -> UInt32? {
            guard align(4), offset + 4 <= message.count else { return nil }
            var value: UInt32 = 0
            for index in 0..<4 { value |= UInt32(message[offset + index]) << (8 * index) }
            offset += 4
            return littleEndian ? value : value.byteSwapped
        }

        /// Steps over an `s` or `o`; false when it does not fit.
        package mutating func skipString() -> Bool {
            guard let length = uint32().map(Int.init), offset + length + 1 <= message.count else { return false }
            offset += length + 1
            return true
        }

        /// An `ay`'s bytes, in place (no copy), for `body` only; nil when it does not fit.
        package mutating func withBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R? {
            guard let length = uint32().map(Int.init), length <= message.count - offset, let base = message.baseAddress else {
                return nil
            }
            defer { offset += length }
            return body(UnsafeRawBufferPointer(start: base + offset, count: length))
        }
    }
}
