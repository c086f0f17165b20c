import BadgeCore
import BadgeX11

/// The one place every change of the badges goes through on its way out: the board.
///
/// Every input (a click, a key, stdin, the socket, D-Bus, a screen reader, a source, a config
/// reload, the restored state) changes the toolbar through ``ToolbarHost/change(_:cause:_:)``, the
/// host's funnel, or replaces it (a reload). The board takes what the funnel reports and hands
/// each change, once it is made, to every output that observes it: the `--control` and socket
/// event streams, the saved state, the provenance, the source bindings' overrides, the D-Bus
/// service, the tray and the dock. Outputs read the final state; none calls another, and none is
/// wrapped around another (the tray used to wrap the host's event handler), so their order does
/// not matter. ``revision`` counts the changes.
///
/// Not Sendable: the loop's thread only.
final class Board {
    /// What changed, as every output sees it.
    enum Change {
        /// A badge changed (its content, format, confidence or provenance), by `cause`.
        case badge(ToolbarButton, cause: ChangeCause)
        /// The window asks for attention, or no longer does.
        case urgency(Bool)
        /// The total and the urgency the taskbar shows were pushed (coalesced as the title is).
        case windowState(WindowState)
        /// The config file was applied: the host shows `toolbar` now (buttons added, removed, relabelled).
        case reload(Toolbar, ToolbarConfig)
        /// The theme in effect changed.
        case theme(Theme)
        /// Something happened that the event streams tell (``StreamEvent``): ready, tooltip,
        /// accessibility, motion, tray, peek, item, config and errors no command asked for.
        case event(StreamEvent)
    }

    /// Who sees a change: the keepers of state that follows from it first (where each value came
    /// from, a source's override), then the outputs, which all read the same final state.
    enum Stage {
        /// Keeps state derived from the change (``BadgeOrigins``, ``SourceBindings``).
        case state
        /// Shows, saves or sends it.
        case output
    }

    /// How many changes the board has handed out.
    private(set) var revision = 0
    private var keepers: [any BoardOutput] = []
    private var outputs: [any BoardOutput] = []

    /// Adds `observer` at `stage`; it sees every change from now on (once, however often it is added).
    func observe(_ observer: any BoardOutput, at stage: Stage = .output) {
        guard !(keepers + outputs).contains(where: { $0 === observer }) else { return }
        switch stage {
        case .state: keepers.append(observer)
        case .output: outputs.append(observer)
        }
    }

    /// Hands `change`, already made, to the keepers of state, then to every output.
    func apply(_ change: Change) {
        revision &+= 1
        for keeper in keepers { keeper.board(self, didChange: change) }
        for output in outputs { output.board(self, didChange: change) }
    }
}

/// Something that shows, keeps or sends what the board says: it observes every change.
protocol BoardOutput: AnyObject {
    /// `change` is made; read the state it left.
    func board(_ board: Board, didChange change: Board.Change)
}
