import BadgeCore
import BadgeDrawing
import CXCB
import Glibc

/// The badge demo: a toolbar window driven by one thread that blocks in poll() on the X connection,
/// a frame timer armed only while something animates, and (with `--control`) standard input.
///
/// Each loop iteration drains every X event (including those already queued inside XCB), applies
/// control commands, renders the damaged rectangles into the back buffer, copies them to the window,
/// flushes, and only then answers `sync` requests.
public final class DemoApplication {
    private let options: DemoOptions
    private let clock = SystemClock()
    private let text: TextLayouts
    private let icons: IconLibrary
    private let renderer: ToolbarRenderer
    private var toolbar: Toolbar

    private var x: XConnection?
    private var atoms: Atoms?
    private var window: ToolbarWindow?
    private var timer: FrameTimer?
    private var mapped = false
    private var bufferPainted = false
    private var announcedReady = false
    private var exposed: (x0: Int, y0: Int, x1: Int, y1: Int)?
    private var pendingSyncs: [String] = []
    /// Drawing failures already written to standard error.
    private var reportedDrawingFailures: Set<String> = []
    private var exitStatus: Int32?
    private var controlReader = LineReader(maximumLineLength: ControlCommand.maximumLineLength)
    private var controlLineNumber = 0
    private var controlOpen = false
    /// Standard output of the control channel (with `--control`), written without blocking the loop.
    private var output: EventOutput?
    private var reportedErrors = Set<Int>()

    private var keyboard: Keyboard?
    private var tooltip: TooltipWindow?
    private let tooltipRenderer: TooltipRenderer
    private var hoverTimer: FrameTimer?
    private var hoveredButton: ToolbarButton?
    private var tooltipSuppressed = false
    private var launcher: LauncherEntry?
    private var windowHasFocus = false
    private var urgent = false
    private var iconText: String?
    private var reducedMotion: Bool
    private var updatesBlinkRequested = false

    /// How long the pointer rests on a button before its tooltip shows, in seconds.
    public static let tooltipDelay = 0.5

    /// Prepares the toolbar, text and icons; throws for an unusable icon file (naming it).
    public init(options: DemoOptions) throws {
        text = try TextLayouts()
        icons = try IconLibrary()
        let config = try options.configPath.map { path throws(ToolbarConfig.Error) in try ToolbarConfig.load(path: path) }
            ?? DemoToolbar.defaultConfig
        var options = options
        if options.scale == nil { options.scale = config.scale }
        if !options.themeFromFlag, let theme = config.theme { options.theme = theme }
        self.options = options
        renderer = ToolbarRenderer(theme: options.theme, text: text, icons: icons)
        tooltipRenderer = TooltipRenderer(text: text)
        reducedMotion = options.reduceMotion
        toolbar = try DemoToolbar.make(config: config, configFile: options.configPath, options: options, clock: clock,
                                       text: text, icons: icons, scale: options.scale ?? 1)
    }

    /// Renders the window offscreen, as it first appears, to a PNG file.
    public func renderScreenshot(to path: String) throws {
        let image = try renderer.renderImage(toolbar, at: clock.now)
        try image.writePNG(to: path)
    }

    /// Runs until the window is closed or the connection is lost; returns the process exit status.
    public func run() -> Int32 {
        do {
            try start()
        } catch let error as X11Error {
            printError(error.message)
            return error.exitStatus
        } catch {
            printError("badge-demo: \(error)")
            return 4
        }
        loop()
        if exitStatus == 0, let x, x.errorStatus == 0, !pendingSyncs.isEmpty {
            // `sync` then `quit` in one write: draw what the commands before them changed and answer.
            refresh(x)
        }
        // Give a reader half a second to take the last events (a script waiting for them after quit).
        output?.finish(timeout: exitStatus == X11Error.connectionLostStatus ? 0.2 : 0.5)
        window = nil
        x = nil
        return exitStatus ?? 0
    }

    // MARK: Start-up

