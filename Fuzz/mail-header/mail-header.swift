// Fuzz target: a message's header block as the Maildir source reads it (MailHeaderDecoder:
// the header cut, GMime's parse, our reading of its answers). GMime itself is not instrumented
// (it is dlopen'ed), but what it hands back to us is.
// Property: a summary, never a trap; its fields are text.
import BadgeSources

nonisolated(unsafe) let decoder = MailHeaderDecoder()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafeRawPointer?, _ count: Int) -> CInt {
    let summary = decoder.summary(ofMessage: FuzzInput(data, count).bytes)
    _ = summary.subject?.count
    return 0
}
