import BadgeCore

/// One line of the control protocol that scripts use to drive badges (`badge-demo --control`).
///
/// Grammar: `set ID N`, `inc ID [N]`, `dec ID [N]`, `text ID TEXT`, `dot ID [blink]`, `clear ID|all`,
/// `add ID KEY TITLE[<tab>DETAIL]`, `add ID {JSON}`, `remove ID KEY`, `items ID`,
/// `click ID [left|middle|right|up|down]`, `peek ID|all [--at X,Y[,W,H]]`,
/// `state`, `sync TOKEN`, `activate [STARTUP_ID]`, `refresh [ID|all]`, `explain ID`, `act ID KEY|all read`, `quit`. Parsing never traps: a bad line becomes a `ControlCommandError`.
package enum ControlCommand: Hashable, Sendable {
    /// Set a count (0 or more).
    case set(id: String, count: Int)
    /// Raise a count by a step (default 1, never negative).
    case increment(id: String, by: Int)
    /// Lower a count by a step (default 1, never negative), never below 0.
    case decrement(id: String, by: Int)
    /// Show text (capped to ``TextBounds/maximumBadgeTextBytes`` bytes); empty text removes the badge.
    case text(id: String, text: String)
    /// Show a dot, optionally blinking.
    case dot(id: String, blink: Bool)
    /// Clear one badge (or every badge when id is nil).
    case clear(id: String?)
    /// Add an item to a badge, or replace the one with its key (the count becomes the items').
    case addItem(id: String, item: BadgeItem)
    /// Remove the item with `key` (an error when there is none).
    case removeItem(id: String, key: String)
    /// Report a badge's items, all of them.
    case items(id: String)
    /// Do what a click with `pointer` on the button in the window does: its click action, a new
    /// reading of its source, the peek of its items or the count's change; the secondary button
    /// opens the peek at the pointer. What a bar sends when one of its blocks is clicked.
    case click(id: String, pointer: PointerButton)
    /// Open the peek of a button (of every button, as the tray's, when `id` is nil) next to
    /// `anchor` (root pixels: where a bar was clicked), or at the pointer when `anchor` is nil.
    case peek(id: String?, anchor: PixelRect?)
    /// Report every button's state.
    case state
    /// Answer with the token once everything before it is drawn and flushed.
    case sync(token: String)
    /// Bring the window to the front (`_NET_ACTIVE_WINDOW`), with the launcher's startup id when
    /// one launched the caller (it carries the launch's time, for focus-stealing prevention).
    case activate(startupID: String?)
    /// Read a button's source again now (every source with nil).
    case refresh(id: String?)
    /// Say where a button's value comes from and how current it is.
    case explain(id: String)
    /// Act on an item of a button through its source (`act ID KEY read`), or on every item its
    /// source counts (`act ID all read`, `key` nil).
    case act(id: String, key: String?, action: ItemAction)
    /// Quit with status 0.
    case quit

    /// Every command's form, in the order the usage texts list them: one list for `--help`,
    /// `msg --help`, the unknown-command error and the tests.
    package static let forms = [
        "set ID N", "inc ID [N]", "dec ID [N]", "text ID TEXT", "dot ID [blink]", "clear ID|all",
        "add ID KEY TITLE[<tab>DETAIL]", "add ID {JSON}", "remove ID KEY", "items ID",
        "click ID [left|middle|right|up|down]", "peek ID|all [--at X,Y[,W,H]]", "state",
        "sync TOKEN", "activate [STARTUP_ID]", "refresh [ID|all]", "explain ID", "act ID KEY|all read", "quit",
    ]

    /// The longest line accepted, in bytes; longer lines are rejected whole.
    package static let maximumLineLength = 4096

    /// Parses one line (without its newline). Leading and trailing spaces are ignored.
    package static func parse(_ line: String) -> Result<ControlCommand, ControlCommandError> {
        guard line.utf8.count <= maximumLineLength else {
            return .failure(ControlCommandError(Sentence("line longer than %s bytes", .number(maximumLineLength))))
        }
        let trimmed = line.trimmingSpaces
        guard !trimmed.isEmpty else { return .failure(ControlCommandError(Sentence("empty command"))) }
        let (verb, rest) = trimmed.splitFirstWord()
        let arguments = rest.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        switch verb {
        case "set":
            guard arguments.count == 2 else { return .failure(usage("set ID N")) }
            return parseNumber(arguments[1], verb: verb, isStep: false).map { .set(id: arguments[0], count: $0) }
        case "inc", "dec":
            guard arguments.count == 1 || arguments.count == 2 else { return .failure(usage("\(verb) ID [N]")) }
            let step = arguments.count == 2 ? parseNumber(arguments[1], verb: verb, isStep: true) : .success(1)
            return step.map { verb == "inc" ? .increment(id: arguments[0], by: $0) : .decrement(id: arguments[0], by: $0) }
        case "text":
            let (id, text) = rest.splitFirstWord()
            guard !id.isEmpty else { return .failure(usage("text ID TEXT")) }
            return .success(.text(id: id, text: TextBounds.badgeText(text)))
        case "dot":
            guard arguments.count == 1 || (arguments.count == 2 && arguments[1] == "blink") else {
                return .failure(usage("dot ID [blink]"))
            }
            return .success(.dot(id: arguments[0], blink: arguments.count == 2))
        case "clear":
            guard arguments.count == 1 else { return .failure(usage("clear ID|all")) }
            return .success(.clear(id: arguments[0] == "all" ? nil : arguments[0]))
        case "add":
            return parseAdd(rest)
        case "remove":
            guard arguments.count == 2 else { return .failure(usage("remove ID KEY")) }
            return .success(.removeItem(id: arguments[0], key: arguments[1]))
        case "items":
            guard arguments.count == 1 else { return .failure(usage("items ID")) }
            return .success(.items(id: arguments[0]))
        case "click":
            guard arguments.count == 1 || arguments.count == 2 else { return .failure(usage("click ID [left|middle|right|up|down]")) }
            guard let pointer = arguments.count == 2 ? PointerButton(controlName: arguments[1]) : .primary else {
                return .failure(ControlCommandError(Sentence("click: the button must be left, middle, right, up or down (or 1 to 5), not \"%s\"", .text(InputEcho.escaped(arguments[1], quote: true)))))
            }
            return .success(.click(id: arguments[0], pointer: pointer))
        case "peek":
            return parsePeek(arguments)
        case "state":
            guard arguments.isEmpty else { return .failure(usage("state")) }
            return .success(.state)
        case "sync":
            guard arguments.count == 1 else { return .failure(usage("sync TOKEN")) }
            return .success(.sync(token: arguments[0]))
        case "activate":
            guard arguments.count <= 1 else { return .failure(usage("activate [STARTUP_ID]")) }
            return .success(.activate(startupID: arguments.first))
        case "refresh":
            guard arguments.count <= 1 else { return .failure(usage("refresh [ID|all]")) }
            return .success(.refresh(id: arguments.first == "all" ? nil : arguments.first))
        case "explain":
            guard arguments.count == 1 else { return .failure(usage("explain ID")) }
            return .success(.explain(id: arguments[0]))
        case "act":
            guard arguments.count == 3 else { return .failure(usage("act ID KEY|all read")) }
            guard let action = ItemAction(rawValue: arguments[2]) else {
                return .failure(ControlCommandError(Sentence("act: the action must be read, not \"%s\"", .text(InputEcho.escaped(arguments[2], quote: true)))))
            }
            return .success(.act(id: arguments[0], key: arguments[1] == "all" ? nil : arguments[1], action: action))
        case "quit":
            guard arguments.isEmpty else { return .failure(usage("quit")) }
            return .success(.quit)
        default:
            return .failure(ControlCommandError(Sentence("unknown command \"%s\"; expected set, inc, dec, text, dot, clear, add, remove, items, click, peek, state, sync, activate, refresh, explain, act or quit", .text(InputEcho.escaped(verb, quote: true)))))
        }
    }

    /// `add ID KEY TITLE[<tab>DETAIL]` (the title is the rest of the line, up to a tab) or
    /// `add ID {JSON}` (one item object, see ``BadgeItem/init(json:action:dismissable:)``). A
    /// producer's item tells the producer when activated, and may be dismissed.
    private static func parseAdd(_ rest: String) -> Result<ControlCommand, ControlCommandError> {
        let form = "add ID KEY TITLE[<tab>DETAIL] or add ID {JSON}"
        let (id, afterID) = rest.splitFirstWord()
        guard !id.isEmpty, !afterID.isEmpty else { return .failure(usage(form)) }
        if afterID.hasPrefix("{") {
            do {
                let json = try JSONValue(parsing: afterID)
                return .success(.addItem(id: id, item: try BadgeItem(json: json, action: .producer, dismissable: true)))
            } catch let error as JSONParseError {
                return .failure(ControlCommandError(Sentence("add: the item is not valid JSON: %s", .sentence(error.sentence))))
            } catch let error as ControlCommandError {
                return .failure(ControlCommandError(Sentence("add: %s", .sentence(error.sentence))))
            } catch {
                return .failure(ControlCommandError(Sentence("add: %s", .text("\(error)"))))
            }
        }
        let (key, text) = afterID.splitFirstWord()
        guard !key.isEmpty, !text.isEmpty else { return .failure(usage(form)) }
        let parts = text.split(separator: "\t", maxSplits: 1, omittingEmptySubsequences: false)
        let title = String(parts[0]).trimmingSpaces
        guard !title.isEmpty else { return .failure(usage(form)) }
        let detail = parts.count > 1 ? String(parts[1]) : nil
        return .success(.addItem(id: id, item: BadgeItem(key: key, title: title, detail: detail, action: .producer, isDismissable: true)))
    }

    /// `peek ID|all [--at X,Y[,W,H]]`: a point (the pointer's place in a bar's click) or a rectangle
    /// (the clicked block), in root pixels.
    private static func parsePeek(_ arguments: [String]) -> Result<ControlCommand, ControlCommandError> {
        let form = "peek ID|all [--at X,Y[,W,H]]"
        guard arguments.count == 1 || (arguments.count == 3 && arguments[1] == "--at") else { return .failure(usage(form)) }
        let id = arguments[0] == "all" ? nil : arguments[0]
        guard arguments.count == 3 else { return .success(.peek(id: id, anchor: nil)) }
        let numbers = arguments[2].split(separator: ",", omittingEmptySubsequences: false)
        let values = numbers.compactMap { Int($0) }
        guard values.count == numbers.count, values.count == 2 || values.count == 4,
              values.allSatisfy({ abs($0) <= maximumCoordinate }), values.dropFirst(2).allSatisfy({ $0 >= 0 }) else {
            return .failure(ControlCommandError(Sentence("peek: --at takes X,Y or X,Y,W,H in whole pixels (sizes 0 or more), not \"%s\"", .text(InputEcho.escaped(arguments[2], quote: true)))))
        }
        let anchor = PixelRect(x: values[0], y: values[1], width: values.count == 4 ? values[2] : 1, height: values.count == 4 ? values[3] : 1)
        return .success(.peek(id: id, anchor: anchor))
    }

    /// The largest coordinate `peek --at` takes (X's coordinates are 16-bit).
    package static let maximumCoordinate = 32767

    private static func usage(_ form: String) -> ControlCommandError {
        ControlCommandError(Sentence("usage: %s", .text(form)))
    }

    /// A count or step: a whole number, 0 or more, refused with the words D-Bus uses otherwise
    /// (`Decrement: the step must be 0 or more`), so `dec mail -3` never adds 3.
    private static func parseNumber(_ text: String, verb: String, isStep: Bool) -> Result<Int, ControlCommandError> {
        func negative(_ shown: String) -> ControlCommandError {
            ControlCommandError(isStep ? Sentence("%1$s: the step must be 0 or more, not %2$s", .text(verb), .text(shown))
                                       : Sentence("%1$s: the count must be 0 or more, not %2$s", .text(verb), .text(shown)))
        }
        guard let value = Int(text) else {
            let digits = text.drop { $0 == "-" || $0 == "+" }
            if !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) {
                if text.hasPrefix("-") { return .failure(negative(InputEcho.escaped(text, quote: true))) }
                return .failure(ControlCommandError(Sentence("number %1$s is out of range (0…%2$s)", .text(InputEcho.escaped(text, quote: true)),
                                                             .text(String(Int.max)))))
            }
            return .failure(ControlCommandError(Sentence("\"%s\" is not a whole number", .text(InputEcho.escaped(text, quote: true)))))
        }
        guard value >= 0 else { return .failure(negative(String(value))) }
        return .success(value)
    }
}