    private func start() throws {
        signal(SIGPIPE, SIG_IGN)
        let x = try XConnection()
        self.x = x
        let atoms = try Atoms(connection: x)
        let scale = options.scale ?? XResources.deviceScale(connection: x, atoms: atoms) ?? 1
        toolbar.layout(size: toolbar.preferredSize, scale: scale, direction: toolbar.direction)
        let size = toolbar.preferredSize
        let minimum = toolbar.metrics.preferredSize(buttonCount: 1)
        let window = try ToolbarWindow(
            connection: x, atoms: atoms,
            width: Int((size.width * scale).rounded(.up)), height: Int((size.height * scale).rounded(.up)),
            minimumWidth: Int((minimum.width * scale).rounded(.up)), minimumHeight: Int((minimum.height * scale).rounded(.up)))
        self.window = window
        self.atoms = atoms
        timer = try FrameTimer()
        hoverTimer = try FrameTimer()
        do {
            keyboard = try Keyboard(connection: x)
        } catch {
            printError("\(error); carrying on without keyboard input")
        }
        tooltip = try TooltipWindow(connection: x, atoms: atoms)
        launcher = LauncherEntry(environment: getenv("DBUS_SESSION_BUS_ADDRESS").map { String(cString: $0) })
        window.setTitle(toolbar.title)
        updateIcon()
        window.map()
        controlOpen = options.control
        if options.control { output = EventOutput() }
        guard x.flush() else {
            throw X11Error("badge-demo: lost the connection to the X server on \(x.displayName)", exitStatus: X11Error.connectionLostStatus)
        }
    }

    // MARK: The loop

    private func loop() {
        guard let x, let timer else { return }
        var pollSet: [pollfd] = []
        while exitStatus == nil {
            drainEvents(x)
            if exitStatus != nil { break }
            if x.errorStatus != 0 {
                connectionLost(x)
                break
            }
            refresh(x)
            if exitStatus != nil { break }
            scheduleFrame(timer)
            // Events pulled into XCB's queue by a reply or a flush do not make the socket readable.
            if let queued = xcb_poll_for_queued_event(x.connection) {
                handle(queued)
                free(queued)
                continue
            }
            pollSet.removeAll(keepingCapacity: true)
            pollSet.append(pollfd(fd: x.fileDescriptor, events: Int16(POLLIN), revents: 0))
            pollSet.append(pollfd(fd: timer.fileDescriptor, events: Int16(POLLIN), revents: 0))
            pollSet.append(pollfd(fd: hoverTimer?.fileDescriptor ?? -1, events: Int16(POLLIN), revents: 0))
            let busEvents = Int16(POLLIN) | (launcher?.hasPendingOutput == true ? Int16(POLLOUT) : 0)
            pollSet.append(pollfd(fd: launcher?.fileDescriptor ?? -1, events: busEvents, revents: 0))
            // While the reader of our output lags far behind, stop taking commands (back-pressure);
            // input events and repaints go on.
            let readingCommands = controlOpen && output?.isBackedUp != true
            pollSet.append(pollfd(fd: readingCommands ? 0 : -1, events: Int16(POLLIN), revents: 0))
            pollSet.append(pollfd(fd: output?.hasBacklog == true ? 1 : -1, events: Int16(POLLOUT), revents: 0))
            let ready = poll(&pollSet, nfds_t(pollSet.count), -1)
            if ready < 0 {
                if errno == EINTR { continue }
                printError("badge-demo: poll failed: \(String(cString: strerror(errno)))")
                exitStatus = 4
                break
            }
            if pollSet[0].revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 && pollSet[0].revents & Int16(POLLIN) == 0 {
                connectionLost(x)
                break
            }
            if pollSet[1].revents != 0 { timer.acknowledge() }
            if pollSet[2].revents != 0 { hoverTimerFired() }
            if pollSet[3].revents != 0 { launcher?.service() }
            if pollSet[5].revents != 0 { output?.flush() }
            if readingCommands, pollSet[4].revents != 0 { readControl(x) }
        }
    }

