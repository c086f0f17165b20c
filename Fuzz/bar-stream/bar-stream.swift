// Fuzz target: the bar stream `msg --watch --format F` reads back from the instance (each line a
// JSON event applied to BarFormat.Model, then every format's line), and i3bar's click events on
// standard input (I3barClickReader). The input is lines; the first byte picks the cuts.
// Properties: lines or nothing; a format's line is one line; a problem is one bounded line, a
// command one control line that parses.
@testable import BadgeApp
import BadgeControl

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafeRawPointer?, _ count: Int) -> CInt {
    let input = FuzzInput(data, count)
    let text = input.bytes.count > 1 ? input.bytes[1...] : []
    var model = BarFormat.Model(only: (input.bytes.first ?? 0) & 1 == 1 ? "mail" : nil)
    let actions = BarActions(program: "/usr/bin/badge-demo", socket: "/run/user/1000/badge-demo/control")
    for line in text.split(separator: 0x0A) {
        guard let event = try? JSONValue.parse(Array(line)), model.apply(event) else { continue }
        for format in BarFormat.allCases {
            for settings in [BarFormat.Settings(), BarFormat.Settings(actions: actions, separator: false)] {
                guard let shown = format.line(model, settings) else { continue }
                guard !shown.contains(where: \.isNewline) else { fuzzFailure("\(format) wrote a line break: \(shown.prefix(200))") }
            }
        }
    }
    var clicks = I3barClickReader()
    for chunk in input.chunks {
        let items = chunk.withUnsafeBytes { clicks.feed($0) }
        for item in items {
            switch item {
            case .problem(let problem): checkMessage(problem, "a click problem")
            case .command(let command):
                guard case .success = ControlCommand.parse(command) else { fuzzFailure("a click became a bad command: \(command.debugDescription)") }
            }
        }
    }
    return 0
}
