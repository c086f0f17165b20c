import BadgeCore
import CXCB
import Glibc

/// Input routing: X events become toolbar input (pointer, keys, focus, hover), window changes
/// (expose, resize, map, destroy) and window-manager requests (close, ping).
extension ToolbarHost {
    /// Handles `event` if it is the host's: an event naming its window or its tooltip (or an error
    /// about them, or the completion of its own upload). Returns false for anything else, which is
    /// yours, including the events every host acts on and returns to you too: the desktop's
    /// settings (on the root window and the settings manager's window) and keyboard-map changes.
    /// With several hosts on one connection, offer each event to each host until one takes it.
    @discardableResult
    public func handle(_ event: XEvent) -> Bool {
        take(event) == .taken
    }

    /// What the host does with `event` (``EventRouter``'s contract).
    package func take(_ event: XEvent) -> EventRouter.Disposition {
        let code = event.code
        // The session's keymap follows the server's (read once); the event is everyone's.
        if session.handleKeyboardEvent(event) { return .shared }
        // The monitors changed (RandR): every follower looks again; the event is everyone's.
        if session.handleMonitorEvent(event) { return .shared }
        if event.isError { return handleError(event) }
        // Another window manager took over: every host asks it again; the event is everyone's too.
        _ = session.handleWindowManagerEvent(event)
        // The session reads it once and tells every host; it is everyone's.
        if session.handleSettingsEvent(event), event.window != surface.window { return .shared }
        if surface.handleUploadCompletion(event) { return .taken }
        guard let target = event.window else { return .notTaken }
        if let tooltips, target == tooltips.windowID {
            if Int32(code) == XCB_EXPOSE, event.withEvent(as: xcb_expose_event_t.self, { $0.count }) == 0 { tooltips.expose() }
            return .taken
        }
        if let peekWindow, target == peekWindow.window {
            handlePeekEvent(event)
            return .taken
        }
        guard target == surface.window else { return .notTaken }
        // A closed or detached host's window: events already on their way are still its own.
        guard isAttached else { return .taken }
        switch Int32(code) {
        case XCB_DESTROY_NOTIFY:
            detach()
        case XCB_EXPOSE:
            let rect = event.withEvent(as: xcb_expose_event_t.self) {
                PixelRect(x: Int($0.x), y: Int($0.y), width: Int($0.width), height: Int($0.height))
            }
            exposed = exposed.map { $0.union(rect) } ?? rect
        case XCB_REPARENT_NOTIFY:
            knownOrigin = nil
            monitorScaleFollower?.windowMoved()
            recordPlacement(event)
        case XCB_CONFIGURE_NOTIFY:
            knownOrigin = nil
            monitorScaleFollower?.windowMoved()
            recordPlacement(event)
            let (width, height) = event.withEvent(as: xcb_configure_notify_event_t.self) { (Int($0.width), Int($0.height)) }
            resized(width: width, height: height)
        case XCB_MAP_NOTIFY:
            mapped = true
        case XCB_UNMAP_NOTIFY:
            mapped = false
            tooltips?.hide(suppress: false, owner: tooltipOwner)
            toolbarHidden()
        case XCB_FOCUS_IN:
            let detail = event.withEvent(as: xcb_focus_in_event_t.self) { $0.detail }
            // NotifyPointer: the focus is on the root and follows the pointer; not ours.
            if detail != UInt8(XCB_NOTIFY_DETAIL_POINTER.rawValue) {
                windowHasFocus = true
                setUrgent(false)
                windowFocusChanged()
            }
        case XCB_FOCUS_OUT:
            let (mode, detail) = event.withEvent(as: xcb_focus_out_event_t.self) { ($0.mode, $0.detail) }
            // A grab keeps the focus logically here; NotifyInferior moves it into a child of ours.
            if mode != UInt8(XCB_NOTIFY_MODE_GRAB.rawValue), detail != UInt8(XCB_NOTIFY_DETAIL_INFERIOR.rawValue),
               detail != UInt8(XCB_NOTIFY_DETAIL_POINTER.rawValue) {
                windowHasFocus = false
                windowFocusChanged()
            }
        case XCB_KEY_PRESS:
            // A child host acts on keys only while it has the focus: once Tab has left the toolbar
            // (X's focus still on its window), a key press is the caller's.
            guard hasFocus || properties != nil else { return .notTaken }
            let keycode = event.withEvent(as: xcb_key_press_event_t.self) { $0.detail }
            tooltips?.hide(suppress: true, owner: tooltipOwner)
            if let keyboard { handleKey(keyboard.press(keycode: keycode)) }
        case XCB_MOTION_NOTIFY:
            let point = event.withEvent(as: xcb_motion_notify_event_t.self) { logicalPoint($0.event_x, $0.event_y) }
            toolbar.pointerMoved(to: point)
        case XCB_ENTER_NOTIFY:
            let point = event.withEvent(as: xcb_enter_notify_event_t.self) { logicalPoint($0.event_x, $0.event_y) }
            toolbar.pointerMoved(to: point)
        case XCB_LEAVE_NOTIFY:
            toolbar.pointerMoved(to: nil)
        case XCB_BUTTON_PRESS:
            let (detail, point) = event.withEvent(as: xcb_button_press_event_t.self) { ($0.detail, logicalPoint($0.event_x, $0.event_y)) }
            tooltips?.hide(suppress: true, owner: tooltipOwner)
            toolbar.setFocusVisible(false)  // pointer use hides the ring, as :focus-visible does
            // A press on the toolbar while a peek waits for its grab closes it, as one outside does.
            if peekState != nil, peekWindow?.isGrabbed != true { closePeek(reason: .outside) }
            // The right button asks for the peek on the press, as GTK's and Qt's context menus open.
            if Self.pointerButton(detail) == .secondary {
                if let button = toolbar.button(at: point) { onEvent?(.peekRequested(button, .pointer)) }
                return .taken
            }
            if let pointer = Self.pointerButton(detail), let (button, action, cause) = toolbar.pointerPressed(pointer, at: point),
               actionHandler?(button, action, pointer) != true {
                change(button, cause: cause) { action.apply(to: $0) }
            }
            // Held long enough, the primary button asks for the peek (a touchpad's or a tablet's right click).
            longPressDue = toolbar.primaryPressedButton == nil ? nil : clock.now + Self.longPressTime
        case XCB_BUTTON_RELEASE:
            longPressDue = nil
            let (detail, point) = event.withEvent(as: xcb_button_release_event_t.self) { ($0.detail, logicalPoint($0.event_x, $0.event_y)) }
            if let pointer = Self.pointerButton(detail), let (button, action, cause) = toolbar.pointerReleased(pointer, at: point),
               actionHandler?(button, action, pointer) != true {
                change(button, cause: cause) { action.apply(to: $0) }
            }
        case XCB_CLIENT_MESSAGE:
            event.withEvent(as: xcb_client_message_event_t.self) { handleClientMessage($0) }
        case XCB_PROPERTY_NOTIFY:
            // A window manager (a new one, or one that started after the window) took the window.
            if windowManager?.isManagedAnew(event) == true { askWindowManagerAgain() }
        default:
            break
        }
        return .taken
    }

