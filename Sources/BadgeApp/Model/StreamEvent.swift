import BadgeControl
import BadgeSources

/// What the event streams say besides badge changes and urgency: every such event goes through the
/// board (``Board/Change/event(_:)``), so `--control`'s standard output and every socket subscriber
/// (`msg --watch`, the bars) hear the same things, and the outputs that act on one (the D-Bus
/// `ItemActivated`) observe it there instead of being called by hand.
enum StreamEvent {
    /// The first frame is on the server (`ready`, with the window and its size).
    case ready(JSONValue)
    /// The tooltip was shown or hidden (`tooltip`).
    case tooltip(JSONValue)
    /// Screen readers started or stopped seeing the toolbar (`accessibility`).
    case accessibility(JSONValue)
    /// Reduced motion was switched (`motion`).
    case motion(reduced: Bool)
    /// The tray icon's state changed (`tray`).
    case tray(JSONValue)
    /// The peek opened, closed, or one of its rows was activated or dismissed (`peek`; `fields`
    /// after the action and the id).
    case peek(action: String, id: String, fields: [(String, JSONValue)] = [])
    /// A producer's item was activated or dismissed in the peek (`item`).
    case item(action: String, buttonID: String, key: String)
    /// Items were asked to be marked read (`outcome` nil), or the source marked them or could not
    /// (`read`: `{"event":"read","id":…,"keys":[…] or "all":true,"state":"asked"|"marked"|"failed","reason":…}`).
    case read(buttonID: String, keys: [String]?, outcome: MarkReadOutcome?)
    /// The config file was applied, or could not be (`config`, or `error` with source `config`).
    case config(JSONValue)
    /// Something failed that no command line asked for (line 0): the peek, a click's action, the
    /// socket; `source` says where.
    case error(source: String, reason: String, fields: [(String, JSONValue)] = [])

    /// The line the streams carry.
    var json: JSONValue {
        switch self {
        case .ready(let event), .tooltip(let event), .accessibility(let event), .tray(let event), .config(let event):
            return event
        case .motion(let reduced):
            return ControlEvents.motion(reduced: reduced)
        case .peek(let action, let id, let fields):
            return .object([("event", .string("peek")), ("action", .string(action)), ("id", .string(id))] + fields)
        case .item(let action, let buttonID, let key):
            return .object([("event", .string("item")), ("action", .string(action)), ("id", .string(buttonID)), ("key", .string(key))])
        case .read(let buttonID, let keys, let outcome):
            var fields: [(String, JSONValue)] = [("event", .string("read")), ("id", .string(buttonID))]
            fields.append(keys.map { ("keys", .array($0.map(JSONValue.string))) } ?? ("all", .bool(true)))
            switch outcome {
            case nil: fields.append(("state", .string("asked")))
            case .marked?: fields.append(("state", .string("marked")))
            case .failed(let reason)?: fields += [("state", .string("failed")), ("reason", .string(reason))]
            }
            return .object(fields)
        case .error(let source, let reason, let fields):
            return .object([("event", .string("error")), ("line", .int(0)), ("source", .string(source))] + fields
                           + [("reason", .string(reason))])
        }
    }
}
