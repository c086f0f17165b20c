import BadgeControl

/// `badge-demo msg --watch --format FORMAT`: the counts as a bar's script module reads them, one
/// line at once and one per change.
///
/// - `polybar` (`custom/script` with `tail = true`): plain text, in the badge colour while urgent;
/// - `waybar` (`custom` module, `return-type: json`): `{"text", "tooltip", "class", "alt"}`;
/// - `i3bar` (i3blocks' persistent JSON blocks): `{"full_text", "short_text", "urgent"}`;
/// - `json`: the events as the instance sends them.
enum BarFormat: String, CaseIterable, Sendable {
    case json, polybar, i3bar, waybar

    /// What the bar shows, kept up to date from the `state` event and the `change` and `urgent` events.
    struct Model: Equatable {
        struct Button: Equatable {
            var id: String
            var label: String
            var text: String
            var kind: String
            var count: Int
            var description: String
        }
        var buttons: [Button] = []
        var urgent = false

        /// Takes one event; true when what the bar shows may have changed.
        mutating func apply(_ event: JSONValue) -> Bool {
            switch event["event"]?.string {
            case "state":
                buttons = (event["buttons"]?.array ?? []).compactMap { item in
                    guard let id = item["id"]?.string else { return nil }
                    return Button(id: id, label: item["label"]?.string ?? id, text: item["text"]?.string ?? "",
                                  kind: item["content"]?["kind"]?.string ?? "none", count: item["content"]?["count"]?.int ?? 0,
                                  description: item["description"]?.string ?? id)
                }
                urgent = event["urgent"]?.bool ?? false
                return true
            case "change":
                guard let id = event["id"]?.string, let index = buttons.firstIndex(where: { $0.id == id }) else { return false }
                buttons[index].text = event["text"]?.string ?? ""
                buttons[index].kind = event["content"]?["kind"]?.string ?? "none"
                buttons[index].count = event["content"]?["count"]?.int ?? 0
                if let description = event["description"]?.string { buttons[index].description = description }
                return true
            case "urgent":
                urgent = event["urgent"]?.bool ?? false
                return true
            case "config":
                // A reload: the buttons as they are now (added, removed, relabelled).
                guard let state = event["state"], case .object = state else { return false }
                return apply(state)
            default:
                return false
            }
        }

        /// The sum of the counts.
        var total: Int { buttons.reduce(0) { $0 &+ max(0, $1.count) } }

        /// "Notifications 3 · Mail 12 · Updates •": every badge that shows something.
        var summary: String {
            buttons.compactMap { button -> String? in
                if button.kind == "dot" { return "\(button.label) •" }
                return button.text.isEmpty ? nil : "\(button.label) \(button.text)"
            }.joined(separator: " · ")
        }

        /// "Notifications, 3 unread\nMail, 12 unread": each button's description.
        var tooltip: String { buttons.map(\.description).joined(separator: "\n") }
    }

    /// The line for `model` in this format (nil for `json`, which passes the events through).
    func line(_ model: Model) -> String? {
        switch self {
        case .json:
            return nil
        case .polybar:
            // polybar reads %{…} as formatting tags: a label's own "%{" must not become one.
            let text = model.summary.replacingAll("%{", with: "% {")
            return model.urgent ? "%{F#E53935}\(text)%{F-}" : text
        case .waybar:
            let state = model.urgent ? "urgent" : model.total > 0 ? "unread" : "empty"
            return JSONValue.object([("text", .string(Self.markupEscaped(model.summary))), ("tooltip", .string(Self.markupEscaped(model.tooltip))),
                                     ("class", .string(state)), ("alt", .string(state))]).serialized
        case .i3bar:
            return JSONValue.object([("full_text", .string(model.summary)), ("short_text", .string(model.total > 0 ? "\(model.total)" : "")),
                                     ("urgent", .bool(model.urgent)), ("name", .string("badge-demo"))]).serialized
        }
    }

    /// Text for Pango markup (waybar's text and tooltip).
    static func markupEscaped(_ text: String) -> String {
        text.replacingAll("&", with: "&amp;").replacingAll("<", with: "&lt;").replacingAll(">", with: "&gt;")
    }
}

extension String {
    /// Every `target` replaced by `replacement` (no Foundation).
    func replacingAll(_ target: String, with replacement: String) -> String {
        guard !target.isEmpty else { return self }
        var result = ""
        var rest = Substring(self)
        while let range = rest.firstRange(of: target) {
            result += rest[..<range.lowerBound]
            result += replacement
            rest = rest[range.upperBound...]
        }
        return result + rest
    }
}
