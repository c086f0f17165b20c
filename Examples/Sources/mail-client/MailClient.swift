import BadgeCore
import BadgeDrawing
import BadgeX11
import Glibc

/// The mail window: its own top-level window with the message list, and a badge toolbar hosted as
/// a child window along its top edge.
final class MailClient {
    static let identity = ApplicationIdentity(instanceName: "mail-client", className: "MailClient", title: "Mail",
                                              desktopFileID: "org.example.MailClient", iconName: "mail")

    let connection: XConnection
    let window: ApplicationWindow
    /// The one owner of the toolbar's badges; the host draws it.
    let model: ToolbarModel
    let host: ToolbarHost
    let inbox: ToolbarButton
    let view: MessageListView
    var messages = MessageList.sample
    var running = true

    init(scale: Double) throws {
        connection = try XConnection()
        let text = try TextLayouts()
        let renderer = ToolbarRenderer(theme: .light, text: text, icons: try IconLibrary())
        let clock = SystemClock()
        func badge(_ label: String, _ content: BadgeContent) -> BadgeController {
            BadgeController(accessibilityLabel: label, content: content, clock: clock, measurer: text)
        }
        inbox = ToolbarButton(id: "inbox", iconName: "mail", badge: badge("Inbox", .count(messages.unreadCount)))
        let toolbar = Toolbar(buttons: [
            inbox,
            ToolbarButton(id: "alerts", iconName: "bell", badge: badge("Alerts", .count(2))),
            ToolbarButton(id: "chat", iconName: "chat", badge: badge("Chat", .text("New"))),
        ])
        window = try ApplicationWindow(connection: connection, identity: Self.identity,
                                       width: Int(480 * scale), height: Int(320 * scale))
        // The model owns the badges (no X in it): the host is a view of it, and the rest of the
        // program (the list below, a source, a bus service) changes the model, never the window.
        model = ToolbarModel(toolbar: toolbar)
        host = try ToolbarHost(model: model, renderer: renderer, connection: connection,
                               placement: .child(of: window.id, x: 0, y: 0), scale: scale, clock: clock)
        host.requestSize(width: window.width, height: host.size.height)
        view = MessageListView(text: text, scale: scale)
        host.onEvent = { [unowned self] event in self.hostEvent(event) }
        redrawContent()
        window.map()
    }

    /// The example's own loop: give every event to the host first (what it does not take is the
    /// window's), refresh the host (it draws only what changed), then sleep on everything the
    /// desktop session watches (the X connection, and the buses for screen readers and the portal)
    /// until something is ready or due.
    func run() throws {
        let session = host.session
        while running {
            while let event = connection.nextEvent() {
                if !host.handle(event) { handleMine(event) }
            }
            try host.refresh()
            guard running else { break }
            _ = session.wait()
            if let failure = connection.failure { throw failure }
        }
    }

    private func hostEvent(_ event: ToolbarHost.Event) {
        switch event {
        case .ready:
            // The toolbar's first frame is on the server; make sure the list is too before saying so.
            window.present()
            try? connection.flush()
            connection.roundTrip()
            Self.say(#"{"event":"ready","window":\#(window.id),"toolbar":\#(host.window),"toolbarHeight":\#(host.size.height)}"#)
        case .badgeChanged(let button, let cause):
            Self.say(#"{"event":"change","id":"\#(button.id)","cause":"\#(cause.rawValue)","count":\#(button.badge.count)}"#)
        case .detached:
            running = false
        default:
            break
        }
    }

    private func handleMine(_ event: XEvent) {
        switch window.handle(event) {
        case .resized(let width, _):
            host.requestSize(width: width, height: host.size.height)
            redrawContent()
        case .pointerReleased(.primary, _, let y):
            guard let row = view.row(atY: y, top: host.size.height, count: messages.items.count) else { return }
            messages.items[row].unread.toggle()
            let unread = messages.unreadCount
            model.change(inbox, cause: .click) { $0.value = .count(unread) }
            redrawContent()
            // The list's new pixels are on the server before anyone is told.
            try? connection.flush()
            connection.roundTrip()
            Self.say(#"{"event":"read","row":\#(row),"unread":\#(unread)}"#)
        case .closeRequested, .destroyed:
            running = false
        default:
            break
        }
    }

    private func redrawContent() {
        let (list, top, width, height) = (messages, host.size.height, window.width, window.height)
        try? window.draw { context in view.draw(list, top: top, width: width, height: height, in: context) }
        window.present()
        window.setTitle(list.unreadCount > 0 ? "(\(list.unreadCount)) Mail" : "Mail")
    }

    /// Writes one line to standard output at once (a test reads it).
    static func say(_ line: String) {
        print(line)
        fflush(nil)  // every stream: `stdout` itself is a C global Swift 6 rejects
    }
}