    private func connectionLost(_ x: XConnection) {
        let status = x.errorStatus
        let reason = status == 0 || status == 1
            ? "the server closed the connection: it exited, or a client such as xkill closed ours"
            : XConnection.describe(connectionError: status)
        printError("badge-demo: lost the connection to the X server on \(x.displayName) (\(reason))")
        exitStatus = X11Error.connectionLostStatus
    }

    /// Another client destroyed the window (xcb_destroy_window, `xdotool windowclose`): nothing left to show.
    private func windowDestroyed(_ id: xcb_window_t) {
        guard exitStatus == nil else { return }
        printError("badge-demo: another X client destroyed the window 0x\(String(id, radix: 16)); exiting")
        exitStatus = X11Error.windowDestroyedStatus
    }

    private func drainEvents(_ x: XConnection) {
        while exitStatus == nil, let event = xcb_poll_for_event(x.connection) {
            handle(event)
            free(event)
        }
    }

    private func scheduleFrame(_ timer: FrameTimer) {
        if let end = toolbar.animationEndTime, end > clock.now {
            if !timer.isArmed { timer.arm(after: 1.0 / 60) }
        } else {
            timer.disarm()
        }
    }

    // MARK: Events

    private func handle(_ event: UnsafeMutablePointer<xcb_generic_event_t>) {
        let type = Int32(event.pointee.response_type & 0x7f)
        let raw = UnsafeMutableRawPointer(event)
        if let keyboard, type == Int32(keyboard.firstEvent), keyboard.handleXKBEvent(raw) { return }
        switch type {
        case 0:
            let error = raw.assumingMemoryBound(to: xcb_generic_error_t.self).pointee
            // BadWindow/BadDrawable naming our window: it is gone (normally DestroyNotify says so first).
            if let window, error.resource_id == window.window,
               error.error_code == XErrorDescription.badWindow || error.error_code == XErrorDescription.badDrawable {
                windowDestroyed(window.window)
                return
            }
            // Each kind of refusal (error code and request) is reported once; the app carries on.
            let key = Int(error.error_code) << 8 | Int(error.major_code)
            if reportedErrors.insert(key).inserted {
                let what = XErrorDescription.describe(code: error.error_code, major: error.major_code,
                                                      minor: error.minor_code, resource: error.resource_id)
                printError("badge-demo: the X server refused a request (\(what)); carrying on, further errors of this kind are not reported")
            }
        case XCB_DESTROY_NOTIFY:
            let destroy = raw.assumingMemoryBound(to: xcb_destroy_notify_event_t.self).pointee
            if let window, destroy.window == window.window { windowDestroyed(window.window) }
        case XCB_EXPOSE:
            let expose = raw.assumingMemoryBound(to: xcb_expose_event_t.self).pointee
            if let tooltip, expose.window == tooltip.window {
                if expose.count == 0 { tooltip.present() }
                return
            }
            let rect = (Int(expose.x), Int(expose.y), Int(expose.x) + Int(expose.width), Int(expose.y) + Int(expose.height))
            if let e = exposed {
                exposed = (min(e.x0, rect.0), min(e.y0, rect.1), max(e.x1, rect.2), max(e.y1, rect.3))
            } else {
                exposed = rect
            }
        case XCB_CONFIGURE_NOTIFY:
            let configure = raw.assumingMemoryBound(to: xcb_configure_notify_event_t.self).pointee
            guard let window, configure.window == window.window else { return }
            do {
                if try window.resize(width: Int(configure.width), height: Int(configure.height)) {
                    let scale = toolbar.scale
                    toolbar.layout(size: Size(width: Double(window.width) / scale, height: Double(window.height) / scale),
                                   scale: scale, direction: toolbar.direction)
                    bufferPainted = false
                }
            } catch {
                printError("badge-demo: cannot resize the back buffer: \(error)")
            }
        case XCB_MAP_NOTIFY:
            let map = raw.assumingMemoryBound(to: xcb_map_notify_event_t.self).pointee
            if map.window == window?.window { mapped = true }
        case XCB_UNMAP_NOTIFY:
            let unmap = raw.assumingMemoryBound(to: xcb_unmap_notify_event_t.self).pointee
            if unmap.window == window?.window {
                mapped = false
                hideTooltip(suppress: false)
            }
        case XCB_FOCUS_IN:
            let focus = raw.assumingMemoryBound(to: xcb_focus_in_event_t.self).pointee
            // NotifyPointer (5): the focus is on the root and follows the pointer; not ours.
            if focus.detail != 5 {
                windowHasFocus = true
                setUrgent(false)
            }
        case XCB_FOCUS_OUT:
            let focus = raw.assumingMemoryBound(to: xcb_focus_out_event_t.self).pointee
            // A grab (mode 1) keeps the focus logically here; NotifyInferior (2) moves it into a child of ours.
            if focus.mode != 1, focus.detail != 2, focus.detail != 5 { windowHasFocus = false }
        case XCB_KEY_PRESS:
            let press = raw.assumingMemoryBound(to: xcb_key_press_event_t.self).pointee
            hideTooltip(suppress: true)
            guard let keyboard else { return }
            let keysym = keyboard.keysym(forKeycode: press.detail)
            if let command = KeyCommand.command(forKeysym: keysym, control: keyboard.controlIsActive, shift: keyboard.shiftIsActive) {
                perform(command)
            }
        case XCB_MOTION_NOTIFY:
            let motion = raw.assumingMemoryBound(to: xcb_motion_notify_event_t.self).pointee
            toolbar.pointerMoved(to: logicalPoint(motion.event_x, motion.event_y))
        case XCB_ENTER_NOTIFY:
            let enter = raw.assumingMemoryBound(to: xcb_enter_notify_event_t.self).pointee
            toolbar.pointerMoved(to: logicalPoint(enter.event_x, enter.event_y))
        case XCB_LEAVE_NOTIFY:
            toolbar.pointerMoved(to: nil)
        case XCB_BUTTON_PRESS:
            let press = raw.assumingMemoryBound(to: xcb_button_press_event_t.self).pointee
            hideTooltip(suppress: true)
            guard let pointer = Self.pointerButton(press.detail) else { return }
            if let (button, action, cause) = toolbar.pointerPressed(pointer, at: logicalPoint(press.event_x, press.event_y)) {
                apply(action, to: button, cause: cause)
            }
        case XCB_BUTTON_RELEASE:
            let release = raw.assumingMemoryBound(to: xcb_button_release_event_t.self).pointee
            guard let pointer = Self.pointerButton(release.detail) else { return }
            if let (button, action, cause) = toolbar.pointerReleased(pointer, at: logicalPoint(release.event_x, release.event_y)) {
                apply(action, to: button, cause: cause)
            }
        case XCB_CLIENT_MESSAGE:
            handleClientMessage(raw.assumingMemoryBound(to: xcb_client_message_event_t.self))
        default:
            break
        }
    }

