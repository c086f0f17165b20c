import BadgeCore
import BadgeIO
import BadgeX11

/// The open peek's one owner: its menu (the rows shown and what each stands for), set when the
/// app opens one and cleared when the window says it closed, and kept in step with its badge as a
/// board output: a change of the button's items or value redraws the peek (a notification closed
/// elsewhere, a new mail), and a reload closes it. The window keeps only what it draws.
final class PeekController: BoardOutput {
    private weak var application: BadgeApplication?
    /// The open peek's menu, or nil while none is open.
    private(set) var openMenu: PeekMenu?

    init(application: BadgeApplication) { self.application = application }

    /// A peek showing `menu` was opened.
    func opened(_ menu: PeekMenu) { openMenu = menu }

    /// The peek closed.
    func closed() { openMenu = nil }

    func board(_ board: Board, didChange change: Board.Change) {
        guard let application, let host = application.host, let open = openMenu else { return }
        switch change {
        case .badge(let button, _) where button.id == open.buttonID || open.buttonID == PeekMenu.totalID:
            let menu = open.buttonID == PeekMenu.totalID
                ? PeekMenu.total(of: host.toolbar.buttons, now: SystemTime.realtime, words: application.peekWords)
                : application.peekMenu(for: button)
            guard menu != open else { return }
            openMenu = menu
            host.updatePeek(rows: menu.rows)
        case .reload:
            host.closePeek()
        default:
            break
        }
    }
}
