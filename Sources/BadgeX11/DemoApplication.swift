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
    private var window: ToolbarWindow?
    private var timer: FrameTimer?
    private var mapped = false
    private var bufferPainted = false
    private var announcedReady = false
    private var exposed: (x0: Int, y0: Int, x1: Int, y1: Int)?
    private var pendingSyncs: [String] = []
    private var exitStatus: Int32?
    private var controlReader = LineReader(maximumLineLength: ControlCommand.maximumLineLength)
    private var controlLineNumber = 0
    private var controlOpen = false
    private var reportedErrors = Set<Int>()

    /// Prepares the toolbar, text and icons; throws for an unusable icon file (naming it).
    public init(options: DemoOptions) throws {
        self.options = options
        text = try TextLayouts()
        icons = try IconLibrary()
        for (id, path) in options.icons.sorted(by: { $0.key < $1.key }) {
            try icons.loadIcon(named: id, fromFile: path)
        }
        renderer = ToolbarRenderer(theme: options.theme, text: text, icons: icons)
        toolbar = DemoToolbar.make(options: options, clock: clock, text: text, scale: options.scale ?? 1)
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
        if let window { _ = window }
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
        window.setTitle(toolbar.title)
        window.map()
        controlOpen = options.control
        guard x.flush() else {
            throw X11Error("badge-demo: lost the connection to the X server on \(x.displayName)", exitStatus: X11Error.connectionLostStatus)
        }
    }

    private var atoms: Atoms?

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
            if controlOpen { pollSet.append(pollfd(fd: 0, events: Int16(POLLIN), revents: 0)) }
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
            if controlOpen, pollSet.count > 2, pollSet[2].revents != 0 { readControl(x) }
        }
    }

    private func connectionLost(_ x: XConnection) {
        let status = x.errorStatus
        let reason = status == 0 || status == 1 ? "the server closed the connection" : XConnection.describe(connectionError: status)
        printError("badge-demo: lost the connection to the X server on \(x.displayName) (\(reason))")
        exitStatus = X11Error.connectionLostStatus
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
        switch type {
        case 0:
            let error = raw.assumingMemoryBound(to: xcb_generic_error_t.self).pointee
            let key = Int(error.error_code) << 8 | Int(error.major_code)
            if reportedErrors.insert(key).inserted {
                printError("badge-demo: the X server refused a request (error \(error.error_code), request \(error.major_code)); carrying on")
            }
        case XCB_EXPOSE:
            let expose = raw.assumingMemoryBound(to: xcb_expose_event_t.self).pointee
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
            mapped = true
        case XCB_UNMAP_NOTIFY:
            mapped = false
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
            let mask = XCB_EVENT_MASK_SUBSTRUCTURE_NOTIFY.rawValue | XCB_EVENT_MASK_SUBSTRUCTURE_REDIRECT.rawValue
            withUnsafeBytes(of: &reply) { bytes in
                _ = xcb_send_event(x.connection, 0, x.root, mask, bytes.baseAddress?.assumingMemoryBound(to: CChar.self))
            }
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
        action.apply(to: button.badge)
        reportChange(of: button, cause: cause)
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
            button.badge.value = .count(max(0, count))
            reportChange(of: button, cause: .control)
        case .increment(let id, let step):
            guard let button = target(id) else { return }
            button.badge.increment(by: step)
            reportChange(of: button, cause: .control)
        case .decrement(let id, let step):
            guard let button = target(id) else { return }
            button.badge.decrement(by: step)
            reportChange(of: button, cause: .control)
        case .text(let id, let text):
            guard let button = target(id) else { return }
            button.badge.setText(text)
            reportChange(of: button, cause: .control)
        case .dot(let id, let blink):
            guard let button = target(id) else { return }
            button.badge.showDot(blink: blink)
            reportChange(of: button, cause: .control)
        case .clear(let id):
            let buttons = id.map { target($0).map { [$0] } ?? [] } ?? toolbar.buttons
            for button in buttons {
                button.badge.clear()
                reportChange(of: button, cause: .control)
            }
        case .state:
            emitState()
        case .sync(let token):
            // Make sure every event the server generated before now is in our queue, then drain it
            // before the refresh that precedes the answer.
            x.roundTrip()
            while let event = xcb_poll_for_queued_event(x.connection) {
                handle(event)
                free(event)
            }
            pendingSyncs.append(token)
        case .quit:
            exitStatus = 0
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
                      ("title", .string(toolbar.title)), ("animating", .bool(animating))]))
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
                    printError("badge-demo: drawing failed: \(error)")
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
        var line = value.serialized
        line += "\n"
        line.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = write(1, bytes.baseAddress.map { $0 + offset }, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return
                }
                offset += written
            }
        }
    }

    private func printError(_ message: String) {
        StandardError.write(message)
    }
}
