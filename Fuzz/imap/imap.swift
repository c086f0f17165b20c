// Fuzz target: the IMAP response framer and response grammar on a server's byte stream cut at
// places the first byte chooses (IMAPResponseFramer.append, IMAPResponse.parse).
// Properties: responses or an IMAPProtocolError (one bounded line); the framer's cuts do not
// depend on how the stream was split.
import BadgeSources

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafeRawPointer?, _ count: Int) -> CInt {
    let input = FuzzInput(data, count)
    var framer = IMAPResponseFramer()
    var responses: [[UInt8]] = []
    var failed = false
    streaming: for chunk in input.chunks {
        do {
            responses += try framer.append(chunk)
        } catch {
            checkMessage(error.description, "a framer error")
            failed = true
            break streaming
        }
    }
    // The same stream in one piece cuts the same responses (up to where a split one stopped).
    if !failed, input.bytes.count > 1 {
        var whole = IMAPResponseFramer()
        if let all = try? whole.append(input.bytes[1...]), all != responses {
            fuzzFailure("the responses depend on how the stream was split")
        }
    }
    for response in responses {
        do {
            _ = try IMAPResponse.parse(response)
        } catch {
            checkMessage(error.description, "a response error")
        }
    }
    return 0
}
