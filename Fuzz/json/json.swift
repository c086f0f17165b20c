// Fuzz target: the JSON reader (BadgeControl's JSONValue.parse), which reads control lines, the
// config, the saved state, command output and the event stream.
// Properties: it answers a value or a JSONParseError; an accepted text serializes to a text that
// parses back to the same value; an error's position lies within the text.
import BadgeControl

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafeRawPointer?, _ count: Int) -> CInt {
    let input = FuzzInput(data, count)
    do {
        let value = try JSONValue.parse(input.bytes)
        let text = value.serialized
        verdict("A " + text)
        guard let again = try? JSONValue.parse(Array(text.utf8)) else { fuzzFailure("serialized text does not parse: \(text.prefix(200))") }
        guard again.serialized == text else { fuzzFailure("round trip changed the value: \(text.prefix(200))") }
    } catch {
        verdict("R " + error.reason)
        guard error.offset >= 0, error.offset <= input.bytes.count, error.line >= 1, error.column >= 1 else {
            fuzzFailure("error outside the text: \(error)")
        }
    }
    return 0
}