    private func handleClientMessage(_ message: UnsafeMutablePointer<xcb_client_message_event_t>) {
        guard let atoms, let x, message.pointee.type == atoms.wmProtocols, message.pointee.format == 32 else { return }
        let protocolAtom = message.pointee.data.data32.0
        if protocolAtom == atoms.wmDeleteWindow {
            exitStatus = 0
        } else if protocolAtom == atoms.netWMPing {
            // Answer the window manager's ping by sending the message back to the root window.
            var reply = message.pointee
            reply.window = x.root
            x.sendToRoot(reply)
        }
    }

    private func logicalPoint(_ px: Int16, _ py: Int16) -> Point {
        Point(x: (Double(px) + 0.5) / toolbar.scale, y: (Double(py) + 0.5) / toolbar.scale)
    }

    private static func pointerButton(_ detail: UInt8) -> PointerButton? {
        switch detail {
        case 1: return .primary
        case 2: return .middle
        case 3: return .secondary
        case 4: return .wheelUp
        case 5: return .wheelDown
        default: return nil
        }
    }

    // MARK: Badge changes

    private func apply(_ action: BadgeAction, to button: ToolbarButton, cause: ChangeCause) {
        change(button, cause: cause) { action.apply(to: $0) }
    }

    /// Every content change goes through here: it is reported with its cause, and a count that
    /// rises while the window is unfocused makes the window urgent.
    private func change(_ button: ToolbarButton, cause: ChangeCause, _ body: (BadgeController) -> Void) {
        let before = button.badge.count
        body(button.badge)
        if button.badge.count > before, !windowHasFocus { setUrgent(true) }
        reportChange(of: button, cause: cause)
    }

