import BadgeControl
import BadgeCore

/// `badge-demo msg --watch --format FORMAT`: the counts as a bar's script module reads them, one
/// line at once and one per change.
///
/// - `polybar` (`custom/script` with `tail = true`): plain text, in the badge colour while urgent;
/// - `waybar` (`custom` module, `return-type: json`): `{"text", "tooltip", "class", "alt"}`;
/// - `i3bar` (i3blocks' persistent JSON blocks): `{"full_text", "short_text", "urgent"}`;
/// - `json`: the events as the instance sends them (with each badge's `confidence`).
///
/// A count that is not confirmed by its source (confidence `stale`, `lastSession` or `pending`
/// until the source answers) never looks current: its text ends in ``staleMark`` ("Mail 2?", "Mail ?" when
/// nothing could be read) in every format, and each format marks it its own way too: polybar draws
/// it grey (``staleColor``), waybar adds the class `stale` (`class` becomes an array) and says so in
/// the tooltip (the description's "not up to date" or "last session"), i3bar sets `color` grey.
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
            /// `current`, `stale`, `lastSession` or `pending` (``BadgeConfidence``); a word this
            /// client does not know (a newer instance's) counts as current.
            var confidence = BadgeConfidence.current.rawValue

            /// Whether the count is confirmed by its source (or was set by someone).
            var isCurrent: Bool {
                ![BadgeConfidence.stale, .lastSession, .pending].map(\.rawValue).contains(confidence)
            }

            /// What the bar says for this button ("Mail 12", "Updates •", "Mail 2?"), nil when it shows nothing.
            var segment: String? {
                if kind == "dot" { return "\(label) •" + (isCurrent ? "" : BarFormat.staleMark) }
                if isCurrent { return text.isEmpty ? nil : "\(label) \(text)" }
                // Not confirmed: "Mail 2?", and "Mail ?" for a count that could not be read at all
                // (the window's unknown mark), so "nothing known" never reads as "nothing unread".
                let shown = text.isEmpty ? BadgeController.unknownMark : text + BarFormat.staleMark
                return confidence == BadgeConfidence.stale.rawValue || !text.isEmpty ? "\(label) \(shown)" : nil
            }
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
                                  description: item["description"]?.string ?? id,
                                  confidence: item["confidence"]?.string ?? BadgeConfidence.current.rawValue)
                }
                urgent = event["urgent"]?.bool ?? false
                return true
            case "change":
                guard let id = event["id"]?.string, let index = buttons.firstIndex(where: { $0.id == id }) else { return false }
                buttons[index].text = event["text"]?.string ?? ""
                buttons[index].kind = event["content"]?["kind"]?.string ?? "none"
                buttons[index].count = event["content"]?["count"]?.int ?? 0
                if let description = event["description"]?.string { buttons[index].description = description }
                if let confidence = event["confidence"]?.string { buttons[index].confidence = confidence }
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

        /// "Notifications 3 · Mail 12? · Updates •": every badge that shows something, the
        /// unconfirmed ones marked.
        var summary: String { shown.map(\.text).joined(separator: " · ") }

        /// Each button's segment, and whether it is current.
        var shown: [(text: String, isCurrent: Bool)] {
            buttons.compactMap { button in button.segment.map { ($0, button.isCurrent) } }
        }

        /// Whether any button on show is not confirmed by its source.
        var showsUnconfirmed: Bool { shown.contains { !$0.isCurrent } }

        /// "Notifications, 3 unread\nMail, 12 unread": each button's description.
        var tooltip: String { buttons.map(\.description).joined(separator: "\n") }
    }

    /// The line for `model` in this format (nil for `json`, which passes the events through).
    func line(_ model: Model) -> String? {
        switch self {
        case .json:
            return nil
        case .polybar:
            // polybar reads %{…} as formatting tags: a label's own "%{" must not become one. An
            // unconfirmed segment is grey; `%{F-}` resets to the bar's colour, so inside an urgent
            // line the urgent colour is set again after it.
            let lineColor = model.urgent ? Self.urgentColor : nil
            let text = model.shown.map { segment in
                let text = segment.text.replacingAll("%{", with: "% {")
                return segment.isCurrent ? text : "%{F\(Self.staleColor)}\(text)" + (lineColor.map { "%{F\($0)}" } ?? "%{F-}")
            }.joined(separator: " · ")
            return lineColor.map { "%{F\($0)}\(text)%{F-}" } ?? text
        case .waybar:
            let state = model.urgent ? "urgent" : model.total > 0 ? "unread" : "empty"
            let classes: JSONValue = model.showsUnconfirmed ? .array([.string(state), .string("stale")]) : .string(state)
            return JSONValue.object([("text", .string(Self.markupEscaped(model.summary))), ("tooltip", .string(Self.markupEscaped(model.tooltip))),
                                     ("class", classes), ("alt", .string(state))]).serialized
        case .i3bar:
            var block: [(String, JSONValue)] = [("full_text", .string(model.summary)), ("short_text", .string(model.total > 0 ? "\(model.total)" : "")),
                                                ("urgent", .bool(model.urgent)), ("name", .string("badge-demo"))]
            if model.showsUnconfirmed { block.append(("color", .string(Self.staleColor))) }
            return JSONValue.object(block).serialized
        }
    }

    /// Ends the text of a count its source has not confirmed: "Mail 2?".
    static let staleMark = "?"

    /// The foreground of what is not confirmed (polybar's segment, i3bar's block): a neutral grey.
    static let staleColor = "#888888"

    /// polybar's foreground while the window asks for attention: the badge red.
    static let urgentColor = "#E53935"

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
