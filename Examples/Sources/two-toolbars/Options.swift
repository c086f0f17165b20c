/// The command line.
struct Options {
    /// Seconds between new mails on toolbar A's inbox; 0: no mail.
    var mailInterval = 0.2
    /// The window of another client to embed one toolbar in, instead of a window of our own.
    var into: UInt32?
    /// What was wrong with the command line.
    var problem: String?

    init(arguments: [String]) {
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "--mail-every":
                guard let value = rest.popFirst().flatMap(Double.init), value >= 0 else {
                    problem = "--mail-every needs a number of seconds"
                    return
                }
                mailInterval = value
            case "--into":
                guard let text = rest.popFirst(), let window = Self.windowID(text) else {
                    problem = "--into needs a window id (decimal or 0x hexadecimal)"
                    return
                }
                into = window
            default:
                problem = "unknown argument \(argument)"
                return
            }
        }
    }

    static func windowID(_ text: String) -> UInt32? {
        if text.hasPrefix("0x") { return UInt32(text.dropFirst(2), radix: 16) }
        return UInt32(text)
    }
}

/// Writes one line to standard output.
func say(_ line: String) {
    print(line)
}