extension PointerButton {
    /// A button named in `click ID BUTTON`: `left`, `middle`, `right`, `up`, `down`, or X's and
    /// i3bar's numbers 1 to 5 (1 left, 2 middle, 3 right, 4 wheel up, 5 wheel down).
    package init?(controlName name: String) {
        switch name {
        case "left", "1": self = .primary
        case "middle", "2": self = .middle
        case "right", "3": self = .secondary
        case "up", "4": self = .wheelUp
        case "down", "5": self = .wheelDown
        default: return nil
        }
    }
}

/// Why a control line was rejected.
package struct ControlCommandError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A one-line reason for the script author, to say in the user's language.
    package let sentence: Sentence

    /// The reason in English.
    package var reason: String { sentence.english }

    /// The reason in English.
    package var description: String { reason }

    /// Creates an error with a reason.
    package init(_ sentence: Sentence) { self.sentence = sentence }
}

extension String {
    /// The string without leading and trailing spaces, tabs and carriage returns.
    var trimmingSpaces: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(self[first...last])
    }

    /// The first space-separated word, and the rest with its leading spaces removed.
    func splitFirstWord() -> (String, String) {
        guard let space = firstIndex(where: { $0 == " " || $0 == "\t" }) else { return (self, "") }
        return (String(self[..<space]), String(self[index(after: space)...]).trimmingSpaces)
    }
}