    private func perform(_ command: KeyCommand) {
        switch command {
        case .focusNext: toolbar.moveFocus()
        case .focusPrevious: toolbar.moveFocus(backward: true)
        case .increment, .decrement, .clear:
            guard let button = toolbar.focusedButton else { return }
            let action: BadgeAction = command == .increment ? .increment : command == .decrement ? .decrement : .clear
            apply(action, to: button, cause: .key)
        case .quit:
            exitStatus = 0
        case .cycleChatText:
            guard let chat = toolbar.button(id: "chat") else { return }
            var current: String?
            if case .text(let text) = chat.badge.value { current = text }
            change(chat, cause: .key) { $0.setText(KeyCommand.nextChatText(after: current)) }
        case .toggleBlink:
            guard let updates = toolbar.button(id: "updates") else { return }
            // Remembered here: under reduced motion the badge shows a steady dot even when asked to blink.
            updatesBlinkRequested = !(updates.badge.value == .dot && updatesBlinkRequested)
            let blink = updatesBlinkRequested
            change(updates, cause: .key) { $0.showDot(blink: blink) }
        case .toggleOverflow:
            guard let mail = toolbar.button(id: "mail") else { return }
            change(mail, cause: .key) { $0.value = .count($0.count == 120 ? 12 : 120) }
        case .toggleReducedMotion:
            reducedMotion.toggle()
            for button in toolbar.buttons { button.badge.reducesMotion = reducedMotion }
            if options.control { emit(.object([("event", .string("motion")), ("reduced", .bool(reducedMotion))])) }
        }
    }

    // MARK: Window manners

    /// Sets or clears urgency: the ICCCM UrgencyHint and _NET_WM_STATE_DEMANDS_ATTENTION (asked of
    /// the window manager when one runs, written as the property otherwise).
    private func setUrgent(_ on: Bool) {
        guard on != urgent, let window, let atoms, let x else { return }
        urgent = on
        window.setUrgent(on)
        if windowManagerIsRunning(x, atoms) {
            var message = xcb_client_message_event_t()
            message.response_type = UInt8(XCB_CLIENT_MESSAGE)
            message.format = 32
            message.window = window.window
            message.type = atoms.netWMState
            message.data.data32 = (on ? 1 : 0, atoms.netWMStateDemandsAttention, 0, 1, 0)
            x.sendToRoot(message)
        } else {
            window.setProperty32(atoms.netWMState, type: XCB_ATOM_ATOM.rawValue, values: on ? [atoms.netWMStateDemandsAttention] : [])
        }
        if options.control { emit(.object([("event", .string("urgent")), ("urgent", .bool(on))])) }
    }

    /// True when an EWMH window manager runs now (the root's _NET_SUPPORTING_WM_CHECK names a live window).
    private func windowManagerIsRunning(_ x: XConnection, _ atoms: Atoms) -> Bool {
        let cookie = xcb_get_property(x.connection, 0, x.root, atoms.netSupportingWMCheck, XCB_ATOM_WINDOW.rawValue, 0, 1)
        guard let reply = xcb_get_property_reply(x.connection, cookie, nil) else { return false }
        defer { free(reply) }
        guard xcb_get_property_value_length(reply) == 4, let value = xcb_get_property_value(reply) else { return false }
        let check = value.load(as: UInt32.self)
        var error: UnsafeMutablePointer<xcb_generic_error_t>?
        let attributes = xcb_get_window_attributes_reply(x.connection, xcb_get_window_attributes(x.connection, check), &error)
        free(error)
        guard let attributes else { return false }
        free(attributes)
        return true
    }

