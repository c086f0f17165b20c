import BadgeCore
import BadgeDrawing
import CXCB
import Glibc

/// The peek: a popup under a button that lists what is behind its badge, as GTK's and Qt's popup
/// menus behave on X11. The host asks for it (``Event/peekRequested(_:_:)``: a right press, the
/// Menu key, Shift+F10), the application gives the rows (``openPeek(for:rows:trigger:strings:)``), and
/// the host reports what the person did with them (``Event/peek(_:)``).
///
/// - It is an override-redirect `_NET_WM_WINDOW_TYPE_POPUP_MENU` window, transient for the
///   toolbar's, placed under the button inside the work area of the button's monitor
///   (`_NET_WORKAREA` where a window manager sets one, else the monitor), flipped above it when it
///   fits only there, mirrored in right-to-left, in the toolbar's theme and scale; never wider
///   than the work area and slid into it at its left and right edges.
/// - When its rows fit neither below nor above (many items at 2×, a button near an edge), it opens
///   on the side with more room, limited to it, and shows only its first rows that fit whole there
///   and one note for the rest ("and N more", ``PeekRow/cut(_:keeping:strings:)``): no row is ever
///   drawn cut by its edge. It does not scroll: the rows it reports (``peek``), the highlight and
///   the pointer only ever reach the rows it shows, so the keyboard highlight never lands on a row
///   that cannot be seen. Activations and dismissals name rows by the index in the rows given,
///   which the shown rows keep (they are the first ones).
/// - Once mapped it grabs the pointer and the keyboard; a refused grab (another client holds one)
///   is tried again every 20 ms for ``peekGrabPatience`` seconds, then the peek closes
///   (`grabFailed`) rather than stay up without its grab.
/// - Hover and Up, Down, Home and End highlight; a click, Return or Space activates (then it
///   closes); Delete dismisses a dismissable row; Escape, the Menu key, a click outside, or the
///   toolbar's window being hidden closes it. The release of the right press that opened it does
///   not activate within 0.5 s (GTK's `MENU_SHELL_TIMEOUT`); a press, drag and release does.
extension ToolbarHost {
    /// How long a refused grab is tried again before the peek closes, in seconds.
    public static let peekGrabPatience = 0.3
    /// How soon after opening a release activates nothing (the opening press's), in seconds.
    public static let peekReleaseGrace = 0.5
    /// How long the primary button is held on a button before it asks for the peek (GTK's
    /// `gtk-long-press-time`), in seconds; the release is then no click.
    public static let longPressTime = 0.5

    /// A long press is due: the held button asks for its peek (from ``refresh()``).
    func fireLongPressIfDue() {
        guard let due = longPressDue, clock.now >= due else { return }
        longPressDue = nil
        guard let button = toolbar.primaryPressedButton, button.isPressed else { return }
        toolbar.cancelPress()
        onEvent?(.peekRequested(button, .pointer))
    }

    /// The open peek as screen readers see it (frames from the toolbar window's top-left), or nil.
    func accessiblePeek() -> AccessibleTree.Peek? {
        guard let info = peek else { return nil }
        let origin = windowOriginOnScreen()
        func local(_ rect: PixelRect) -> PixelRect { PixelRect(x: rect.x - origin.x, y: rect.y - origin.y, width: rect.width, height: rect.height) }
        return AccessibleTree.Peek(buttonIndex: peekState?.onToolbar == true ? toolbar.buttons.firstIndex { $0.id == info.buttonID } : nil,
                                   rows: info.rows, rowFrames: info.rowFrames.map(local), frame: local(info.frame),
                                   highlighted: info.highlighted)
    }

    /// The open peek, or nil.
    public var peek: PeekInfo? {
        guard let state = peekState, let window = peekWindow, window.isShown else { return nil }
        let scale = state.layout.scale
        let frames = state.layout.rows.map { row -> PixelRect in
            let pixels = row.pixels(scale: scale, rounding: .nearest)
            return PixelRect(x: window.frame.x + pixels.x, y: window.frame.y + pixels.y, width: pixels.width, height: pixels.height)
        }
        return PeekInfo(buttonID: state.buttonID, window: window.window, frame: window.frame, rows: state.rows, rowFrames: frames,
                        highlighted: state.highlight.index, isGrabbed: window.isGrabbed, isAbove: state.isAbove)
    }

