// Fuzz target: the D-Bus input framer and message decoder on a stream as a peer's writes would
// deliver it (the first byte chooses where it is cut): DBusInputFramer.append / nextMessage.
// Properties: messages or a Failure, never more held than was given; after a failure the
// connection is dropped (as BusConnection does), so the rest is not read.
import BadgeIO

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafeRawPointer?, _ count: Int) -> CInt {
    let input = FuzzInput(data, count)
    var framer = DBusInputFramer()
    var given = 0
    // The authentication lines come first on a real connection: the first chunk is read as lines
    // when the seed byte is odd.
    let startsWithLines = (input.bytes.first ?? 0) & 1 == 1
    streaming: for (number, chunk) in input.chunks.enumerated() {
        framer.append(chunk)
        given += chunk.count
        do {
            if startsWithLines && number == 0 {
                while let line = try framer.nextLine() { _ = line }
            }
            while let message = try framer.nextMessage() {
                _ = message.encoded(serial: 1)
            }
            framer.compact()
        } catch {
            checkMessage(error.reason, "a framer failure")
            break streaming
        }
        guard framer.heldBytes <= given else { fuzzFailure("the framer holds more than it was given") }
    }
    return 0
}