    /// Sets _NET_WM_ICON when the total's badge text changed.
    private func updateIcon() {
        guard let window, let atoms else { return }
        let label = WindowIcon.badgeText(total: toolbar.totalCount)
        guard label != iconText else { return }
        iconText = label
        do {
            window.setProperty32(atoms.netWMIcon, type: XCB_ATOM_CARDINAL.rawValue,
                                 values: try WindowIcon.cardinals(total: toolbar.totalCount, icons: icons, text: text))
        } catch {
            printError("badge-demo: cannot draw the window icon (\(error)); taskbars keep the previous one")
        }
    }

    // MARK: Tooltip

    /// Follows the hovered button: a new one (re)starts the hover delay, none hides the tooltip.
    private func updateTooltip() {
        let hovered = toolbar.buttons.first { $0.isHovered }
        if hovered !== hoveredButton {
            hoveredButton = hovered
            tooltipSuppressed = false
            hideTooltip(suppress: false)
            if hovered != nil { hoverTimer?.arm(after: Self.tooltipDelay) }
        } else if let hovered, let tooltip, let shown = tooltip.text, shown != hovered.badge.accessibilityDescription {
            showTooltip(for: hovered)
        }
    }

    private func hoverTimerFired() {
        hoverTimer?.acknowledge()
        guard let hovered = hoveredButton, !tooltipSuppressed, mapped else { return }
        showTooltip(for: hovered)
    }

    private func showTooltip(for button: ToolbarButton) {
        guard let x, let window, let tooltip else { return }
        let cookie = xcb_translate_coordinates(x.connection, window.window, x.root, 0, 0)
        guard let reply = xcb_translate_coordinates_reply(x.connection, cookie, nil) else { return }
        let origin = (x: Int(reply.pointee.dst_x), y: Int(reply.pointee.dst_y))
        free(reply)
        let scale = toolbar.scale
        let label = button.badge.accessibilityDescription
        do {
            try tooltip.show(label, rootX: origin.x + Int((button.frame.minX * scale).rounded()),
                             rootY: origin.y + Int((button.frame.maxY * scale).rounded()) + Int((4 * scale).rounded()),
                             scale: scale, renderer: tooltipRenderer)
        } catch {
            printError("badge-demo: cannot draw the tooltip (\(error))")
            return
        }
        if options.control {
            // The event promises the tooltip is on the server: wait until it has processed the map and copy.
            x.flush()
            x.roundTrip()
            emit(.object([("event", .string("tooltip")), ("visible", .bool(true)), ("id", .string(button.id)),
                          ("text", .string(label)), ("tooltip", tooltipJSON())]))
        }
    }

    /// Hides the tooltip and cancels a pending one; with `suppress`, it stays away until the pointer
    /// moves to another button (after a press or a key).
    private func hideTooltip(suppress: Bool) {
        hoverTimer?.disarm()
        if suppress { tooltipSuppressed = true }
        guard let tooltip, tooltip.text != nil else { return }
        tooltip.hide()
        if options.control, let x {
            x.flush()
            x.roundTrip()
            emit(.object([("event", .string("tooltip")), ("visible", .bool(false))]))
        }
    }

    private func tooltipJSON() -> JSONValue {
        guard let tooltip, let text = tooltip.text else { return .null }
        let f = tooltip.frame
        return .object([("window", .int(Int(tooltip.window))), ("text", .string(text)), ("x", .int(f.x)), ("y", .int(f.y)),
                        ("width", .int(f.width)), ("height", .int(f.height))])
    }

    private func reportChange(of button: ToolbarButton, cause: ChangeCause) {
        guard options.control else { return }
        emit(.object([
            ("event", .string("change")), ("id", .string(button.id)), ("cause", .string(cause.rawValue)),
            ("content", Self.json(button.badge.value, blinking: button.badge.isBlinking)),
            ("text", .string(Self.shownText(button.badge.label))),
        ]))
    }

    // MARK: Control channel