    /// Opens a peek of `rows` under `button` (closing one that is open); with the keyboard
    /// trigger the first actionable row is highlighted. `strings` give the note for rows cut when
    /// they do not fit ("and N more"). Throws when the window cannot be made or drawn; nothing is
    /// open then.
    public func openPeek(for button: ToolbarButton, rows: [PeekRow], trigger: PeekTrigger,
                         strings: PeekStrings = .english) throws(X11Error) {
        guard isAttached, mapped, toolbar.buttons.contains(where: { $0 === button }) else {
            throw .unavailable("the peek", reason: "the toolbar is not on screen")
        }
        let origin = rootOrigin() ?? (x: 0, y: 0)
        let buttonFrame = button.frame.pixels(scale: toolbar.scale, rounding: .nearest)
        let anchor = PixelRect(x: origin.x + buttonFrame.x, y: origin.y + buttonFrame.y, width: buttonFrame.width, height: buttonFrame.height)
        try openPeek(anchor: anchor, id: button.id, rows: rows, trigger: trigger, onToolbar: true, strings: strings)
    }

    /// Opens a peek of `rows` next to `anchor` (root pixels: a tray icon, a point a
    /// StatusNotifierItem host named), reported with `id`; it stays open while the toolbar's
    /// window is hidden. `strings` give the note for rows cut when they do not fit. Throws when the
    /// window cannot be made or drawn.
    public func openPeek(anchoredAt anchor: PixelRect, id: String, rows: [PeekRow], trigger: PeekTrigger,
                         strings: PeekStrings = .english) throws(X11Error) {
        guard isAttached else { throw .unavailable("the peek", reason: "the toolbar's window is gone") }
        try openPeek(anchor: anchor, id: id, rows: rows, trigger: trigger, onToolbar: false, strings: strings)
    }

    private func openPeek(anchor: PixelRect, id: String, rows: [PeekRow], trigger: PeekTrigger, onToolbar: Bool,
                          strings: PeekStrings) throws(X11Error) {
        if peekState != nil { closePeek(reason: .hidden) }
        let window: PeekWindow
        if let made = peekWindow {
            window = made
        } else {
            window = try PeekWindow(connection: connection, atoms: atoms, identity: identityOfCreatedWindows, owner: surface.window)
            peekWindow = window
        }
        tooltips?.hide(suppress: true, owner: tooltipOwner)
        let area = window.workArea(for: anchor, monitors: session.sharedMonitors()?.layout ?? .none)
        let fitted = fitPeek(rows, anchor: anchor, workArea: area, strings: strings)
        var state = PeekState(buttonID: id, rows: fitted.rows, layout: fitted.layout,
                              highlight: PeekHighlight(rows: fitted.rows, first: trigger == .keyboard), trigger: trigger, anchor: anchor,
                              onToolbar: onToolbar, strings: strings, openedAt: clock.now)
        let frame = fitted.frame
        state.isAbove = frame.maxY <= anchor.y
        let image = try peekImage(state)
        peekState = state
        window.show(image, at: frame)
        do { try connection.flush() } catch { closePeek(reason: .hidden); throw error }
    }

    /// Shows `rows` in the open peek (after a dismissal, or as its items change), keeping the
    /// highlight on the same index where it can; placed again for the new size.
    public func updatePeek(rows: [PeekRow]) {
        guard var state = peekState, let window = peekWindow else { return }
        let previous = state.highlight.index
        let area = window.workArea(for: state.anchor, monitors: session.sharedMonitors()?.layout ?? .none)
        let fitted = fitPeek(rows, anchor: state.anchor, workArea: area, strings: state.strings)
        state.rows = fitted.rows
        state.layout = fitted.layout
        state.highlight = PeekHighlight(rows: state.rows, first: false)
        if let previous {
            let candidate = min(previous, state.rows.count - 1)
            if candidate >= 0, !state.highlight.hover(candidate) { state.highlight.move(forward: true) }
        }
        let frame = fitted.frame
        state.isAbove = frame.maxY <= state.anchor.y
        peekState = state
        guard let image = try? peekImage(state) else { return }
        window.show(image, at: frame)
    }