    /// The key handler first, then the standard toolbar keys; true when one used the key.
    @discardableResult
    func handleKey(_ press: KeyPress) -> Bool {
        if keyHandler?(press) == true { return true }
        switch ToolbarKeyAction.action(for: press) {
        case .focusNext: advanceFocus(backward: false)
        case .focusPrevious: advanceFocus(backward: true)
        case .peek:
            guard let button = toolbar.focusedButton else { return false }
            toolbar.setFocusVisible(true)
            onEvent?(.peekRequested(button, .keyboard))
        case .badge(let action):
            guard let button = toolbar.focusedButton else { return false }
            toolbar.setFocusVisible(true)
            change(button, cause: .key) { action.apply(to: $0) }
        case nil: return false
        }
        return true
    }

    private func handleError(_ event: XEvent) -> EventRouter.Disposition {
        let error = event.withEvent(as: xcb_generic_error_t.self) { $0 }
        // BadWindow/BadDrawable naming our window: it is gone (normally DestroyNotify says so first).
        if error.resource_id == surface.window,
           error.error_code == XErrorDescription.badWindow || error.error_code == XErrorDescription.badDrawable {
            detach()
            return .taken
        }
        // In the caller's loop, an error about someone else's resource is the caller's. In BadgeKit's
        // loop (``attach(to:)``) there is no one else to tell: the host reports it.
        let ours = error.resource_id != 0 && (error.resource_id == surface.window || error.resource_id == tooltips?.windowID)
        if !ours, attachedLoop == nil { return .notTaken }
        // Each kind of refusal (error code and request) is reported once; the host carries on.
        let key = Int(error.error_code) << 8 | Int(error.major_code)
        if reportedErrors.insert(key).inserted {
            let what = XErrorDescription.describe(code: error.error_code, major: error.major_code,
                                                  minor: error.minor_code, resource: error.resource_id)
            warn("the X server refused a request (\(what)); carrying on, further errors of this kind are not reported")
        }
        return .taken
    }

