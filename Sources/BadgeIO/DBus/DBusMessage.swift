import BadgeCore

/// One D-Bus message: its kind, header fields and body, encoded to and decoded from the wire
/// (``DBusWire``) without libdbus.
package struct DBusMessage: Equatable, Sendable {
    /// The message types of the specification.
    package enum Kind: UInt8, Sendable {
        /// A method call.
        case methodCall = 1
        /// The answer to a call.
        case methodReturn = 2
        /// An error answering a call.
        case error = 3
        /// A signal.
        case signal = 4
    }

    /// The header's `NO_REPLY_EXPECTED` flag.
    package static let noReplyExpectedFlag: UInt8 = 0x1
    /// The largest message accepted: the specification's 128 MiB (a peer announcing more is not
    /// speaking D-Bus, and is dropped).
    package static let maximumSize = 128 << 20
    /// The largest message kept whole (4 MiB). A larger one (a notification with a 40 MB image,
    /// legal on a stock session bus) is kept as its header and the first ``keptBodyPrefix``
    /// bytes of its body (``isTruncated``); the rest is read and thrown away as it arrives, so it
    /// costs neither the connection nor memory.
    package static let maximumHeldSize = 4 << 20
    /// How much of an oversized message's body is kept (64 KiB: a notification's name, id,
    /// summary and body come before its image).
    package static let keptBodyPrefix = 64 << 10

    /// The kind.
    package var kind: Kind
    /// The header flags.
    package var flags: UInt8 = 0
    /// The sender's serial (set when sent).
    package var serial: UInt32 = 0
    /// The object path (calls and signals).
    package var path: String?
    /// The interface.
    package var interface: String?
    /// The method or signal name.
    package var member: String?
    /// The error's name (errors).
    package var errorName: String?
    /// The serial of the call answered (returns and errors).
    package var replySerial: UInt32?
    /// Where the message goes.
    package var destination: String?
    /// Who sent it (set by the bus).
    package var sender: String?
    /// The body.
    package var body: [DBusValue] = []
    /// Why the body could not be read (a type the shell never reads, such as a file descriptor, or a
    /// malformed value), or nil; the body is empty then.
    package var bodyError: String?
    /// True when the message was larger than ``maximumHeldSize``: ``body`` holds the leading values
    /// that fit in its kept part, and ``bodyError`` says so.
    package var isTruncated = false
    /// Where the body starts in the bytes the message was decoded from (0 for one made here).
    package private(set) var bodyOffset = 0

    /// A message of `kind` with these header fields and body.
    package init(kind: Kind, flags: UInt8 = 0, path: String? = nil, interface: String? = nil, member: String? = nil,
                 errorName: String? = nil, replySerial: UInt32? = nil, destination: String? = nil, body: [DBusValue] = []) {
        self.kind = kind
        self.flags = flags
        self.path = path
        self.interface = interface
        self.member = member
        self.errorName = errorName
        self.replySerial = replySerial
        self.destination = destination
        self.body = body
    }

    /// A method call.
    package static func call(_ destination: String?, path: String, interface: String?, member: String,
                             arguments: [DBusValue] = []) -> DBusMessage {
        DBusMessage(kind: .methodCall, path: path, interface: interface, member: member, destination: destination, body: arguments)
    }

    /// A signal.
    package static func signal(path: String, interface: String, member: String, arguments: [DBusValue] = []) -> DBusMessage {
        DBusMessage(kind: .signal, path: path, interface: interface, member: member, body: arguments)
    }

    /// The answer to `call` with `values`.
    package static func methodReturn(to call: DBusMessage, values: [DBusValue] = []) -> DBusMessage {
        DBusMessage(kind: .methodReturn, flags: noReplyExpectedFlag, replySerial: call.serial, destination: call.sender, body: values)
    }

    /// The error `name` answering `call`, with a message for people: one line of bounded length
    /// (``InputEcho/line(_:limit:)``), whatever the caller's arguments echoed in it held.
    package static func error(to call: DBusMessage, name: String, text: String) -> DBusMessage {
        DBusMessage(kind: .error, flags: noReplyExpectedFlag, errorName: name, replySerial: call.serial,
                    destination: call.sender, body: [.string(InputEcho.line(text))])
    }

    /// The body's signature (as received, or of the body to send).
    package var signature: String {
        get { receivedSignature ?? DBusValue.signature(of: body) }
        set { receivedSignature = newValue }
    }
    private var receivedSignature: String?

    /// True when the caller said it wants no answer.
    package var noReplyExpected: Bool { flags & Self.noReplyExpectedFlag != 0 }

    /// True for the signal `member` of `interface`.
    package func isSignal(_ interface: String, _ member: String) -> Bool {
        kind == .signal && self.interface == interface && self.member == member
    }

    // MARK: The wire

    private enum Field: UInt8 {
        case path = 1, interface, member, errorName, replySerial, destination, sender, signature, unixFDs
    }

    /// The message's bytes, little-endian, with `serial`.
    package func encoded(serial: UInt32) -> [UInt8] {
        var body = DBusWire.Writer()
        for value in self.body { body.write(value) }
        var fields: [DBusValue] = []
        func field(_ code: Field, _ value: DBusValue?) {
            if let value { fields.append(.structure([.byte(code.rawValue), .variant(value)])) }
        }
        field(.path, path.map { .objectPath($0) })
        field(.interface, interface.map { .string($0) })
        field(.member, member.map { .string($0) })
        field(.errorName, errorName.map { .string($0) })
        field(.replySerial, replySerial.map { .uint32($0) })
        field(.destination, destination.map { .string($0) })
        if !self.body.isEmpty { field(.signature, .signature(signature)) }
        var header = DBusWire.Writer()
        header.write(.byte(UInt8(ascii: "l")))
        header.write(.byte(kind.rawValue))
        header.write(.byte(flags))
        header.write(.byte(1))
        header.write(.uint32(UInt32(truncatingIfNeeded: body.bytes.count)))
        header.write(.uint32(serial))
        header.write(.array(element: "(yv)", fields))
        header.align(8)
        return header.bytes + body.bytes
    }

    /// How many bytes the message at the start of `bytes` takes: nil until its fixed header (16 bytes)
    /// is there. Throws for a header no D-Bus peer sends, or a message over ``maximumSize``.
    package static func length(ofMessageIn bytes: ArraySlice<UInt8>) throws(DBusWire.Malformed) -> Int? {
        guard bytes.count >= 16 else { return nil }
        let start = bytes.startIndex
        let little: Bool
        switch bytes[start] {
        case UInt8(ascii: "l"): little = true
        case UInt8(ascii: "B"): little = false
        default: throw DBusWire.Malformed("not a D-Bus message (byte order '\(bytes[start])')")
        }
        guard bytes[start + 3] == 1 else { throw DBusWire.Malformed("protocol version \(bytes[start + 3]) is not 1") }
        func word(_ at: Int) -> Int {
            let raw = (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[start + at + $1]) << (8 * UInt32($1)) }
            return Int(little ? raw : raw.byteSwapped)
        }
        let bodyLength = word(4), fieldsLength = word(12)
        guard bodyLength <= maximumSize, fieldsLength <= maximumSize else {
            throw DBusWire.Malformed("a message larger than \(maximumSize >> 20) MiB")
        }
        let total = (16 + fieldsLength + 7) / 8 * 8 + bodyLength
        guard total <= maximumSize else { throw DBusWire.Malformed("a message larger than \(maximumSize >> 20) MiB") }
        return total
    }

    /// Where the body of the message at the start of `bytes` begins (its fixed header and header
    /// fields, padded to 8), once its fixed header is there.
    package static func bodyOffset(ofMessageIn bytes: ArraySlice<UInt8>) -> Int? {
        guard bytes.count >= 16 else { return nil }
        let start = bytes.startIndex
        let little = bytes[start] == UInt8(ascii: "l")
        let raw = (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[start + 12 + $1]) << (8 * UInt32($1)) }
        return (16 + Int(little ? raw : raw.byteSwapped) + 7) / 8 * 8
    }

    /// Decodes one whole message (as many bytes as ``length(ofMessageIn:)`` said), or, with
    /// `partOf`, the kept start of a message of that many bytes (``isTruncated``).
    package init(decoding bytes: [UInt8], partOf total: Int? = nil) throws(DBusWire.Malformed) {
        try self.init(decoding: bytes, partOf: total, decodingBody: true)
    }

    /// Decodes the header of one whole message and, when `decodingBody` is false, leaves the body
    /// undecoded (``body`` empty; ``bodyOffset`` says where it starts), so its bytes are copied
    /// nowhere (a reply that carries a secret).
    package init(decoding bytes: [UInt8], partOf total: Int?, decodingBody: Bool) throws(DBusWire.Malformed) {
        guard let length = try Self.length(ofMessageIn: bytes[...]), length == (total ?? bytes.count), bytes.count <= length else {
            throw DBusWire.Malformed("a message of the wrong length")
        }
        let little = bytes[0] == UInt8(ascii: "l")
        guard let kind = Kind(rawValue: bytes[1]) else { throw DBusWire.Malformed("the unknown message type \(bytes[1])") }
        self.kind = kind
        flags = bytes[2]
        var header = DBusWire.Reader(bytes, littleEndian: little, start: 8)
        serial = try header.readInteger(UInt32.self)
        // The specification (and libdbus) refuse serial 0: a reply to it could not name it.
        // Found by the differential check against libdbus (Fuzz/dbus-message/regressions).
        guard serial != 0 else { throw DBusWire.Malformed("a message with serial 0") }
        guard case .array(_, let fields)? = try header.read(signature: "a(yv)").first else {
            throw DBusWire.Malformed("no header fields")
        }
        try header.align(8)
        let bodyStart = header.offset
        bodyOffset = bodyStart
        var signature = ""
        for field in fields {
            guard case .structure(let parts) = field, parts.count == 2, case .byte(let code) = parts[0],
                  case .variant(let value) = parts[1] else { continue }
            switch Field(rawValue: code) {
            case .path: path = value.stringValue
            case .interface: interface = value.stringValue
            case .member: member = value.stringValue
            case .errorName: errorName = value.stringValue
            case .replySerial: if case .uint32(let number) = value { replySerial = number }
            case .destination: destination = value.stringValue
            case .sender: sender = value.stringValue
            case .signature: signature = value.stringValue ?? ""
            case .unixFDs: throw DBusWire.Malformed("file descriptors were not negotiated")
            case nil: continue  // unknown fields are ignored, as the specification says
            }
        }
        self.signature = signature
        guard decodingBody else { return }
        var reader = DBusWire.Reader(bytes, littleEndian: little, start: bodyStart)
        if bytes.count < length {
            isTruncated = true
            body = reader.readLeading(signature: signature)
            bodyError = "the body (\(length >> 20) MiB) was too large to keep; only its first \(body.count) values were read"
            return
        }
        do throws(DBusWire.Malformed) {
            body = try reader.read(signature: signature)
            if !reader.isAtEnd { throw DBusWire.Malformed("the body is longer than its signature says") }
        } catch {
            body = []
            bodyError = error.reason
        }
    }
}
