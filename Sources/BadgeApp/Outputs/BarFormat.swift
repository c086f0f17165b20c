import BadgeControl
import BadgeCore

/// `badge-demo msg --watch --format FORMAT`: the counts as a bar reads them, one line at once and
/// one per change, each in the bar's own protocol (docs/bars.md has a module for each bar).
///
/// - `i3bar` (i3bar's and swaybar's `status_command`): the i3bar protocol, a header that asks
///   for click events, then an endless JSON array with one array of blocks per update, a block
///   per button (`name` "badge-demo", `instance` the button's id); the clicks i3bar writes to
///   standard input act as on the window (``I3barClickReader``);
/// - `i3blocks` (i3blocks' persistent JSON): one `{"full_text", "short_text", "urgent"}` block
///   for all buttons per line (what `i3bar` printed before 0.36);
/// - `polybar` (`custom/script` with `tail = true`) and `lemonbar`: text with colour tags, and
///   action tags around each button's text that run `badge-demo msg click ID` and
///   `msg peek ID` (``BarActions``);
/// - `waybar` (`custom` module, `return-type: json`): `{"text", "tooltip", "class", "alt",
///   "percentage"}`;
/// - `json`: the events as the instance sends them (with each badge's `confidence`).
///
/// A count that is not confirmed by its source (confidence `stale`, `lastSession` or `pending`
/// until the source answers) never looks current: its text ends in ``staleMark`` ("Mail 2?", "Mail ?" when
/// nothing could be read) in every format, and each format marks it its own way too: polybar
/// and lemonbar draw it grey (``staleColor``), i3bar's block and i3blocks' have `color` grey,
/// waybar adds the class `stale` and says so in the tooltip.
enum BarFormat: String, CaseIterable, Sendable {
    case json, i3bar, i3blocks, polybar, lemonbar, waybar

    /// How a stream in this format looks beyond the counts: the commands its clicks run and i3bar's
    /// separators.
    struct Settings: Equatable {
        /// The commands polybar's and lemonbar's action tags run; nil for none (plain text).
        var actions: BarActions?
        /// i3bar: a separator line after each block (i3bar's default, as i3status draws them), or
        /// none, the blocks then kept apart by a wider gap.
        var separator = true
    }

    /// The lines written once before the first (i3bar's header and the opening of its endless array).
    var prelude: [String] {
        self == .i3bar ? [#"{"version":1,"click_events":true}"#, "["] : []
    }

    /// What goes before every line after the first (i3bar's arrays are elements of one array).
    var continuation: String { self == .i3bar ? "," : "" }

    /// Whether the bar writes its clicks to the stream's standard input (i3bar and swaybar).
    var readsClicks: Bool { self == .i3bar }

    /// The line for `model` in this format (nil for `json`, which passes the events through).
    func line(_ model: Model, _ settings: Settings = Settings()) -> String? {
        switch self {
        case .json:
            return nil
        case .polybar, .lemonbar:
            return tagged(model, actions: settings.actions)
        case .waybar:
            return waybarLine(model)
        case .i3bar:
            return JSONValue.array(model.shown.map { i3barBlock($0, separator: settings.separator) }).serialized
        case .i3blocks:
            var block: [(String, JSONValue)] = [("full_text", .string(model.summary)), ("short_text", .string(model.total > 0 ? "\(model.total)" : "")),
                                                ("urgent", .bool(model.urgent)), ("name", .string(Self.blockName))]
            if model.showsUnconfirmed { block.append(("color", .string(Self.staleColor))) }
            return JSONValue.object(block).serialized
        }
    }

    /// What a bar shows while no instance runs: nothing, in the format's own shape (waybar's class
    /// `offline`, so a style can grey the module or hide it).
    var offlineLine: String {
        switch self {
        case .json, .polybar, .lemonbar:
            return ""
        case .i3bar:
            return "[]"
        case .i3blocks:
            return JSONValue.object([("full_text", .string("")), ("short_text", .string("")), ("urgent", .bool(false)),
                                     ("name", .string(Self.blockName))]).serialized
        case .waybar:
            return JSONValue.object([("text", .string("")), ("tooltip", .string("badge-demo is not running")),
                                     ("class", .string("offline")), ("alt", .string("offline"))]).serialized
        }
    }

    /// polybar's and lemonbar's line: each segment in its colour, inside its action tags. The
    /// bars read `%{…}` as tags, so a label's own is defused (polybar `% {`, lemonbar `%%`). An
    /// unconfirmed segment is grey; `%{F-}` resets to the bar's colour, so inside an urgent line
    /// the urgent colour is set again after it.
    private func tagged(_ model: Model, actions: BarActions?) -> String {
        let lineColor = model.urgent ? Self.urgentColor : nil
        let text = model.shown.map { segment in
            let escaped = self == .lemonbar ? segment.text.replacingAll("%", with: "%%") : segment.text.replacingAll("%{", with: "% {")
            let coloured = segment.isCurrent ? escaped : "%{F\(Self.staleColor)}\(escaped)" + (lineColor.map { "%{F\($0)}" } ?? "%{F-}")
            return actions?.wrap(coloured, for: segment.id, in: self) ?? coloured
        }.joined(separator: " · ")
        return lineColor.map { "%{F\($0)}\(text)%{F-}" } ?? text
    }

    /// waybar's object: the classes `urgent`, `unread` or `empty`, `zero` when no badge shows
    /// anything, and `stale`; `percentage` 0 when no badge shows anything and 100 otherwise, so a
    /// two-icon `format-icons` shows an empty and a full bell.
    private func waybarLine(_ model: Model) -> String {
        let state = model.urgent ? "urgent" : model.total > 0 ? "unread" : "empty"
        var classes = [state]
        if model.shown.isEmpty { classes.append("zero") }
        if model.showsUnconfirmed { classes.append("stale") }
        let classValue: JSONValue = classes.count == 1 ? .string(state) : .array(classes.map { .string($0) })
        return JSONValue.object([("text", .string(Self.markupEscaped(model.summary))), ("tooltip", .string(Self.markupEscaped(model.tooltip))),
                                 ("class", classValue), ("alt", .string(state)),
                                 ("percentage", .int(model.shown.isEmpty ? 0 : 100))]).serialized
    }

    /// One i3bar block: the text in full and short, urgent when this button is why the window
    /// asks for attention, grey while unconfirmed, no Pango markup (a label's `<` is text).
    private func i3barBlock(_ segment: Model.Segment, separator: Bool) -> JSONValue {
        var block: [(String, JSONValue)] = [("name", .string(Self.blockName)), ("instance", .string(segment.id)),
                                            ("full_text", .string(segment.text)), ("short_text", .string(segment.shortText)),
                                            ("urgent", .bool(segment.isUrgent)), ("markup", .string("none"))]
        if !segment.isCurrent { block.append(("color", .string(Self.staleColor))) }
        block.append(("separator", .bool(separator)))
        block.append(("separator_block_width", .int(separator ? 9 : 15)))
        return .object(block)
    }

    /// The `name` of every block BadgeKit writes (i3bar's click events carry it back).
    static let blockName = "badge-demo"

    /// Ends the text of a count its source has not confirmed: "Mail 2?".
    static let staleMark = "?"

    /// The foreground of what is not confirmed (polybar's and lemonbar's segment, i3bar's block): a neutral grey.
    static let staleColor = "#888888"

    /// polybar's and lemonbar's foreground while the window asks for attention: the badge red.
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