    private func handleClientMessage(_ message: xcb_client_message_event_t) {
        switch windowManager?.handle(message) {
        case .close?: onEvent?(.closeRequested)
        case .syncRequest(let low, let high)?: resizeSync?.request(low: low, high: high)
        default: break
        }
    }

    private func resized(width: Int, height: Int) {
        do {
            if try surface.resize(width: width, height: height) {
                let scale = toolbar.scale
                toolbar.layout(size: Size(width: Double(surface.width) / scale, height: Double(surface.height) / scale),
                               scale: scale, direction: toolbar.direction)
                bufferPainted = false
            }
        } catch {
            warn("cannot resize the back buffer: \(error)")
        }
    }

    /// The window is gone: stop drawing, keep the toolbar.
    func detach() {
        guard isAttached else { return }
        isAttached = false
        surface.exists = false
        mapped = false
        tooltips?.hide(suppress: false, owner: tooltipOwner)
        closePeek(reason: .hidden)
        onEvent?(.detached)
    }

    func logicalPoint(_ px: Int16, _ py: Int16) -> Point {
        Point(x: (Double(px) + 0.5) / toolbar.scale, y: (Double(py) + 0.5) / toolbar.scale)
    }

    static func pointerButton(_ detail: UInt8) -> PointerButton? {
        switch UInt32(detail) {
        case XCB_BUTTON_INDEX_1.rawValue: return .primary
        case XCB_BUTTON_INDEX_2.rawValue: return .middle
        case XCB_BUTTON_INDEX_3.rawValue: return .secondary
        case XCB_BUTTON_INDEX_4.rawValue: return .wheelUp
        case XCB_BUTTON_INDEX_5.rawValue: return .wheelDown
        default: return nil
        }
    }

    // MARK: Urgency

    /// Sets or clears urgency now (reported at once; written to the window at the next refresh).
    func setUrgent(_ on: Bool) {
        guard on != isUrgent, properties != nil else { return }
        isUrgent = on
        onEvent?(.urgencyChanged(on))
    }

    /// Asks the window manager again for every state the window holds (urgency: the
    /// UrgencyHint and `_NET_WM_STATE_DEMANDS_ATTENTION`): a window manager that started after the
    /// window never saw the messages sent to the one before (EWMH has a mapped window ask for
    /// `_NET_WM_STATE` by a message to the root), and the one before may have taken its state with
    /// it. Called when another window manager takes over and when one begins managing the window.
    func askWindowManagerAgain() {
        guard let properties, publisher?.pushed?.urgent == true else { return }
        windowManager?.setUrgent(true, properties: properties)
    }

    /// Writes urgency to the window (``WindowManagerProtocols/setUrgent(_:properties:)``).
    func pushUrgency(_ on: Bool) {
        guard let properties else { return }
        windowManager?.setUrgent(on, properties: properties)
    }
}
