@testable import BadgeX11
import Testing

/// The D-Bus wire format spoken without libdbus: values and messages round-trip, bytes match the
/// specification's layout, and hostile bytes throw instead of trapping.
@Suite("D-Bus wire format")
struct DBusWireTests {
    static let samples: [DBusValue] = [
        .byte(7), .bool(true), .int16(-2), .uint16(65_000), .int32(-70_000), .uint32(4_000_000_000),
        .int64(-1 << 40), .uint64(1 << 63), .double(2.5), .string("héllo"), .objectPath("/org/a11y/atspi/accessible/root"),
        .signature("a{sv}"), .structure([.string("a"), .objectPath("/b")]), .array(element: "s", []),
        .array(element: "i", [.int32(1), .int32(2)]), .variant(.variant(.uint32(1))),
        DBusValue.dictionary([("count", .int64(12)), ("count-visible", .bool(true))]),
        .array(element: "(iiay)", [.structure([.int32(2), .int32(2), .array(element: "y", [.byte(1), .byte(2), .byte(3), .byte(4)])])]),
    ]

    @Test("Every value round-trips through a message body", arguments: samples)
    func roundTrip(value: DBusValue) throws {
        let message = DBusMessage.signal(path: "/p", interface: "a.b", member: "C", arguments: [.byte(1), value])
        let bytes = message.encoded(serial: 9)
        #expect(try DBusMessage.length(ofMessageIn: bytes[...]) == bytes.count)
        let decoded = try DBusMessage(decoding: bytes)
        #expect(decoded.body == [.byte(1), value])
        #expect(decoded.serial == 9 && decoded.kind == .signal && decoded.path == "/p" && decoded.member == "C")
        #expect(decoded.bodyError == nil)
    }

    @Test("A Hello call is laid out as the specification says")
    func helloLayout() {
        let bytes = DBusMessage.call("org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                                     member: "Hello").encoded(serial: 1)
        // 'l', METHOD_CALL, no flags, version 1, body length 0, serial 1.
        #expect(Array(bytes[0..<12]) == [0x6C, 1, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0])
        #expect(bytes.count % 8 == 0)
    }

    @Test("Replies answer their call's serial and sender")
    func replies() throws {
        var call = DBusMessage.call("x.y", path: "/", interface: "i.j", member: "M")
        call.serial = 42
        call.sender = ":1.7"
        let reply = try DBusMessage(decoding: DBusMessage.methodReturn(to: call, values: [.bool(true)]).encoded(serial: 3))
        #expect(reply.kind == .methodReturn && reply.replySerial == 42 && reply.destination == ":1.7")
        let error = try DBusMessage(decoding: DBusMessage.error(to: call, name: "org.freedesktop.DBus.Error.Failed", text: "no").encoded(serial: 4))
        #expect(error.kind == .error && error.errorName == "org.freedesktop.DBus.Error.Failed" && error.body == [.string("no")])
    }

    @Test("Hostile bytes throw, never trap", arguments: [
        [UInt8](),
        [0x6C, 9, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0],  // unknown message type
        [0x6C, 1, 0, 2, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0],  // protocol version 2
        [0x58, 1, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0],  // byte order 'X'
        [0x6C, 1, 0, 1, 0, 0, 0, 0x7F, 1, 0, 0, 0, 0, 0, 0, 0],  // a 2 GB body
        [0x6C, 1, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 200, 0, 0, 0] + [UInt8](repeating: 0xFF, count: 200),  // garbage fields
    ])
    func hostileBytes(bytes: [UInt8]) {
        #expect(throws: DBusWire.Malformed.self) {
            let length = try DBusMessage.length(ofMessageIn: bytes[...])
            guard length == bytes.count else { throw DBusWire.Malformed("incomplete") }
            _ = try DBusMessage(decoding: bytes)
        }
    }

    @Test("A body that does not match its signature is reported, not trusted")
    func badBody() throws {
        var bytes = DBusMessage.signal(path: "/p", interface: "a.b", member: "C", arguments: [.string("abcd")]).encoded(serial: 1)
        // The string's terminating NUL is the last byte: make it something else.
        bytes[bytes.count - 1] = UInt8(ascii: "x")
        let decoded = try DBusMessage(decoding: bytes)
        #expect(decoded.bodyError != nil && decoded.body.isEmpty)
    }

