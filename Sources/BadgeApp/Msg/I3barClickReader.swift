import BadgeCore
import BadgeControl
import BadgeCore
import BadgeIO

/// The click events i3bar and swaybar write to a `status_command`'s standard input: a `[` line,
/// then one JSON object per line (`{"name":…,"instance":…,"button":1,"x":…,"y":…,
/// "relative_x":…,"relative_y":…,"width":…,"height":…}`), each after the first led by a comma
/// (swaybar's may end in one instead). Each click on one of BadgeKit's blocks becomes the control
/// command that does what the same click on the window does: left `click ID`, middle
/// `click ID middle`, the wheel `click ID up|down`, right `peek ID --at X,Y,W,H` (the peek next to
/// the clicked block). Other buttons (a tilt wheel's, back and forward) do nothing, as on the window.
///
/// The input is bounded: a line of over ``maximumLineLength`` bytes is dropped whole, and a line
/// that is not such an event is ignored; each gets one message (up to ``maximumMessages``, then
/// one saying the rest are ignored quietly), never a trap or a stall.
struct I3barClickReader {
    /// The longest line taken, in bytes (an event is about 200).
    static let maximumLineLength = 4096
    /// How many problems are said before the rest are ignored without a word.
    static let maximumMessages = 5

    /// What a line of input became.
    enum Item: Equatable {
        /// A click that acts: the control line to send.
        case command(String)
        /// Input that is not a click event on a block of ours: why, for standard error.
        case problem(String)
    }

    private var lines = LineReader(maximumLineLength: maximumLineLength)
    private var problems = 0

    /// Feeds bytes read from standard input; returns what the lines they complete mean.
    mutating func feed(_ bytes: UnsafeRawBufferPointer) -> [Item] {
        lines.feed(bytes).compactMap { item in
            switch item {
            case .tooLong: return problem(Sentence("ignored a line of over %s bytes from the bar", .number(Self.maximumLineLength)))
            case .line(let line, _): return take(line)
            }
        }
    }

    private mutating func take(_ line: String) -> Item? {
        // Spaces and the comma before (i3bar) or after (swaybar) an event are no part of it.
        let isFiller: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "," }
        let text = String(line.drop(while: isFiller).reversed().drop(while: isFiller).reversed())
        // The opening of the endless array, and an empty line, are no clicks.
        if text.isEmpty || text == "[" { return nil }
        guard let event = try? JSONValue(parsing: text), case .object = event else {
            return problem(Sentence("ignored input from the bar that is not a click event: %s", .text(Self.quoted(text))))
        }
        guard let id = event["instance"]?.string, !id.isEmpty, let button = event["button"]?.int else {
            return problem(Sentence("ignored a click event without an instance and a button: %s", .text(Self.quoted(text))))
        }
        // An id with a space or a control character is none of our blocks' (a line would split).
        guard !id.contains(where: { $0 == " " || $0.isNewline || ($0.asciiValue ?? 32) < 32 }) else {
            return problem(Sentence("ignored a click on an unknown block: %s", .text(Self.quoted(id))))
        }
        switch button {
        case 1: return .command("click \(id)")
        case 2: return .command("click \(id) middle")
        case 4: return .command("click \(id) up")
        case 5: return .command("click \(id) down")
        case 3: return .command("peek \(id)" + (Self.blockRect(event).map { " --at \($0)" } ?? ""))
        default: return nil
        }
    }

    /// The clicked block in root pixels, "X,Y,W,H", from the click's place less its place in the
    /// block; "X,Y" with only the click's place; nil without it.
    static func blockRect(_ event: JSONValue) -> String? {
        let limit = ControlCommand.maximumCoordinate
        guard let x = event["x"]?.int, let y = event["y"]?.int, abs(x) <= limit, abs(y) <= limit else { return nil }
        if let dx = event["relative_x"]?.int, let dy = event["relative_y"]?.int, let width = event["width"]?.int,
           let height = event["height"]?.int, (0...limit).contains(width), (0...limit).contains(height),
           abs(x - dx) <= limit, abs(y - dy) <= limit {
            return "\(x - dx),\(y - dy),\(width),\(height)"
        }
        return "\(x),\(y)"
    }

    private mutating func problem(_ message: Sentence) -> Item? {
        problems += 1
        if problems < Self.maximumMessages { return .problem(message.localized) }
        if problems == Self.maximumMessages {
            return .problem(Sentence("%s; more such input is ignored without a message", .sentence(message)).localized)
        }
        return nil
    }

    /// `text` shortened and with its control characters shown as escapes, for one line of stderr.
    static func quoted(_ text: String) -> String {
        InputEcho.quoted(text, limit: 80)
    }
}
