import BadgeCore
import BadgeX11
import BadgeControl

/// The JSON events of the control channel, one object per line (see the README's table).
enum ControlEvents {
    /// `ready`: the first frame is on the server.
    static func ready(_ host: ToolbarHost) -> JSONValue {
        .object([("event", .string("ready")), ("window", .int(Int(host.window))),
                 ("width", .int(host.size.width)), ("height", .int(host.size.height)), ("scale", .double(host.scale))])
    }

    /// `change`: a badge's content changed, with its cause and the text shown.
    static func change(_ button: ToolbarButton, cause: ChangeCause) -> JSONValue {
        .object([("event", .string("change")), ("id", .string(button.id)), ("cause", .string(cause.rawValue)),
                 ("content", content(button.badge.value, blinking: button.badge.isBlinking)),
                 ("text", .string(shownText(button.badge.label))), ("description", .string(button.badge.accessibilityDescription)),
                 ("confidence", .string(button.badge.confidence.rawValue))]
                + itemFields(button))
    }

    /// A badge's newest items and how many more, for change and state events; nothing for a badge
    /// whose count is not made of items (absent means none).
    static func itemFields(_ button: ToolbarButton) -> [(String, JSONValue)] {
        button.badge.hasItems ? button.badge.items.jsonFields(limit: itemsShown) : []
    }

    /// How many items a change or state event carries per button (newest first; `moreItems` counts
    /// the rest, and `items ID` answers with all of them).
    static let itemsShown = 20

    /// `tooltip`: shown (with its text and frame) or hidden.
    static func tooltip(_ info: TooltipInfo?) -> JSONValue {
        guard let info else { return .object([("event", .string("tooltip")), ("visible", .bool(false))]) }
        return .object([("event", .string("tooltip")), ("visible", .bool(true)), ("id", .string(info.buttonID)),
                        ("text", .string(info.text)), ("tooltip", tooltipFrame(info))])
    }

    /// `urgent`: urgency set or cleared.
    static func urgent(_ on: Bool) -> JSONValue {
        .object([("event", .string("urgent")), ("urgent", .bool(on))])
    }

    /// `motion`: reduced motion switched.
    static func motion(reduced: Bool) -> JSONValue {
        .object([("event", .string("motion")), ("reduced", .bool(reduced))])
    }

    /// `sync`: every earlier command and input is drawn and flushed.
    static func sync(_ token: String) -> JSONValue {
        .object([("event", .string("sync")), ("token", .string(token))])
    }

    /// `error` for a config file that cannot be used (line 0: not a command line).
    static func configError(_ reason: String, cause: String) -> JSONValue {
        .object([("event", .string("error")), ("line", .int(0)), ("source", .string("config")), ("cause", .string(cause)),
                 ("reason", .string(reason))])
    }

    /// `config`: the config file was read again and applied; `warnings` are what it logged
    /// (unknown keys, monitors left out), empty when the file is clean.
    /// `state` is the state event as it is after the reload, so a subscriber (a bar) shows added
    /// and removed buttons at once.
    static func configReloaded(cause: String, buttons: [String], warnings: [String] = [], state: JSONValue = .null) -> JSONValue {
        .object([("event", .string("config")), ("cause", .string(cause)), ("buttons", .array(buttons.map { .string($0) })),
                 ("warnings", .array(warnings.map { .string($0) })), ("state", state)])
    }

    /// `accessibility`: screen readers started or stopped seeing the toolbar (AT-SPI2).
    static func accessibility(_ status: ToolbarHost.AccessibilityStatus) -> JSONValue {
        .object([("event", .string("accessibility"))] + accessibilityFields(status))
    }

    /// "status": "off" (with "reason"), "connecting", "waiting" (with "reason": the bus is there but
    /// cannot be used now, and is tried again), or "registered" (with "bus", the bus name).
    static func accessibilityFields(_ status: ToolbarHost.AccessibilityStatus) -> [(String, JSONValue)] {
        switch status {
        case .off(let reason): return [("status", .string("off")), ("reason", .string(reason))]
        case .connecting: return [("status", .string("connecting"))]
        case .waiting(let reason): return [("status", .string("waiting")), ("reason", .string(reason))]
        case .registered(let bus): return [("status", .string("registered")), ("bus", .string(bus))]
        }
    }

    /// `error`: a bad line.
    static func error(line: Int, reason: String) -> JSONValue {
        .object([("event", .string("error")), ("line", .int(line)), ("reason", .string(reason))])
    }

