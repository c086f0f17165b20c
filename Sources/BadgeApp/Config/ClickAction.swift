import BadgeCore
import BadgeControl
import BadgeSources

/// What a click on a button does instead of counting (`"click"` in the config file):
///
///     "click": {"run": ["thunderbird", "-mail"]}      // a program, without a shell
///     "click": {"raise": "TelegramDesktop"}           // the window of that WM_CLASS, by _NET_ACTIVE_WINDOW
///     "click": {"launch": "org.telegram.desktop"}     // the application's window, else launch its desktop file
///     "click": {"count": true}                        // count clicks, even on a button bound to a source
///
/// A button bound to a launcher count raises (or launches) that application unless it says otherwise;
/// another bound button takes a new reading of its source.
enum ClickAction: Sendable, Equatable {
    case run(arguments: [String])
    case raise(windowClass: String)
    case launch(desktopID: String)
    /// The demo's counting (+1, right click -1, the wheel), also on a button bound to a source.
    case count

    /// Reads `"click"` at `at`. Keys other than run, raise and launch were warned about
    /// (``ToolbarConfig/keys``) and are passed over: nil when no known one is left.
    static func parse(_ value: JSONValue, at: String, fail: (String, Sentence) -> ToolbarConfig.Error) throws(ToolbarConfig.Error) -> ClickAction? {
        if case .object(let all) = value, !all.isEmpty, !all.contains(where: { ["run", "raise", "launch", "count"].contains($0.0) }) { return nil }
        guard case .object(let given) = value, case let members = given.filter({ ["run", "raise", "launch", "count"].contains($0.0) }),
              members.count == 1, let (kind, argument) = members.first else {
            throw fail(at, Sentence("expected one of {\"run\": [PROGRAM, ARGS…]}, {\"raise\": WM_CLASS}, {\"launch\": DESKTOP_ID} or {\"count\": true}"))
        }
        switch (kind, argument) {
        case ("run", .array(let items)):
            let arguments = items.compactMap { if case .string(let s) = $0, !s.isEmpty { return s } else { return nil } }
            guard !arguments.isEmpty, arguments.count == items.count else { throw fail("\(at).run", Sentence("expected a program and its arguments as strings")) }
            return .run(arguments: arguments)
        case ("run", .string(let line)) where !line.isEmpty:
            return .run(arguments: ["/bin/sh", "-c", line])
        case ("raise", .string(let name)) where !name.isEmpty:
            return .raise(windowClass: name)
        case ("launch", .string(let id)) where DesktopFileID(id) != nil:
            return .launch(desktopID: id)
        case ("count", .bool(true)):
            return .count
        default:
            throw fail("\(at).\(InputEcho.escaped(kind))", Sentence("expected {\"run\": [PROGRAM, ARGS…]}, {\"raise\": WM_CLASS}, {\"launch\": DESKTOP_ID} or {\"count\": true}"))
        }
    }
}
