// Fuzz target: a command source's output (a number, or JSON with count, text, dot, description
// and items): CommandOutput.parse.
// Properties: an output or an error, whose text is one bounded line.
import BadgeSources

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafeRawPointer?, _ count: Int) -> CInt {
    switch CommandOutput.parse(FuzzInput(data, count).bytes) {
    case .success(let output):
        if let items = output.items { _ = items.items.count }
    case .failure(let error): checkMessage(error.description, "a command-output error")
    }
    return 0
}
