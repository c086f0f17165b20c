import BadgeControl
import BadgeCore
import BadgeIO
import BadgeSources
import BadgeX11

/// The peek: a right press, the Menu key or Shift+F10 on a button opens the list of what is
/// behind its badge (``PeekMenu``); activating a row does the item's action, dismissing one
/// removes a producer's item or closes a notification. Every open, activation, dismissal and
/// close is an event on the streams (`{"event":"peek",…}`; a producer's item also
/// `{"event":"item",…}` and the D-Bus `ItemActivated`).
extension BadgeApplication {
    /// Opens `button`'s peek.
    func openPeek(for button: ToolbarButton, trigger: PeekTrigger, host: ToolbarHost) {
        let menu = peekMenu(for: button)
        do {
            try host.openPeek(for: button, rows: menu.rows, trigger: trigger, strings: peekWords.peek)
            peek.opened(menu)
        } catch {
            let reason = Sentence("%1$s: cannot open the peek: %2$s", .text(button.id), .text("\(error)"))
            StandardError.say(reason)
            board.apply(.event(.error(source: "peek", reason: reason.localized)))
        }
    }

    /// `peek ID|all [--at …]`, a bar's right click and the tray's: the peek of one button (of
    /// every button with nil) next to `anchor` in root pixels (the tray icon, a bar's block), or at the pointer when nil. It works
    /// while the window is hidden (a bar user may never show it); keys and the screen reader work
    /// as in the peek the window opens.
    func openPeek(id: String?, at anchor: PixelRect?, host: ToolbarHost) {
        let place: PixelRect
        if let anchor {
            place = anchor
        } else {
            do {
                let pointer = try host.connection.pointerPosition()
                place = PixelRect(x: pointer.x, y: pointer.y, width: 1, height: 1)
            } catch {
                let reason = Sentence("%1$s: cannot open the peek at the pointer: %2$s", .text(id ?? "all"), .text("\(error)"))
                StandardError.say(reason)
                board.apply(.event(.error(source: "peek", reason: reason.localized)))
                return
            }
        }
        let menu = id.flatMap { toolbar.button(id: $0) }.map { peekMenu(for: $0) }
            ?? PeekMenu.total(of: toolbar.buttons, now: SystemTime.realtime, words: peekWords)
        do {
            try host.openPeek(anchoredAt: place, id: menu.buttonID, rows: menu.rows, trigger: .pointer, strings: peekWords.peek)
            peek.opened(menu)
        } catch {
            let reason = Sentence("%1$s: cannot open the peek: %2$s", .text(menu.buttonID), .text("\(error)"))
            StandardError.say(reason)
            board.apply(.event(.error(source: "peek", reason: reason.localized)))
        }
    }

    /// The peek's rows for `button` as it is now.
    func peekMenu(for button: ToolbarButton) -> PeekMenu {
        let explanation = bindings?.explanation(of: button.id)?.localized ?? originWords(of: button.id)
        return PeekMenu.make(for: button, explanation: explanation, ownsCount: bindings?.ownsCount(of: button.id) == true,
                             now: SystemTime.realtime, words: peekWords, marksRead: bindings?.marksRead(button.id) == true,
                             readFailure: bindings?.readFailure(of: button.id), staleReason: bindings?.staleReason(of: button.id))
    }

    /// The peek's words in the user's language (BadgeKit's catalogue and the app's own).
    var peekWords: PeekMenu.Words {
        let notMarked = locale.translate("Not marked read: %s", domain: Self.domain)
        return PeekMenu.Words(peek: locale.peekStrings,
                              readAgain: locale.translate("Read again", domain: Self.domain),
                              clear: locale.translate("Clear", domain: Self.domain),
                              plusOne: locale.translate("plus 1", domain: Self.domain),
                              minusOne: locale.translate("minus 1", domain: Self.domain),
                              markRead: locale.translate("Mark read", domain: Self.domain),
                              markAllRead: locale.translate("Mark all read", domain: Self.domain),
                              notMarkedRead: { reason in DesktopLocale.substitute(notMarked, [reason]) })
    }

    /// What the open peek reported.
    func peekEvent(_ event: PeekEvent, host: ToolbarHost) {
        switch event {
        case .opened(let id):
            board.apply(.event(.peek(action: "opened", id: id)))
        case .closed(let id, let reason):
            peek.closed()
            board.apply(.event(.peek(action: "closed", id: id, fields: [("reason", .string(reason.rawValue))])))
        case .activated(let id, let row):
            guard let menu = peek.openMenu, menu.buttonID == id else { return }
            board.apply(.event(.peek(action: "activated", id: id, fields: [("row", .int(row))])))
            activate(menu.entry(at: row), host: host)
        case .secondary(let id, let row):
            guard let menu = peek.openMenu, menu.buttonID == id, case .item(let buttonID, let key) = menu.entry(at: row) else { return }
            board.apply(.event(.peek(action: "secondary", id: id, fields: [("row", .int(row)), ("key", .string(key))])))
            markRead(buttonID, keys: [key])
        case .dismissed(let id, let row):
            guard let menu = peek.openMenu, menu.buttonID == id, case .item(let buttonID, let key) = menu.entry(at: row),
                  let button = toolbar.button(id: buttonID), let item = button.badge.items.item(forKey: key) else { return }
            board.apply(.event(.peek(action: "dismissed", id: id, fields: [("row", .int(row)), ("key", .string(key))])))
            dismiss(item, of: button, host: host)
        }
    }

    private func activate(_ entry: PeekMenu.Entry, host: ToolbarHost) {
        switch entry {
        case .note:
            break
        case .edit(let id, let action):
            guard let button = toolbar.button(id: id) else { return }
            model.change(button, cause: .click) { action.apply(to: $0) }
        case .refresh(let id):
            _ = bindings?.refresh(id)
        case .markAllRead(let id):
            markRead(id, keys: nil)
        case .item(let id, let key):
            guard let button = toolbar.button(id: id), let item = button.badge.items.item(forKey: key), let action = item.action else {
                return
            }
            switch action {
            case .run(let arguments):
                perform(.run(arguments: arguments), for: button.id, host: host)
            case .launch(let desktopID):
                perform(.launch(desktopID: desktopID), for: button.id, host: host)
            case .notification(let id, _):
                bindings?.closeNotification(id, of: button.id)
            case .producer:
                publishItemEvent("activated", button: button, key: key)
            }
        }
    }

    /// Marks items read from the peek; a refusal (the item went meanwhile) is an error event.
    private func markRead(_ id: String, keys: [String]?) {
        let refusal = if let bindings { bindings.markRead(id, keys: keys) } else { Sentence("%s has no source to mark anything read", .text(id)) }
        guard let refusal else { return }
        board.apply(.event(.error(source: "peek", reason: refusal.localized)))
    }

    private func dismiss(_ item: BadgeItem, of button: ToolbarButton, host: ToolbarHost) {
        guard item.isDismissable else { return }
        switch item.action {
        case .notification(let id, _)?:
            // The daemon's NotificationClosed takes it off the count and the peek.
            bindings?.closeNotification(id, of: button.id)
        default:
            model.change(button, cause: .click) { $0.removeItem(key: item.key) }
            publishItemEvent("dismissed", button: button, key: item.key)
        }
    }

    /// `{"event":"item","action":…,"id":…,"key":…}` for the producer (the D-Bus service, an
    /// output like the others, sends `ItemActivated` for it).
    private func publishItemEvent(_ action: String, button: ToolbarButton, key: String) {
        board.apply(.event(.item(action: action, buttonID: button.id, key: key)))
    }
}