    /// What of `rows` the peek shows next to `anchor` inside `workArea`, laid out, and where: all
    /// of them when they fit below or above, else the first ones that fit whole on the side with
    /// more room and a note for the rest (``PeekPlacement/fit(rowHeights:noteHeight:padding:scale:anchor:workArea:gap:)``).
    private func fitPeek(_ rows: [PeekRow], anchor: PixelRect, workArea area: PixelRect,
                         strings: PeekStrings) -> (rows: [PeekRow], layout: PeekRenderer.Layout, frame: PixelRect) {
        let peekRenderer = PeekRenderer(text: renderer.text, icons: renderer.icons)
        let scale = toolbar.scale
        let maximumWidth = Double(area.width) / scale
        let whole = peekRenderer.layout(rows, scale: scale, maximumWidth: maximumWidth)
        let fit = PeekPlacement.fit(rowHeights: whole.rows.map(\.height), noteHeight: peekRenderer.rowHeight(PeekRow(title: "", isActionable: false)),
                                    padding: PeekRenderer.padding.outer, scale: scale, anchor: anchor, workArea: area)
        var shown = rows
        var layout = whole
        if fit.isCut {
            shown = PeekRow.cut(rows, keeping: fit.shownRows, strings: strings)
            layout = peekRenderer.layout(shown, scale: scale, maximumWidth: maximumWidth)
        }
        let frame = PeekPlacement.frame(size: layout.pixelSize, anchor: anchor, workArea: area, direction: toolbar.direction, side: fit.side)
        return (shown, layout, frame)
    }

    /// Closes the open peek (reason `program`).
    public func closePeek() { closePeek(reason: .program) }

    /// The toolbar's window was hidden: a peek anchored to one of its buttons closes.
    func toolbarHidden() {
        if peekState?.onToolbar == true { closePeek(reason: .hidden) }
    }

    func closePeek(reason: PeekCloseReason) {
        guard let state = peekState else { return }
        peekState = nil
        peekWindow?.hide()
        try? connection.flush()
        onEvent?(.peek(.closed(buttonID: state.buttonID, reason: reason)))
    }

    private func peekImage(_ state: PeekState) throws(X11Error) -> ImageSurface {
        let (width, height) = state.layout.pixelSize
        do {
            let image = try ImageSurface(width: width, height: height)
            try image.draw { cr in
                PeekRenderer(text: renderer.text, icons: renderer.icons).draw(state.rows, layout: state.layout, highlighted: state.highlight.index,
                                                       theme: renderer.theme, direction: toolbar.direction, in: cr)
            }
            return image
        } catch {
            throw .unavailable("the peek", reason: "cannot draw it (\(error))")
        }
    }

    private func redrawPeek() {
        guard let state = peekState, let window = peekWindow, let image = try? peekImage(state) else { return }
        window.redraw(image)
    }

    /// Tries the grab again when it is due (from ``refresh()``).
    func retryPeekGrabIfDue() {
        guard let due = peekState?.nextGrabAttempt, clock.now >= due else { return }
        tryPeekGrab()
    }

    private func tryPeekGrab() {
        guard var state = peekState, let window = peekWindow, window.isMapped else { return }
        switch window.grab() {
        case .grabbed:
            state.nextGrabAttempt = nil
            state.grabGivesUpAt = nil
            peekState = state
            onEvent?(.peek(.opened(buttonID: state.buttonID)))
        case .busy(let reason):
            let now = clock.now
            let givesUp = state.grabGivesUpAt ?? now + Self.peekGrabPatience
            guard now < givesUp else {
                warn("the peek closed: \(reason)")
                closePeek(reason: .grabFailed)
                return
            }
            state.grabGivesUpAt = givesUp
            state.nextGrabAttempt = now + 0.02
            peekState = state
        case .failed(let reason):
            warn("the peek closed: \(reason)")
            closePeek(reason: .grabFailed)
        }
    }

