import BadgeCore

/// Items as JSON: how a command source's `"items"`, a producer's `add ID {…}` and the event
/// stream write them. One object per item:
/// `{"key": "42", "title": "Alice", "detail": "Lunch?", "time": 1767225600, "origin": "INBOX",
/// "icon": "mail", "description": "…", "dismissable": true, "command": ["xdg-open", "…"]}`.
/// Only `key` and `title` are required; `time` is seconds since 1970.
extension BadgeItem {
    /// The keys an item object may hold (for unknown-key warnings).
    package static let jsonKeys: JSONKeySchema = .object([
        "key": .anything, "title": .anything, "detail": .anything, "time": .anything, "origin": .anything,
        "icon": .anything, "description": .anything, "dismissable": .anything, "command": .anything,
    ])

    /// Reads an item; a missing or mistyped field is a reason a producer can act on.
    /// `action` is used when the object names no `command` (a producer's items tell the producer).
    package init(json: JSONValue, action: BadgeItemAction? = nil, dismissable: Bool = false) throws(ControlCommandError) {
        guard case .object = json, let fields = json.object else { throw ControlCommandError(Sentence("an item must be a JSON object")) }
        guard let key = fields["key"]?.string ?? fields["key"]?.int.map(String.init), !key.isEmpty else {
            throw ControlCommandError(Sentence("an item needs a \"key\" (a string)"))
        }
        guard let title = fields["title"]?.string else { throw ControlCommandError(Sentence("item \"%s\" needs a \"title\" (a string)", .text(InputEcho.escaped(key, quote: true)))) }
        func text(_ name: String) throws(ControlCommandError) -> String? {
            guard let value = fields[name], value != .null else { return nil }
            guard let text = value.string else { throw ControlCommandError(Sentence("item \"%1$s\": \"%2$s\" must be a string", .text(InputEcho.escaped(key, quote: true)), .text(name))) }
            return text
        }
        var time: Double?
        if let value = fields["time"], value != .null {
            guard let seconds = value.double, seconds.isFinite, seconds >= 0 else {
                throw ControlCommandError(Sentence("item \"%s\": \"time\" must be seconds since 1970 (0 or more)", .text(InputEcho.escaped(key, quote: true))))
            }
            time = seconds
        }
        var chosen = action
        if let value = fields["command"], value != .null {
            guard let words = value.array?.compactMap(\.string), words.count == value.array?.count, let program = words.first,
                  !program.isEmpty else {
                throw ControlCommandError(Sentence("item \"%s\": \"command\" must be a list of strings, the program first", .text(InputEcho.escaped(key, quote: true))))
            }
            chosen = .run([program] + words.dropFirst())
        }
        var canDismiss = dismissable
        if let value = fields["dismissable"], value != .null {
            guard let flag = value.bool else { throw ControlCommandError(Sentence("item \"%s\": \"dismissable\" must be true or false", .text(InputEcho.escaped(key, quote: true)))) }
            canDismiss = flag
        }
        self.init(key: key, title: title, detail: try text("detail"), time: time, origin: try text("origin"),
                  iconName: try text("icon"), action: chosen, isDismissable: canDismiss,
                  accessibleDescription: try text("description"))
    }

    /// The item as the event stream writes it (its action as `"action"`: run, notification, launch
    /// or producer; a command's words are not written).
    package var json: JSONValue {
        var fields: [(String, JSONValue)] = [("key", .string(key)), ("title", .string(title))]
        if let detail { fields.append(("detail", .string(detail))) }
        if let time { fields.append(("time", .double(time))) }
        if let origin { fields.append(("origin", .string(origin))) }
        if let iconName { fields.append(("icon", .string(iconName))) }
        if let accessibleDescription { fields.append(("description", .string(accessibleDescription))) }
        fields.append(("dismissable", .bool(isDismissable)))
        let kind: String? = switch action {
        case .run: "run"
        case .notification: "notification"
        case .launch: "launch"
        case .producer: "producer"
        case nil: nil
        }
        fields.append(("action", kind.map { .string($0) } ?? .null))
        return .object(fields)
    }
}

extension BadgeItemList {
    /// At most `limit` items, newest first, and how many more the count holds:
    /// `{"items": […], "more": 3}` as the fields of a larger object.
    package func jsonFields(limit: Int = 20) -> [(String, JSONValue)] {
        let shown = items.prefix(limit)
        return [("items", .array(shown.map(\.json))), ("moreItems", .int(count - shown.count))]
    }
}