    private func readControl(_ x: XConnection) {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let count = buffer.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
        if count < 0 {
            if errno == EINTR || errno == EAGAIN { return }
            controlOpen = false
            return
        }
        if count == 0 {
            // End of input: stop reading, keep the window.
            controlOpen = false
            return
        }
        let items = buffer.withUnsafeBytes { controlReader.feed(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
        for item in items {
            controlLineNumber += 1
            switch item {
            case .tooLong:
                emitError("line longer than \(ControlCommand.maximumLineLength) bytes")
            case .line(let line, let valid):
                guard valid else {
                    emitError("line is not valid UTF-8")
                    continue
                }
                if options.debugCommands, let debug = DebugCommand(rawValue: line) {
                    execute(debug, x: x)
                    continue
                }
                switch ControlCommand.parse(line) {
                case .success(let command): execute(command, x: x)
                case .failure(let error): emitError(error.reason)
                }
            }
            if exitStatus != nil { return }
        }
    }

    private func execute(_ command: ControlCommand, x: XConnection) {
        func target(_ id: String) -> ToolbarButton? {
            guard let button = toolbar.button(id: id) else {
                emitError("unknown button \"\(id.prefix(40))\"; buttons are \(toolbar.buttons.map(\.id).joined(separator: ", "))")
                return nil
            }
            return button
        }
        switch command {
        case .set(let id, let count):
            guard let button = target(id) else { return }
            change(button, cause: .control) { $0.value = .count(max(0, count)) }
        case .increment(let id, let step):
            guard let button = target(id) else { return }
            change(button, cause: .control) { $0.increment(by: step) }
        case .decrement(let id, let step):
            guard let button = target(id) else { return }
            change(button, cause: .control) { $0.decrement(by: step) }
        case .text(let id, let text):
            guard let button = target(id) else { return }
            change(button, cause: .control) { $0.setText(text) }
        case .dot(let id, let blink):
            guard let button = target(id) else { return }
            change(button, cause: .control) { $0.showDot(blink: blink) }
        case .clear(let id):
            let buttons = id.map { target($0).map { [$0] } ?? [] } ?? toolbar.buttons
            for button in buttons {
                change(button, cause: .control) { $0.clear() }
            }
        case .state:
            emitState()
        case .sync(let token):
            // Make sure every event the server generated before now is in our queue, then drain it
            // before the refresh that precedes the answer.
            x.roundTrip()
            drainEvents(x)
            pendingSyncs.append(token)
        case .quit:
            exitStatus = 0
        }
    }

    /// Fault injection for tests (BADGE_DEBUG=1 only).
    private enum DebugCommand: String {
        /// Sends a request the server refuses: FreePixmap of None (BadPixmap).
        case badRequest = "debug-bad-request"
    }

    private func execute(_ command: DebugCommand, x: XConnection) {
        switch command {
        case .badRequest:
            xcb_free_pixmap(x.connection, 0)
            x.flush()
        }
    }

    private func emitState() {
        let scale = toolbar.scale
        let now = clock.now
        func deviceRect(_ rect: Rect) -> JSONValue {
            let x0 = (rect.minX * scale).rounded(), y0 = (rect.minY * scale).rounded()
            let x1 = (rect.maxX * scale).rounded(), y1 = (rect.maxY * scale).rounded()
            return .object([("x", .int(Int(x0))), ("y", .int(Int(y0))), ("width", .int(Int(x1 - x0))), ("height", .int(Int(y1 - y0)))])
        }
        let buttons: [JSONValue] = toolbar.buttons.map { button in
            let rest = button.badge.presentation(at: now + 3600)
            let badgeFrame: JSONValue = button.badge.label == .hidden ? .null : rest.frame.map(deviceRect) ?? .null
            return .object([
                ("id", .string(button.id)),
                ("content", Self.json(button.badge.value, blinking: button.badge.isBlinking)),
                ("text", .string(Self.shownText(button.badge.label))),
                ("description", .string(button.badge.accessibilityDescription)),
                ("button", deviceRect(button.frame)),
                ("badge", badgeFrame),
            ])
        }
        let animating = toolbar.animationEndTime.map { $0 > now } ?? false
        emit(.object([("event", .string("state")), ("buttons", .array(buttons)),
                      ("title", .string(toolbar.title)), ("animating", .bool(animating)),
                      ("focused", toolbar.focusedButton.map { .string($0.id) } ?? .null),
                      ("tooltip", tooltipJSON()), ("urgent", .bool(urgent)), ("windowFocused", .bool(windowHasFocus)),
                      ("reducedMotion", .bool(reducedMotion)),
                      ("size", .object([("width", .int(window?.width ?? 0)), ("height", .int(window?.height ?? 0))]))]))
    }

    private func emitError(_ reason: String) {
        emit(.object([("event", .string("error")), ("line", .int(controlLineNumber)), ("reason", .string(reason))]))
    }

    private static func json(_ content: BadgeContent, blinking: Bool) -> JSONValue {
        switch content {
        case .none: return .object([("kind", .string("none"))])
        case .count(let count): return .object([("kind", .string("count")), ("count", .int(count))])
        case .text(let text): return .object([("kind", .string("text")), ("text", .string(text))])
        case .dot: return .object([("kind", .string("dot")), ("blink", .bool(blinking))])
        }
    }

    private static func shownText(_ label: BadgeLabel) -> String {
        if case .text(let text) = label { return text }
        return ""
    }

    // MARK: Drawing

    private func refresh(_ x: XConnection) {
        guard let window else { return }
        let scale = toolbar.scale
        var damage = toolbar.takeDamage()
        if !bufferPainted {
            damage = toolbar.bounds
        }
        var presented = false
        if let damage, !damage.isEmpty {
            // Round the damage out to whole device pixels once, and clip the drawing to exactly that.
            let x0 = Int((damage.minX * scale).rounded(.down)), y0 = Int((damage.minY * scale).rounded(.down))
            let x1 = min(window.width, Int((damage.maxX * scale).rounded(.up)))
            let y1 = min(window.height, Int((damage.maxY * scale).rounded(.up)))
            if x1 > x0, y1 > y0 {
                let clip = Rect(x: Double(x0) / scale, y: Double(y0) / scale,
                                width: Double(x1 - x0) / scale, height: Double(y1 - y0) / scale)
                do {
                    try window.backBuffer.draw { cr in
                        renderer.draw(toolbar, at: clock.now, in: cr, clip: bufferPainted ? clip : nil)
                    }
                    bufferPainted = true
                } catch {
                    // Once per distinct failure: a failing frame repeats at the frame rate.
                    if reportedDrawingFailures.insert("\(error)").inserted { printError("badge-demo: \(error)") }
                }
                if mapped {
                    window.present(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
                    presented = true
                }
            }
        }
        if let e = exposed, mapped, bufferPainted {
            window.present(x: e.x0, y: e.y0, width: e.x1 - e.x0, height: e.y1 - e.y0)
            exposed = nil
            presented = true
        }
        window.setTitle(toolbar.title)
        updateIcon()
        updateTooltip()
        launcher?.publish(count: toolbar.totalCount, urgent: urgent)
        if !x.flush() {
            connectionLost(x)
            return
        }
        if mapped && bufferPainted && !announcedReady {
            announcedReady = true
            if !presented {
                window.present(x: 0, y: 0, width: window.width, height: window.height)
                x.flush()
            }
            if options.control {
                // "ready" promises the first frame is on the server: wait until it has processed the copy.
                x.roundTrip()
                emit(.object([("event", .string("ready")), ("window", .int(Int(window.window))),
                              ("width", .int(window.width)), ("height", .int(window.height)), ("scale", .double(scale))]))
            }
        }
        if !pendingSyncs.isEmpty {
            // "sync" promises that the server has processed every copy before it: wait for it to.
            x.roundTrip()
            for token in pendingSyncs { emit(.object([("event", .string("sync")), ("token", .string(token))])) }
            pendingSyncs.removeAll()
        }
    }

    // MARK: Output

    private func emit(_ value: JSONValue) {
        output?.send(value.serialized)
    }

    private func printError(_ message: String) {
        StandardError.write(message)
    }
}
