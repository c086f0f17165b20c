import BadgeCore

/// The D-Bus wire format (the specification's "Marshaling" section), in pure Swift: ``DBusValue``s
/// written into and read out of message bytes, little-endian out, either byte order in.
///
/// Reading is defensive: every length, offset, nesting depth and signature is checked against the
/// bytes at hand, and anything malformed throws ``DBusWire/Malformed`` instead of trapping, so a
/// hostile peer costs an error, never a crash.
package enum DBusWire {
    /// Bytes that are not a valid D-Bus encoding, with what was wrong.
    package struct Malformed: Error, CustomStringConvertible, Equatable {
        /// What was wrong.
        package let reason: String
        /// Creates the error.
        package init(_ reason: String) { self.reason = reason }
        /// What was wrong.
        package var description: String { reason }
    }

    /// The specification's limits: arrays at most 64 MiB, 32 nested arrays plus 32 nested structs,
    /// signatures at most 255 bytes.
    package static let maximumArrayLength = 64 << 20
    package static let maximumNesting = 64
    package static let maximumSignatureLength = 255

    /// The alignment of a value whose signature starts with `code`.
    package static func alignment(of code: UInt8) -> Int {
        switch code {
        case UInt8(ascii: "y"), UInt8(ascii: "g"), UInt8(ascii: "v"): return 1
        case UInt8(ascii: "n"), UInt8(ascii: "q"): return 2
        case UInt8(ascii: "x"), UInt8(ascii: "t"), UInt8(ascii: "d"), UInt8(ascii: "("), UInt8(ascii: "{"): return 8
        default: return 4
        }
    }

    // MARK: Writing

    /// Appends values to a message buffer, aligning each as the specification says (offsets count
    /// from the start of the buffer, which starts 8-aligned in the message).
    package struct Writer {
        /// The bytes written so far.
        package private(set) var bytes: [UInt8] = []

        /// An empty buffer.
        package init() {}

        /// Pads with zero bytes to a multiple of `boundary`.
        package mutating func align(_ boundary: Int) {
            while bytes.count % boundary != 0 { bytes.append(0) }
        }

        /// Writes `value` at its alignment.
        package mutating func write(_ value: DBusValue) {
            switch value {
            case .byte(let number): bytes.append(number)
            case .bool(let flag): writeInteger(UInt32(flag ? 1 : 0))
            case .int16(let number): writeInteger(number)
            case .uint16(let number): writeInteger(number)
            case .int32(let number): writeInteger(number)
            case .uint32(let number): writeInteger(number)
            case .int64(let number): writeInteger(number)
            case .uint64(let number): writeInteger(number)
            case .double(let number): writeInteger(number.bitPattern)
            case .string(let text), .objectPath(let text):
                // A NUL inside would end the string early for every C reader: removed.
                let utf8 = Array(text.utf8.lazy.filter { $0 != 0 })
                writeInteger(UInt32(utf8.count))
                bytes += utf8
                bytes.append(0)
            case .signature(let text):
                let utf8 = Array(text.utf8.prefix(DBusWire.maximumSignatureLength))
                bytes.append(UInt8(utf8.count))
                bytes += utf8
                bytes.append(0)
            case .structure(let fields):
                align(8)
                for field in fields { write(field) }
            case .dictEntry(let key, let entry):
                align(8)
                write(key)
                write(entry)
            case .variant(let inner):
                write(.signature(inner.signature))
                write(inner)
            case .array(let element, let items):
                align(4)
                let lengthAt = bytes.count
                writeInteger(UInt32(0))
                align(DBusWire.alignment(of: element.utf8.first ?? UInt8(ascii: "y")))
                let start = bytes.count
                for item in items { write(item) }
                let length = UInt32(truncatingIfNeeded: bytes.count - start)
                withUnsafeBytes(of: length.littleEndian) { raw in
                    for (offset, byte) in raw.enumerated() { bytes[lengthAt + offset] = byte }
                }
            }
        }

        private mutating func writeInteger<T: FixedWidthInteger>(_ number: T) {
            align(MemoryLayout<T>.size)
            withUnsafeBytes(of: number.littleEndian) { bytes += $0 }
        }
    }

    // MARK: Reading

    /// Reads values out of message bytes by their signature.
    package struct Reader {
        private let bytes: [UInt8]
        private let littleEndian: Bool
        /// Where the next value starts.
        package private(set) var offset: Int
        private let end: Int

        /// Reads `bytes[start..<end]`; alignment counts from `base` (the message's first byte).
        package init(_ bytes: [UInt8], littleEndian: Bool, start: Int = 0, end: Int? = nil) {
            self.bytes = bytes
            self.littleEndian = littleEndian
            offset = start
            self.end = min(end ?? bytes.count, bytes.count)
        }

        /// True when every byte was read.
        package var isAtEnd: Bool { offset >= end }

        /// Reads one value for each complete type in `signature`.
        package mutating func read(signature: String) throws(Malformed) -> [DBusValue] {
            let codes = Array(signature.utf8)
            guard codes.count <= DBusWire.maximumSignatureLength else { throw Malformed("the signature is too long") }
            var index = 0
            var values: [DBusValue] = []
            while index < codes.count {
                let type = try DBusWire.completeType(in: codes, at: &index)
                values.append(try read(type: type, depth: 0))
            }
            return values
        }

        /// Reads the values of `signature` that the bytes hold whole, stopping before the first one
        /// that runs past them or cannot be read (the leading part of a body that was kept in part).
        package mutating func readLeading(signature: String) -> [DBusValue] {
            let codes = Array(signature.utf8)
            guard codes.count <= DBusWire.maximumSignatureLength else { return [] }
            var index = 0
            var values: [DBusValue] = []
            while index < codes.count {
                guard let type = try? DBusWire.completeType(in: codes, at: &index),
                      let value = try? read(type: type, depth: 0) else { break }
                values.append(value)
            }
            return values
        }

        /// Skips padding up to `boundary`; the padding must be inside the bytes.
        package mutating func align(_ boundary: Int) throws(Malformed) {
            let aligned = (offset + boundary - 1) / boundary * boundary
            guard aligned <= end else { throw Malformed("the message ends inside padding") }
            offset = aligned
        }

        private mutating func take(_ count: Int) throws(Malformed) -> ArraySlice<UInt8> {
            guard count >= 0, count <= end - offset else { throw Malformed("the message ends inside a value") }
            defer { offset += count }
            return bytes[offset..<offset + count]
        }

        /// A fixed-width integer at its alignment, in the message's byte order.
        package mutating func readInteger<T: FixedWidthInteger>(_: T.Type) throws(Malformed) -> T {
            try align(MemoryLayout<T>.size)
            let slice = try take(MemoryLayout<T>.size)
            var value = T.zero
            withUnsafeMutableBytes(of: &value) { raw in
                for (index, byte) in slice.enumerated() { raw[index] = byte }
            }
            return littleEndian ? T(littleEndian: value) : T(bigEndian: value)
        }

        private mutating func readText(lengthBytes: Int) throws(Malformed) -> String {
            let length = lengthBytes == 1 ? Int(try readInteger(UInt8.self)) : Int(try readInteger(UInt32.self))
            let utf8 = try take(length)
            guard try take(1).first == 0 else { throw Malformed("a string is not terminated by NUL") }
            // As the specification (and libdbus) say: no NUL inside, strictly valid UTF-8. Found by
            // fuzzing (Fuzz/dbus-message/regressions): a NUL inside was kept, and lost on the way out.
            guard !utf8.contains(0) else { throw Malformed("a string holds a NUL byte") }
            guard let text = String(validating: utf8, as: UTF8.self) else { throw Malformed("a string is not valid UTF-8") }
            return text
        }

        private mutating func read(type: ArraySlice<UInt8>, depth: Int) throws(Malformed) -> DBusValue {
            guard depth <= DBusWire.maximumNesting else { throw Malformed("values nest too deeply") }
            guard let code = type.first else { throw Malformed("an empty type") }
            switch code {
            case UInt8(ascii: "y"): return .byte(try readInteger(UInt8.self))
            case UInt8(ascii: "b"):
                let word = try readInteger(UInt32.self)
                guard word <= 1 else { throw Malformed("a boolean is neither 0 nor 1") }
                return .bool(word == 1)
            case UInt8(ascii: "n"): return .int16(try readInteger(Int16.self))
            case UInt8(ascii: "q"): return .uint16(try readInteger(UInt16.self))
            case UInt8(ascii: "i"): return .int32(try readInteger(Int32.self))
            case UInt8(ascii: "u"): return .uint32(try readInteger(UInt32.self))
            case UInt8(ascii: "x"): return .int64(try readInteger(Int64.self))
            case UInt8(ascii: "t"): return .uint64(try readInteger(UInt64.self))
            case UInt8(ascii: "d"): return .double(Double(bitPattern: try readInteger(UInt64.self)))
            case UInt8(ascii: "s"): return .string(try readText(lengthBytes: 4))
            case UInt8(ascii: "o"): return .objectPath(try readText(lengthBytes: 4))
            case UInt8(ascii: "g"): return .signature(try readText(lengthBytes: 1))
            case UInt8(ascii: "v"):
                let signature = Array(try readText(lengthBytes: 1).utf8)
                var index = 0
                let inner = try DBusWire.completeType(in: signature, at: &index)
                guard index == signature.count else { throw Malformed("a variant holds more than one type") }
                return .variant(try read(type: inner, depth: depth + 1))
            case UInt8(ascii: "("):
                try align(8)
                var fields: [DBusValue] = []
                let inner = Array(type.dropFirst().dropLast())
                var index = 0
                while index < inner.count {
                    let field = try DBusWire.completeType(in: inner, at: &index)
                    fields.append(try read(type: field, depth: depth + 1))
                }
                return .structure(fields)
            case UInt8(ascii: "{"):
                try align(8)
                let inner = Array(type.dropFirst().dropLast())
                var index = 0
                let keyType = try DBusWire.completeType(in: inner, at: &index)
                let valueType = try DBusWire.completeType(in: inner, at: &index)
                return .dictEntry(try read(type: keyType, depth: depth + 1), try read(type: valueType, depth: depth + 1))
            case UInt8(ascii: "a"):
                let length = Int(try readInteger(UInt32.self))
                guard length <= DBusWire.maximumArrayLength else { throw Malformed("an array is longer than 64 MiB") }
                let element = type.dropFirst()
                guard let first = element.first else { throw Malformed("an array without an element type") }
                try align(DBusWire.alignment(of: first))
                guard length <= end - offset else { throw Malformed("the message ends inside an array") }
                let stop = offset + length
                var items: [DBusValue] = []
                while offset < stop {
                    let before = offset
                    items.append(try read(type: element, depth: depth + 1))
                    guard offset > before else { throw Malformed("an array element of no size") }
                }
                guard offset == stop else { throw Malformed("an array's elements overrun its length") }
                return .array(element: String(decoding: element, as: UTF8.self), items)
            default:
                // `h` (a file descriptor) and anything unknown: never sent to the shell's objects.
                throw Malformed("the type \(InputEcho.quoted(String(decoding: [code], as: UTF8.self))) is not supported")
            }
        }
    }

    /// The complete type starting at `index` in `codes` (one basic type, a variant, an array of a
    /// complete type, a struct or a dict entry); `index` moves past it.
    package static func completeType(in codes: [UInt8], at index: inout Int) throws(Malformed) -> ArraySlice<UInt8> {
        let start = index
        try skipCompleteType(in: codes, at: &index, depth: 0, inArray: false)
        return codes[start..<index]
    }

    private static func skipCompleteType(in codes: [UInt8], at index: inout Int, depth: Int, inArray: Bool) throws(Malformed) {
        guard depth <= maximumNesting else { throw Malformed("the signature nests too deeply") }
        guard index < codes.count else { throw Malformed("the signature ends inside a type") }
        let code = codes[index]
        index += 1
        switch code {
        case UInt8(ascii: "y"), UInt8(ascii: "b"), UInt8(ascii: "n"), UInt8(ascii: "q"), UInt8(ascii: "i"),
             UInt8(ascii: "u"), UInt8(ascii: "x"), UInt8(ascii: "t"), UInt8(ascii: "d"), UInt8(ascii: "s"),
             UInt8(ascii: "o"), UInt8(ascii: "g"), UInt8(ascii: "v"), UInt8(ascii: "h"):
            return
        case UInt8(ascii: "a"):
            try skipCompleteType(in: codes, at: &index, depth: depth + 1, inArray: true)
        case UInt8(ascii: "("):
            var fields = 0
            while index < codes.count, codes[index] != UInt8(ascii: ")") {
                try skipCompleteType(in: codes, at: &index, depth: depth + 1, inArray: false)
                fields += 1
            }
            guard index < codes.count, fields > 0 else { throw Malformed("a struct is not closed or is empty") }
            index += 1
        case UInt8(ascii: "{"):
            guard inArray else { throw Malformed("a dict entry outside an array") }
            guard index < codes.count, "ybnqiuxtdsog".utf8.contains(codes[index]) else {
                throw Malformed("a dict entry's key is not a basic type")
            }
            index += 1
            try skipCompleteType(in: codes, at: &index, depth: depth + 1, inArray: false)
            guard index < codes.count, codes[index] == UInt8(ascii: "}") else { throw Malformed("a dict entry is not closed") }
            index += 1
        default:
            throw Malformed("the signature has the unknown type \(InputEcho.quoted(String(decoding: [code], as: UTF8.self)))")
        }
    }
}