    @Test("Signatures: nesting, dict entries and unknown codes are checked")
    func signatures() {
        for bad in ["(", "()", "a", "{ss}", "a{vs}", "a{sss}", "z", String(repeating: "a", count: 70) + "i"] {
            #expect(throws: DBusWire.Malformed.self, "\(bad)") {
                var reader = DBusWire.Reader([UInt8](repeating: 0, count: 64), littleEndian: true)
                _ = try reader.read(signature: bad)
            }
        }
    }

    @Test("Addresses: unix paths, abstract sockets, escapes and alternatives")
    func addresses() throws {
        #expect(try DBusAddress("unix:path=/run/user/1000/bus").endpoints == [.path("/run/user/1000/bus")])
        #expect(try DBusAddress("unix:abstract=/tmp/dbus-x,guid=1").endpoints == [.abstract("/tmp/dbus-x")])
        #expect(try DBusAddress("unix:path=/a%20b").endpoints == [.path("/a b")])
        #expect(try DBusAddress("autolaunch:;unix:path=/b").endpoints == [.path("/b")])
        #expect(try DBusAddress("tcp:host=127.0.0.1,port=4000").endpoints == [.tcp(host: "127.0.0.1", port: 4000)])
        for bad in ["", "garbage", "unix:", "autolaunch:", "tcp:host=x"] {
            #expect(throws: DBusWire.Malformed.self, "\(bad)") { _ = try DBusAddress(bad) }
        }
    }

    @Test("A refused connection waits and retries with doubling pauses, without blocking")
    func retries() throws {
        var clock = 100.0
        let bus = BusConnection(address: try DBusAddress("unix:path=/nonexistent/badgekit-bus"), label: "test", now: { clock })
        guard case .waiting(let reason, let retryAt) = bus.phase else {
            Issue.record("not waiting: \(bus.phase)")
            return
        }
        #expect(reason.contains("/nonexistent/badgekit-bus"))
        #expect(retryAt == 101 && bus.timeUntilDeadline == 1)
        #expect(bus.interest.isEmpty && bus.fileDescriptor == nil)
        var pauses: [Double] = []
        for _ in 0..<8 {
            clock = (bus.timeUntilDeadline ?? 0) + clock
            bus.handleDeadlines()
            pauses.append(bus.timeUntilDeadline ?? -1)
        }
        #expect(pauses == [2, 4, 8, 16, 32, 60, 60, 60])
        var answered = false
        bus.call("a.b", path: "/", interface: "a.b", member: "M") { values in answered = values == nil }
        #expect(answered, "a call on a bus that is away is answered nil at once")
        bus.close()
        #expect(bus.phase == BusConnection.Phase.closed && bus.timeUntilDeadline == nil)
    }

    @Test("A 40 MB message is kept as its start and the rest thrown away as it comes; the next message follows whole")
    func anOversizedMessageIsKeptInPart() throws {
        let image = DBusValue.array(element: "y", [DBusValue](repeating: .byte(0x80), count: 40 << 20))
        let big = DBusMessage.call("org.freedesktop.Notifications", path: "/org/freedesktop/Notifications",
                                   interface: "org.freedesktop.Notifications", member: "Notify",
                                   arguments: [.string("big"), .uint32(7), .string("summary"), image]).encoded(serial: 1)
        let small = DBusMessage.signal(path: "/a", interface: "a.b", member: "C", arguments: [.string("after")]).encoded(serial: 2)
        var framer = DBusInputFramer()
        var messages: [DBusMessage] = []
        let bytes = big + small
        var offset = 0
        var held = 0
        while offset < bytes.count {
            let end = min(offset + (1 << 20), bytes.count)
            framer.append(bytes[offset..<end])
            offset = end
            while let message = try framer.nextMessage() { messages.append(message) }
            framer.compact()
            held = max(held, framer.heldBytes)
        }
        try #require(messages.count == 2)
        #expect(messages[0].isTruncated && messages[0].member == "Notify")
        #expect(messages[0].body == [.string("big"), .uint32(7), .string("summary")], "the leading values that fit")
        #expect(!messages[1].isTruncated && messages[1].body == [.string("after")])
        #expect(held <= 2 << 20, "at most a read's megabyte and the kept start are held (\(held) bytes)")
    }
}
