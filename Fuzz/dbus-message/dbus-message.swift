// Fuzz target: one D-Bus message decoded whole (DBusMessage(decoding:)), as the framer hands it on.
// Properties: a message or a Malformed (one bounded line); a decoded message (its body read
// whole) encodes to bytes that decode to the same message, the sender and body offset aside.
import BadgeControl
import BadgeIO

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafeRawPointer?, _ count: Int) -> CInt {
    let bytes = FuzzInput(data, count).bytes
    _ = try? DBusMessage.length(ofMessageIn: bytes[...])
    do {
        let message = try DBusMessage(decoding: bytes)
        verdict("A " + JSONValue.array([.int(Int(message.kind.rawValue)), .int(Int(message.serial)), .int(Int(message.replySerial ?? 0))]
            + [message.path, message.interface, message.member, message.errorName, message.destination, message.sender,
               message.signature, message.bodyError].map { JSONValue.string($0 ?? "") }).serialized)
        let encoded = message.encoded(serial: message.serial == 0 ? 1 : message.serial)
        let again: DBusMessage
        do { again = try DBusMessage(decoding: encoded) } catch { fuzzFailure("a decoded message re-encodes to bytes it refuses: \(error)") }
        // What our encoder writes: every field but the sender (the bus adds it) and where the body
        // starts (it follows the fields written).
        func written(_ m: DBusMessage) -> String {
            "\(m.kind) \(m.flags) \(m.serial) \(m.path ?? "-") \(m.interface ?? "-") \(m.member ?? "-") \(m.errorName ?? "-") \(m.replySerial.map(String.init) ?? "-") \(m.destination ?? "-") \(m.signature) \(m.body)"
        }
        guard message.bodyError != nil || message.isTruncated || written(again) == written(message) else {
            fuzzFailure("a message changed on its way back: \(message) / \(again)")
        }
    } catch {
        verdict("R \(error)")
        checkMessage("\(error)", "a decoder failure")
    }
    return 0
}
