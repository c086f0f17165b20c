// Fuzz target: the control command line (stdin, the socket, `msg`): ControlCommand.parse.
// Properties: a command or a ControlCommandError, whose reason is one bounded line.
import BadgeControl

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafeRawPointer?, _ count: Int) -> CInt {
    let line = String(decoding: FuzzInput(data, count).bytes, as: UTF8.self)
    switch ControlCommand.parse(line) {
    case .success: break
    case .failure(let error): checkMessage(error.reason, "a control error")
    }
    return 0
}
