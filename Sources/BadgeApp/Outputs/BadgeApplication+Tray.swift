import BadgeCore
import BadgeControl
import BadgeX11

/// The tray icon (issue 22): the shell's ``TrayIcon`` with the toolbar's total, on by default when
/// a tray or a StatusNotifierItem watcher is there (`--no-tray` turns it off). A click shows or
/// hides the window; a right click (or the StatusNotifierItem host's `ContextMenu`) opens the
/// peek of every button's count.
extension BadgeApplication {
    /// Starts the tray icon after the first frame; it observes the board (the total, urgency and theme).
    func startTray(_ host: ToolbarHost) {
        guard tray == nil, !options.noTray else { return }
        let tray: TrayIcon
        do {
            tray = try TrayIcon(host: host, iconName: identity.iconName)
        } catch {
            StandardError.say(Sentence("no tray icon: %s", .text("\(error)")))
            return
        }
        tray.theme = renderer.theme
        tray.onActivate = { [weak self, weak host] in
            guard let self, let host else { return }
            self.toggleWindow(host)
        }
        tray.onContextMenu = { [weak self, weak host] anchor in
            guard let self, let host else { return }
            self.openPeek(id: nil, at: anchor, host: host)
        }
        tray.onChange = { [weak self, weak tray] in
            guard let self, let tray else { return }
            self.board.apply(.event(.tray(.object([("event", .string("tray")), ("tray", Self.trayState(tray))]))))
        }
        self.tray = tray
        let output = TrayOutput(tray: tray, host: host, title: identity.title)
        output.update()
        board.observe(output)
    }

    /// Shows the window and brings it to the front, or hides it when it is shown.
    func toggleWindow(_ host: ToolbarHost) {
        if host.isMapped {
            host.hide()
        } else {
            host.show()
            host.activate()
        }
        try? host.connection.flush()
    }

    /// The `tray` field of `state`: "kind" (xembed, sni or none, "off" with --no-tray), "size"
    /// and "window" (the XEmbed icon's, in device pixels), "orientation", "busName", "total", "urgent", "tooltip",
    /// "tooltipShown" (the XEmbed icon's tooltip is on the screen).
    var trayState: JSONValue {
        guard let tray else { return .object([("kind", .string(options.noTray ? "off" : "none")), ("size", .null)]) }
        return Self.trayState(tray)
    }

    static func trayState(_ tray: TrayIcon) -> JSONValue {
        let size: JSONValue = tray.size.map { .object([("width", .int($0.width)), ("height", .int($0.height))]) } ?? .null
        return .object([("kind", .string(tray.kind.rawValue)), ("size", size),
                        ("window", tray.windowID.map { .int(Int($0)) } ?? .null),
                        ("orientation", tray.trayOrientation.map { .string($0) } ?? .null),
                        ("busName", tray.itemBusName.map { .string($0) } ?? .null),
                        ("total", .int(tray.total)), ("urgent", .bool(tray.urgent)), ("tooltip", .string(tray.tooltip)),
                        ("tooltipShown", .bool(tray.tooltipShown))])
    }
}
