import BadgeCore
import BadgeControl
import BadgeSources
import BadgeX11

/// Clicks that open something instead of counting (the config's `"click"`, and a launcher
/// button's application): raise its window, else launch it.
extension BadgeApplication {
    /// Installs the click handler. A button's configured action comes first (`"count": true` keeps
    /// the demo's counting); a button whose count is a producer's items shows them (the peek); a
    /// button bound to a source takes a new reading on a click and ignores the middle button and
    /// the wheel, so the pointer never changes a number its source owns; the rest count. The
    /// right button opens the peek everywhere (the host's ``ToolbarHost/Event/peekRequested(_:_:)``).
    func wireClicks(_ host: ToolbarHost) {
        host.actionHandler = { [weak self] button, _, pointer in
            guard let self else { return false }
            return self.takesClick(on: button, with: pointer, host: host) {
                self.openPeek(for: button, trigger: .pointer, host: host)
            }
        }
    }

    /// Whether the app acts on a click with `pointer` itself (a click action, a producer's items,
    /// a source's new reading) rather than letting it count; `showItems` opens the peek of a
    /// producer's items (next to the button on the window, at the pointer for a bar's click).
    func takesClick(on button: ToolbarButton, with pointer: PointerButton, host: ToolbarHost, showItems: () -> Void) -> Bool {
        if let action = config.clickActions[button.id] {
            if action == .count { return false }
            guard pointer == .primary else { return false }
            perform(action, for: button.id, host: host)
            return true
        }
        if button.badge.countIsItems {
            // A producer's items make the count: a click shows them instead of counting.
            if pointer == .primary { showItems() }
            return true
        }
        guard let bindings, bindings.ownsCount(of: button.id) else { return false }
        if pointer == .primary { _ = bindings.refresh(button.id) }
        return true
    }

    /// `click ID BUTTON` (a bar's block was clicked): what the same click on the window does. The
    /// secondary button opens the peek at the pointer; a click the app does not take changes the
    /// count as the window's would (``PointerButton/defaultAction``).
    func click(_ button: ToolbarButton, with pointer: PointerButton, host: ToolbarHost) {
        let showItems = { self.openPeek(id: button.id, at: nil, host: host) }
        if pointer == .secondary { return showItems() }
        guard !takesClick(on: button, with: pointer, host: host, showItems: showItems),
              let (action, cause) = pointer.defaultAction else { return }
        model.change(button, cause: cause) { action.apply(to: $0) }
    }

    /// The program launcher, on the loop from its first use (it reaps what it started).
    func programLauncher() -> ProgramLauncher {
        if let launcher { return launcher }
        let made = ProgramLauncher()
        loop.add(made.source())
        launcher = made
        return made
    }

    func perform(_ action: ClickAction, for id: String, host: ToolbarHost) {
        do {
            switch action {
            case .run(let arguments):
                try programLauncher().launch(arguments)
            case .raise(let windowClass):
                if try host.connection.activateClient(withClass: [windowClass], time: 0) == nil {
                    StandardError.say(Sentence("%1$s: no window of class %2$s to raise", .text(id), .text(InputEcho.escaped(windowClass, limit: 60, quote: true))))
                }
            case .count:
                break
            case .launch(let desktopID):
                let entry = try DesktopEntryFinder().entry(forID: desktopID)
                if try host.connection.activateClient(withClass: entry.windowClasses, time: 0) == nil {
                    let program = (try? entry.arguments().first) ?? desktopID
                    let launcher = programLauncher()
                    try launcher.launch(entry, startupID: launcher.startupID(for: program, time: 0))
                }
            }
            try host.connection.flush()
        } catch {
            StandardError.say(Sentence("%1$s: %2$s", .text(id), .text("\(error)")))
            board.apply(.event(.error(source: "click", reason: "\(id): \(error)")))
        }
    }
}
