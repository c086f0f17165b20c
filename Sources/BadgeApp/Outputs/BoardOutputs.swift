import BadgeControl
import BadgeCore
import BadgeX11

/// The event streams: `--control`'s standard output and the control socket's subscribers
/// (`msg --watch`, the bar formats), the one way out of every event that is not a command's answer:
/// changes, urgency and every ``StreamEvent``.
final class EventStreamOutput: BoardOutput {
    private let publish: (JSONValue) -> Void

    /// Publishes through `publish` (``BadgeApplication/publish(_:)``).
    init(publish: @escaping (JSONValue) -> Void) { self.publish = publish }

    func board(_ board: Board, didChange change: Board.Change) {
        switch change {
        case .badge(let button, let cause): publish(ControlEvents.change(button, cause: cause))
        case .urgency(let on): publish(ControlEvents.urgent(on))
        case .event(let event): publish(event.json)
        case .windowState, .reload, .theme: break
        }
    }
}

extension SavedCounts: BoardOutput {
    /// A badge changed: saved within ``delay``; a reload: every button's entry is looked at again.
    func board(_ board: Board, didChange change: Board.Change) {
        switch change {
        case .badge(let button, _): changed(button.id)
        case .reload: changed()
        case .urgency, .windowState, .theme, .event: break
        }
    }
}

extension BadgeOrigins: BoardOutput {
    /// A change by a person or a producer makes the value theirs; a source's, the source's.
    func board(_ board: Board, didChange change: Board.Change) {
        guard case .badge(let button, let cause) = change else { return }
        changed(button.id, by: cause, sourceKind: sourceKind(button.id))
    }
}

extension SourceBindings: BoardOutput {
    /// A change from elsewhere overrides a bound button's source until its next reading.
    func board(_ board: Board, didChange change: Board.Change) {
        guard case .badge(let button, let cause) = change else { return }
        changed(button.id, by: cause)
    }
}

extension BadgeBusService: BoardOutput {
    /// `BadgeChanged` and `PropertiesChanged` for every change; `Buttons` too after a reload.
    func board(_ board: Board, didChange change: Board.Change) {
        switch change {
        case .badge(let button, _): badgeChanged(button)
        case .reload: toolbarReplaced()
        case .event(.item("activated", let buttonID, let key)): itemActivated(buttonID: buttonID, key: key)
        case .urgency, .windowState, .theme, .event: break
        }
    }
}

/// The dock's count (LauncherEntry): what the taskbar shows, coalesced the same way.
final class DockOutput: BoardOutput {
    private let dock: LauncherEntry
    private weak var host: ToolbarHost?

    init(dock: LauncherEntry, host: ToolbarHost) {
        self.dock = dock
        self.host = host
    }

    func board(_ board: Board, didChange change: Board.Change) {
        guard case .windowState(let state) = change, let host else { return }
        dock.publish(count: host.toolbar.totalCount, urgent: state.urgent)
    }
}

/// The tray icon: the total, the urgency, the tooltip and the theme.
final class TrayOutput: BoardOutput {
    private let tray: TrayIcon
    private weak var host: ToolbarHost?
    private let title: String

    init(tray: TrayIcon, host: ToolbarHost, title: String) {
        self.tray = tray
        self.host = host
        self.title = title
    }

    func board(_ board: Board, didChange change: Board.Change) {
        switch change {
        case .theme(let theme): tray.theme = theme
        case .badge, .urgency, .windowState, .reload: update()
        case .event: break
        }
    }

    /// Shows what the toolbar shows now.
    func update() {
        guard let host else { return }
        tray.update(total: host.toolbar.totalCount, urgent: host.isUrgent, tooltip: TrayIcon.tooltip(for: host.toolbar, title: title))
    }
}
