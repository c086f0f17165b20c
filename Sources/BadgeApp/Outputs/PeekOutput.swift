import BadgeCore
import BadgeIO
import BadgeX11

/// Keeps an open peek's rows in step with its badge: a change of the button's items or value
/// redraws the peek (a notification closed elsewhere, a new mail), and a reload closes it.
final class PeekOutput: BoardOutput {
    private weak var application: BadgeApplication?

    init(application: BadgeApplication) { self.application = application }

    func board(_ board: Board, didChange change: Board.Change) {
        guard let application, let host = application.host, let open = application.openPeekMenu else { return }
        switch change {
        case .badge(let button, _) where button.id == open.buttonID || open.buttonID == PeekMenu.totalID:
            let menu = open.buttonID == PeekMenu.totalID
                ? PeekMenu.total(of: host.toolbar.buttons, now: SystemTime.realtime, words: application.peekWords)
                : application.peekMenu(for: button)
            guard menu != open else { return }
            application.openPeekMenu = menu
            host.updatePeek(rows: menu.rows)
        case .reload:
            host.closePeek()
        default:
            break
        }
    }
}