    /// `state`: every button (content, shown text, description, button and badge rectangles in
    /// window pixels), focus, title, animation, urgency, tooltip, reduced motion, size, the control
    /// socket, the D-Bus interface and the tray icon.
    static func state(_ host: ToolbarHost, now: Double, theme: Theme = .light,
                      sources: SettingOrigins = SettingOrigins(),
                      monitor: String? = nil, socket: JSONValue = .null, dbus: JSONValue = .null, tray: JSONValue = .null,
                      buttonSource: (String) -> JSONValue = { _ in .null }) -> JSONValue {
        let toolbar = host.toolbar
        let scale = host.scale
        let buttons: [JSONValue] = toolbar.buttons.map { button in
            let rest = button.badge.presentation(at: now + 3600)
            let badgeFrame: JSONValue = button.badge.label == .hidden && !button.badge.showsUnknownMark
                ? .null : rest.frame.map { rect($0.pixels(scale: scale, rounding: .nearest)) } ?? .null
            return .object([
                ("id", .string(button.id)),
                ("content", content(button.badge.value, blinking: button.badge.isBlinking)),
                ("text", .string(shownText(button.badge.label))),
                // What the window draws: the text cut with "…" to the badge's lane ("text" is in full).
                ("drawn", .string(shownText(button.badge.displayedLabel))),
                ("label", .string(button.badge.accessibilityLabel)),
                ("description", .string(button.badge.accessibilityDescription)),
                ("button", rect(button.frame.pixels(scale: scale, rounding: .nearest))),
                ("badge", badgeFrame),
                ("confidence", .string(button.badge.confidence.rawValue)),
                ("source", buttonSource(button.id)),
            ] + itemFields(button))
        }
        let animating = toolbar.animationEndTime.map { $0 > now } ?? false
        return .object([("event", .string("state")), ("buttons", .array(buttons)),
                        ("title", .string(host.wantedWindowState?.title ?? "")), ("animating", .bool(animating)),
                        ("focused", toolbar.focusedButton.map { .string($0.id) } ?? .null),
                        ("focusVisible", .bool(toolbar.focusIsVisible)),
                        ("tooltip", host.tooltip.map(tooltipFrame) ?? .null), ("peek", host.peek.map(peek) ?? .null),
                        ("urgent", .bool(host.isUrgent)),
                        ("windowFocused", .bool(host.windowHasFocus)),
                        ("accessibility", .object(accessibilityFields(host.accessibilityStatus)
                            + [("eventsSent", .int(host.accessibilityEventsSent))])),
                        ("sessionBus", host.sessionBusStatus.map { .string($0) } ?? .null), ("reducedMotion", .bool(host.reducesMotion)), ("upload", .string(host.uploadMethod)),
                        ("settings", .object([("scale", .double(host.scale)), ("scaleFrom", .string(sources.scale.rawValue)),
                                              ("monitor", monitor.map { .string($0) } ?? .null),
                                              ("theme", .string(theme.name)), ("themeFrom", .string(sources.theme.rawValue)),
                                              ("reducedMotion", .bool(host.reducesMotion)),
                                              ("reducedMotionFrom", .string(sources.reducedMotion.rawValue))])),
                        ("size", .object([("width", .int(host.size.width)), ("height", .int(host.size.height))])),
                        ("controlSocket", socket), ("dbus", dbus), ("tray", tray)])
    }

    /// The open peek: its button, window, frame (root pixels), rows (title, detail, time, frame),
    /// the highlighted row, whether it holds the grabs and whether it opened above its button.
    static func peek(_ info: PeekInfo) -> JSONValue {
        let rows: [JSONValue] = info.rows.enumerated().map { index, row in
            var fields: [(String, JSONValue)] = [("title", .string(row.title))]
            if let detail = row.detail { fields.append(("detail", .string(detail))) }
            if let trailing = row.trailing { fields.append(("time", .string(trailing))) }
            fields.append(("actionable", .bool(row.isActionable)))
            if info.rowFrames.indices.contains(index) { fields.append(("frame", rect(info.rowFrames[index]))) }
            return .object(fields)
        }
        return .object([("id", .string(info.buttonID)), ("window", .int(Int(info.window))), ("frame", rect(info.frame)),
                        ("rows", .array(rows)), ("highlighted", info.highlighted.map { .int($0) } ?? .null),
                        ("grabbed", .bool(info.isGrabbed)), ("above", .bool(info.isAbove))])
    }

    private static func tooltipFrame(_ info: TooltipInfo) -> JSONValue {
        .object([("window", .int(Int(info.window))), ("text", .string(info.text)), ("x", .int(info.frame.x)),
                 ("y", .int(info.frame.y)), ("width", .int(info.frame.width)), ("height", .int(info.frame.height))])
    }

    private static func rect(_ rect: PixelRect) -> JSONValue {
        .object([("x", .int(rect.x)), ("y", .int(rect.y)), ("width", .int(rect.width)), ("height", .int(rect.height))])
    }

    private static func content(_ content: BadgeContent, blinking: Bool) -> JSONValue {
        switch content {
        case .none: return .object([("kind", .string("none"))])
        case .count(let count): return .object([("kind", .string("count")), ("count", .int(count))])
        case .text(let text): return .object([("kind", .string("text")), ("text", .string(text))])
        case .dot: return .object([("kind", .string("dot")), ("blink", .bool(blinking))])
        }
    }

    private static func shownText(_ label: BadgeLabel) -> String {
        if case .text(let text) = label { return text }
        return ""
    }
}