    /// An event for the peek's window (the router gives it here).
    func handlePeekEvent(_ event: XEvent) {
        guard let window = peekWindow, var state = peekState else { return }
        switch Int32(event.code) {
        case XCB_MAP_NOTIFY:
            window.didMap()
            tryPeekGrab()
        case XCB_EXPOSE:
            if event.withEvent(as: xcb_expose_event_t.self, { $0.count }) == 0 { window.present() }
        case XCB_MOTION_NOTIFY:
            // While grabbed every motion comes here, also outside: only a pointer over the popup
            // moves the highlight, so a keyboard open keeps its first row.
            let (px, py) = event.withEvent(as: xcb_motion_notify_event_t.self) { (Int($0.event_x), Int($0.event_y)) }
            guard px >= 0, py >= 0, px < window.frame.width, py < window.frame.height else { return }
            if state.highlight.hover(state.layout.row(atPixelX: px, y: py)) {
                peekState = state
                redrawPeek()
            }
        case XCB_ENTER_NOTIFY, XCB_LEAVE_NOTIFY:
            // The grab's own crossing events (mode Grab, Ungrab) are not the pointer moving.
            let mode = event.withEvent(as: xcb_enter_notify_event_t.self) { $0.mode }
            guard mode == UInt8(XCB_NOTIFY_MODE_NORMAL.rawValue), Int32(event.code) == XCB_LEAVE_NOTIFY else { return }
            if state.highlight.hover(nil) {
                peekState = state
                redrawPeek()
            }
        case XCB_BUTTON_PRESS:
            let (detail, px, py) = event.withEvent(as: xcb_button_press_event_t.self) { ($0.detail, Int($0.event_x), Int($0.event_y)) }
            guard detail <= 3 else { return }  // the wheel scrolls nothing here
            let inside = px >= 0 && py >= 0 && px < window.frame.width && py < window.frame.height
            guard inside else { return closePeek(reason: .outside) }
            state.pressedInside = true
            peekState = state
        case XCB_BUTTON_RELEASE:
            let (detail, px, py) = event.withEvent(as: xcb_button_release_event_t.self) { ($0.detail, Int($0.event_x), Int($0.event_y)) }
            guard detail <= 3 else { return }
            guard state.pressedInside || clock.now - state.openedAt >= Self.peekReleaseGrace else { return }
            guard let row = state.layout.row(atPixelX: px, y: py), state.rows.indices.contains(row), state.rows[row].isActionable else {
                return
            }
            // The middle button does the row's second action (mark read), where it has one.
            if detail == 2 {
                secondaryPeekRow(row)
                return
            }
            activatePeekRow(row)
        case XCB_KEY_PRESS:
            let keycode = event.withEvent(as: xcb_key_press_event_t.self) { $0.detail }
            guard let press = keyboard?.press(keycode: keycode) else { return }
            handlePeekKey(press)
        default:
            break
        }
    }

    private func handlePeekKey(_ press: KeyPress) {
        guard var state = peekState else { return }
        switch press.symbol {
        case KeySymbol.escape, KeySymbol.menu:
            closePeek(reason: .escape)
        case KeySymbol.f10 where press.shift:
            closePeek(reason: .escape)
        case KeySymbol.down, KeySymbol.tab:
            state.highlight.move(forward: !(press.symbol == KeySymbol.tab && press.shift))
        case KeySymbol.up, KeySymbol.leftTab:
            state.highlight.move(forward: false)
        case KeySymbol.home:
            state.highlight.moveToEnd(last: false)
        case KeySymbol.end:
            state.highlight.moveToEnd(last: true)
        case KeySymbol.returnKey, KeySymbol.keypadEnter, KeySymbol.space:
            if let row = state.highlight.index { press.shift ? secondaryPeekRow(row) : activatePeekRow(row) }
            return
        case KeySymbol.delete, KeySymbol.keypadDelete:
            if let row = state.highlight.index, state.rows.indices.contains(row), state.rows[row].isDismissable {
                onEvent?(.peek(.dismissed(buttonID: state.buttonID, row: row)))
            }
            return
        default:
            return
        }
        guard peekState != nil else { return }
        peekState = state
        redrawPeek()
    }

    /// Asks for row `row`'s second action (``PeekRow/secondaryAction``), as Shift+Return on it does
    /// (a screen reader's second action); nothing for a row without one. The peek stays open.
    func secondaryPeekRow(_ row: Int) {
        guard let state = peekState, state.rows.indices.contains(row), state.rows[row].secondaryAction != nil else { return }
        onEvent?(.peek(.secondary(buttonID: state.buttonID, row: row)))
    }

    /// Activates row `row` of the open peek, as Return on it does (a screen reader's action).
    func activatePeekRow(_ row: Int) {
        guard let state = peekState, state.rows.indices.contains(row), state.rows[row].isActionable else { return }
        onEvent?(.peek(.activated(buttonID: state.buttonID, row: row)))
        closePeek(reason: .activated)
    }
}

/// What an open peek shows and how far it got (the host's, while open).
struct PeekState {
    var buttonID: String
    var rows: [PeekRow]
    var layout: PeekRenderer.Layout
    var highlight: PeekHighlight
    var trigger: PeekTrigger
    var anchor: PixelRect
    /// Anchored to a toolbar button: hiding the toolbar closes it.
    var onToolbar: Bool
    /// The words of the note that stands for rows cut when they do not fit.
    var strings: PeekStrings
    var isAbove = false
    /// When it opened (the host's clock): a release soon after a right press opens, not activates.
    var openedAt: Double
    /// A press inside since it opened: its release activates.
    var pressedInside = false
    /// When to try the grab again (clock), while it is refused; nil once held or not yet mapped.
    var nextGrabAttempt: Double?
    /// When to give up on the grab (clock).
    var grabGivesUpAt: Double?
}
