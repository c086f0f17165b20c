import BadgeControl
import BadgeCore

extension BarFormat {
    /// What the bar shows, kept up to date from the `state` event and the `change` and `urgent`
    /// events; with ``only`` set, one button's (`msg --watch --button ID`).
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

            /// The badge's own text, for a narrow bar ("12", "•", "2?").
            var shortText: String {
                let text = kind == "dot" ? "•" : self.text.isEmpty ? BadgeController.unknownMark : self.text
                return isCurrent ? text : text + BarFormat.staleMark
            }
        }

        /// One button's part of the line.
        struct Segment: Equatable {
            /// The button's id (what a click on the segment names).
            var id: String
            /// "Mail 12", "Mail 2?".
            var text: String
            /// The badge alone: "12", "2?".
            var shortText: String
            /// Whether its count is confirmed by its source.
            var isCurrent: Bool
            /// Whether this button is why the window asks for attention.
            var isUrgent: Bool
        }

        var buttons: [Button] = []
        /// Whether the window asks for attention.
        var urgent = false
        /// The buttons whose badge grew (a count rose, or it showed something new) since the window
        /// last had nothing to ask attention for: why it asks.
        var rose: Set<String> = []
        /// The window asked for attention already when the stream began: every badge on show is why.
        var urgentFromStart = false
        /// The button whose badge grew in the last event (the instance may say the window asks
        /// for attention just before or just after the change that made it ask).
        private var grewLast: String?
        /// The one button shown (`--button ID`), or nil for all of them.
        var only: String?

        init(only: String? = nil) { self.only = only }

        /// Takes one event; true when what the bar shows may have changed.
        mutating func apply(_ event: JSONValue) -> Bool {
            let grewBefore = grewLast
            grewLast = nil
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
                urgentFromStart = urgent
                rose = []
                return true
            case "change":
                guard let id = event["id"]?.string, let index = buttons.firstIndex(where: { $0.id == id }) else { return false }
                let count = event["content"]?["count"]?.int ?? 0
                let showedNothing = buttons[index].segment == nil
                buttons[index].text = event["text"]?.string ?? ""
                buttons[index].kind = event["content"]?["kind"]?.string ?? "none"
                if count > buttons[index].count || (showedNothing && buttons[index].segment != nil) {
                    // While the window asks, each badge that grows is why; before, only the last may be.
                    if urgent { rose.insert(id) } else { rose = [id] }
                    grewLast = id
                }
                buttons[index].count = count
                if let description = event["description"]?.string { buttons[index].description = description }
                if let confidence = event["confidence"]?.string { buttons[index].confidence = confidence }
                return true
            case "urgent":
                let wasUrgent = urgent
                urgent = event["urgent"]?.bool ?? false
                if urgent && !wasUrgent { rose = grewBefore.map { [$0] } ?? [] }
                if !urgent {
                    rose = []
                    urgentFromStart = false
                }
                return true
            case "config":
                // A reload: the buttons as they are now (added, removed, relabelled).
                guard let state = event["state"], case .object = state else { return false }
                return apply(state)
            default:
                return false
            }
        }

        /// The buttons this bar shows (``only``'s, or all).
        var selected: [Button] { only.map { id in buttons.filter { $0.id == id } } ?? buttons }

        /// Whether ``only`` names a button the instance does not have.
        var missesItsButton: Bool { only.map { id in !buttons.isEmpty && !buttons.contains { $0.id == id } } ?? false }

        /// The sum of the counts shown.
        var total: Int { selected.reduce(0) { $0 &+ max(0, $1.count) } }

        /// "Notifications 3 · Mail 12? · Updates •": every badge that shows something, the
        /// unconfirmed ones marked.
        var summary: String { shown.map(\.text).joined(separator: " · ") }

        /// Each shown button's segment.
        var shown: [Segment] {
            selected.compactMap { button in
                button.segment.map {
                    Segment(id: button.id, text: $0, shortText: button.shortText, isCurrent: button.isCurrent,
                            isUrgent: urgent && (urgentFromStart || rose.contains(button.id)))
                }
            }
        }

        /// Whether any button on show is not confirmed by its source.
        var showsUnconfirmed: Bool { shown.contains { !$0.isCurrent } }

        /// "Notifications, 3 unread\nMail, 12 unread": each button's description.
        var tooltip: String { selected.map(\.description).joined(separator: "\n") }
    }
}
