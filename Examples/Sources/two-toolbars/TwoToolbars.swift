import BadgeCore
import BadgeDrawing
import BadgeX11

/// The core protocol's numbers for the events the example reads itself (``XEvent/code``).
enum EventCode {
    static let keyPress: UInt8 = 2
    static let expose: UInt8 = 12
    static let configureNotify: UInt8 = 22
}

/// One of the example's toolbars: its host, and the renderer whose theme follows the desktop.
final class Bar {
    let name: String
    let host: ToolbarHost
    let renderer: ToolbarRenderer

    init(name: String, toolbar: Toolbar, text: TextLayouts, icons: IconLibrary, connection: XConnection,
         parent: UInt32, x: Int, y: Int, clock: SystemClock) throws {
        self.name = name
        renderer = ToolbarRenderer(theme: .light, text: text, icons: icons)
        // No scale: the desktop's (Xft.dpi), as every host on the connection reads it.
        host = try ToolbarHost(toolbar: toolbar, renderer: renderer, connection: connection,
                               placement: .child(of: parent, x: x, y: y, identity: TwoToolbars.identity), clock: clock)
    }

    /// The size the toolbar wants at its scale, in device pixels.
    var preferredSize: (width: Int, height: Int) { host.toolbar.preferredSize.pixels(scale: host.scale) }
}

/// The example: its window (or another client's), its toolbars, its own loop, timer and focus chain.
final class TwoToolbars {
    static let identity = ApplicationIdentity(instanceName: "two-toolbars", className: "TwoToolbars", title: "Two toolbars",
                                              desktopFileID: "org.example.TwoToolbars", iconName: "mail")
    /// The example's own content: one green "widget" filling the window around the toolbars.
    static let background = Color(red: 0.2, green: 0.6, blue: 0.4)
    /// Logical pixels between toolbar A and toolbar B.
    static let gap = 16.0

    /// Who has the keyboard focus in the window's chain: the widget, then A, then B.
    enum Focus: String { case widget, a, b }

    struct Counts {
        /// Expose and ConfigureNotify events of the example's window that reached its own dispatch.
        var expose = 0, configure = 0
        /// Key presses the focused toolbar used, and those left to the widget.
        var forwardedKeys = 0, widgetKeys = 0
        /// Events handed back that named a toolbar's window (the contract says: none).
        var strays = 0
    }

    let connection: XConnection
    let clock = SystemClock()
    /// The example's window; nil with `--into`, where the toolbar lives in another client's window.
    let window: ApplicationWindow?
    let parent: UInt32
    /// A (and, in the example's own window, B).
    let bars: [Bar]
    let inbox: ToolbarButton
    var session: DesktopSession { bars[0].host.session }

    var running = true
    var readingInput = true
    var mailInterval: Double
    var nextMail: Double?
    var focus = Focus.widget
    var counts = Counts()
    var readyHosts = 0
    var layoutDue = false
    var pendingSyncs = 0
    var reportsDue: [String] = []
    var idleReportDue = false

    init(options: Options) throws {
        connection = try XConnection()
        let text = try TextLayouts()
        let icons = try IconLibrary()
        let clock = self.clock
        func button(_ id: String, _ icon: String, _ label: String, _ content: BadgeContent) -> ToolbarButton {
            ToolbarButton(id: id, iconName: icon,
                          badge: BadgeController(accessibilityLabel: label, content: content, clock: clock, measurer: text))
        }
        inbox = button("inbox", "mail", "Inbox", .count(0))
        let toolbarA = Toolbar(buttons: [inbox, button("alerts", "bell", "Alerts", .count(2)), button("chat", "chat", "Chat", .text("New"))])
        if let foreign = options.into {
            window = nil
            parent = foreign
            bars = [try Bar(name: "a", toolbar: toolbarA, text: text, icons: icons, connection: connection,
                            parent: foreign, x: 0, y: 0, clock: clock)]
        } else {
            let window = try ApplicationWindow(connection: connection, identity: Self.identity, width: 480, height: 320)
            let a = try Bar(name: "a", toolbar: toolbarA, text: text, icons: icons, connection: connection,
                            parent: window.id, x: 0, y: 0, clock: clock)
            let toolbarB = Toolbar(buttons: [button("updates", "updates", "Updates", .count(1)),
                                             button("reminders", "bell", "Reminders", .count(5))])
            let b = try Bar(name: "b", toolbar: toolbarB, text: text, icons: icons, connection: connection,
                            parent: window.id, x: 0, y: 0, clock: clock)
            self.window = window
            parent = window.id
            bars = [a, b]
        }
        mailInterval = options.mailInterval
        if mailInterval > 0 { nextMail = clock.now + mailInterval }
        for bar in bars {
            bar.host.onEvent = { [unowned self, unowned bar] event in self.hostEvent(event, from: bar) }
        }
        if let window {
            layout()
            paint()
            // The window's focus chain starts at toolbar A.
            moveFocus(to: 0, from: .forward)
            window.map()
        }
    }

    // MARK: The loop

    /// The example's own loop: every event to the hosts first (what none takes is the example's),
    /// then refresh them, then sleep on everything the desktop session watches, standard input,
    /// and the mail timer's deadline.
    func run() throws {
        let input = DesktopSession.PollDescriptor(fileDescriptor: 0, interest: .readable)
        while running {
            while let event = connection.nextEvent() { dispatch(event) }
            if layoutDue {
                layoutDue = false
                layout()
                synchronizeAll(thenSay: "layout")
            }
            for bar in bars { try bar.host.refresh() }
            if !reportsDue.isEmpty, pendingSyncs == 0 {
                settle()
                for name in reportsDue { say(report(name)) }
                reportsDue = []
            }
            guard running else { break }
            if idleReportDue, idle {
                idleReportDue = false
                say(report("idle"))
            }
            let timeout = nextMail.map { max(0, $0 - clock.now) }
            let ready = session.wait(alsoWatching: readingInput ? [input] : [], timeout: timeout)
            if ready.contains(input) { readCommand() }
            if let due = nextMail, clock.now >= due { newMail(due: due) }
            if let failure = connection.failure { throw failure }
        }
    }

    /// Offers `event` to each host until one takes it; what none takes is the example's. Settings
    /// events are acted on by every host and come back here too.
    func dispatch(_ event: XEvent) {
        for bar in bars where bar.host.handle(event) { return }
        mine(event)
    }

    func mine(_ event: XEvent) {
        guard !event.isError else { return }
        if let named = event.window, bars.contains(where: { $0.host.window == named }) { counts.strays += 1 }
        guard let window, event.window == window.id else { return }
        if event.code == EventCode.expose { counts.expose += 1 }
        if event.code == EventCode.configureNotify { counts.configure += 1 }
        if event.code == EventCode.keyPress {
            key(event)
            return
        }
        switch window.handle(event) {
        case .resized:
            paint()
            layout()
        case .pointerPressed:
            // A click on the widget takes the focus from the toolbars.
            for bar in bars where bar.host.hasFocus { bar.host.resignFocus() }
            if focus != .widget { say(#"{"event":"focus","to":"widget","cause":"click"}"#) }
            focus = .widget
        case .closeRequested, .destroyed:
            running = false
        default:
            break
        }
    }

    /// A key pressed in the window: the focused toolbar's if it has a use for it, else the widget's.
    func key(_ event: XEvent) {
        if let bar = bars.first(where: { $0.host.hasFocus }), bar.host.handleKeyPress(event) {
            counts.forwardedKeys += 1
            return
        }
        // The widget's own Tab hands the focus on into the toolbars (Shift+Tab: into the last one),
        // read through the toolbars' keymap.
        if focus == .widget, let press = bars.first?.host.keyPress(for: event),
           press.symbol == KeySymbol.tab || press.symbol == KeySymbol.leftTab {
            let backward = press.shift || press.symbol == KeySymbol.leftTab
            moveFocus(to: backward ? bars.count - 1 : 0, from: backward ? .backward : .forward)
            say(#"{"event":"focus","from":"widget","to":"\#(focus.rawValue)","direction":"\#(backward ? "backward" : "forward")"}"#)
            return
        }
        counts.widgetKeys += 1
        say(#"{"event":"key","to":"widget","keys":\#(counts.widgetKeys)}"#)
    }

    /// Gives the focus to bar `index` as the window's chain reaches it, or to the widget.
    func moveFocus(to index: Int?, from direction: ToolbarHost.FocusDirection) {
        for bar in bars where bar.host.hasFocus { bar.host.resignFocus() }
        if let index, bars.indices.contains(index) {
            bars[index].host.focus(from: direction)
            focus = index == 0 ? .a : .b
        } else {
            focus = .widget
        }
    }

    func hostEvent(_ event: ToolbarHost.Event, from bar: Bar) {
        switch event {
        case .ready:
            readyHosts += 1
            if readyHosts == bars.count { reportsDue.append("ready") }
        case .badgeChanged(let button, let cause):
            say(#"{"event":"change","toolbar":"\#(bar.name)","id":"\#(button.id)","cause":"\#(cause.rawValue)","count":\#(button.badge.count)}"#)
        case .focusLeft(let direction):
            // A → B → the widget with Tab; back with Shift+Tab.
            let index = bars.firstIndex { $0 === bar } ?? 0
            let next = direction == .forward ? index + 1 : index - 1
            moveFocus(to: bars.indices.contains(next) ? next : nil, from: direction)
            let way = direction == .forward ? "forward" : "backward"
            say(#"{"event":"focus","from":"\#(bar.name)","to":"\#(focus.rawValue)","direction":"\#(way)"}"#)
        case .desktopSettingsChanged(let settings):
            let dark = settings.prefersDark ?? false
            let scale = settings.scale ?? 1
            say(#"{"event":"settings","toolbar":"\#(bar.name)","scale":\#(scale),"dark":\#(dark)}"#)
            bar.renderer.theme = dark ? .dark : .light
            if let reduces = settings.reducesMotion { bar.host.reducesMotion = reduces }
            bar.host.setScale(scale)
            bar.host.invalidate()
            // Laid out again (B follows A's new height) once the events are read.
            layoutDue = true
        case .focusEntered:
            // X's focus came to this toolbar's own window (a click under a click-to-focus window
            // manager): it holds the focus now, and nothing else shows any.
            for other in bars where other !== bar { other.host.resignFocus() }
            focus = bars.first === bar ? .a : .b
            say(#"{"event":"focus","to":"\#(focus.rawValue)","cause":"x"}"#)
        case .detached:
            say(#"{"event":"detached","toolbar":"\#(bar.name)"}"#)
            running = false
        case .warning(let text):
            say(#"{"event":"warning","toolbar":"\#(bar.name)","message":"\#(text.filter { $0 != "\"" && $0 != "\\" })"}"#)
        default:
            break
        }
    }

    // MARK: The example's own content

    /// A spans the window's top edge, B sits below it at its preferred size.
    func layout() {
        guard let window, bars.count == 2 else { return }
        let (a, b) = (bars[0], bars[1])
        let top = a.preferredSize.height
        a.host.move(x: 0, y: 0)
        a.host.resize(width: window.width, height: top)
        b.host.move(x: 0, y: top + Int((Self.gap * a.host.scale).rounded()))
        b.host.resize(width: b.preferredSize.width, height: b.preferredSize.height)
    }

    /// The widget: the whole window in its colour (the toolbars are child windows above it).
    func paint() {
        guard let window else { return }
        try? window.draw { $0.paint(Self.background) }
        window.present()
    }

    /// Every host drawn and processed by the server, then `name` is reported.
    func synchronizeAll(thenSay name: String) {
        reportsDue.append(name)
        pendingSyncs += bars.count
        for bar in bars { bar.host.synchronize { [unowned self] in self.pendingSyncs -= 1 } }
    }

    /// Reads and handles everything until the server has nothing more for the example: what it
    /// drew is on the server, and every event so far has been dispatched.
    func settle() {
        for _ in 0..<20 {
            for bar in bars { try? bar.host.refresh() }
            try? connection.flush()
            connection.roundTrip()
            var more = false
            while let event = connection.nextEvent() {
                more = true
                dispatch(event)
            }
            if layoutDue {
                layoutDue = false
                layout()
                more = true
            }
            if !more { return }
        }
    }

    var idle: Bool { nextMail == nil && session.timeUntilNextDeadline == nil }

    func report(_ name: String) -> String {
        var fields = [#""event":"\#(name)","window":\#(parent)"#]
        if let window { fields.append(#""width":\#(window.width),"height":\#(window.height)"#) }
        for bar in bars {
            let f = bar.host.frame
            fields.append(#""\#(bar.name)":{"window":\#(bar.host.window),"x":\#(f.x),"y":\#(f.y),"width":\#(f.width),"#
                + #""height":\#(f.height),"scale":\#(bar.host.scale),"theme":"\#(bar.renderer.theme.name)","focused":\#(bar.host.hasFocus)}"#)
        }
        fields.append(#""focus":"\#(focus.rawValue)","expose":\#(counts.expose),"configure":\#(counts.configure),"#
            + #""forwardedKeys":\#(counts.forwardedKeys),"widgetKeys":\#(counts.widgetKeys),"strays":\#(counts.strays),"#
            + #""mail":\#(nextMail != nil),"idle":\#(idle)"#)
        return "{" + fields.joined(separator: ",") + "}"
    }

    // MARK: The timer and standard input

    /// New mail on A's inbox, from code.
    func newMail(due: Double) {
        bars[0].host.change(inbox, cause: .control) { $0.value = .count($0.count + 1) }
        nextMail = max(due + mailInterval, clock.now)
    }

    /// One command line; standard input was ready, so `readLine()` returns without blocking.
    func readCommand() {
        guard let line = readLine() else {
            readingInput = false  // closed: nothing more to read (and poll would report it forever)
            return
        }
        if !perform(line.split(separator: " ").map(String.init)) {
            say(#"{"event":"error","message":"unknown command"}"#)
        }
    }

    /// Carries out a command; false when it is not one.
    func perform(_ words: [String]) -> Bool {
        switch words.first {
        case "sync" where words.count == 1:
            synchronizeAll(thenSay: "synced")
        case "resize" where words.count == 3:
            guard let window, let width = Int(words[1]), let height = Int(words[2]) else { return false }
            // The window and toolbar A change size, and the toolbars are synchronized, all in one
            // turn: the window's Expose and ConfigureNotify, read meanwhile, still come to this loop.
            window.resize(width: width, height: height)
            bars[0].host.resize(width: width, height: bars[0].host.frame.height)
            synchronizeAll(thenSay: "resized")
        case "focus" where words.count == 2 || words.count == 3:
            guard let index = ["a", "b"].firstIndex(of: words[1]), bars.indices.contains(index) else { return false }
            let direction: ToolbarHost.FocusDirection = words.count == 3 && words[2] == "backward" ? .backward : .forward
            moveFocus(to: index, from: direction)
            say(#"{"event":"focus","from":"widget","to":"\#(focus.rawValue)"}"#)
        case "mail" where words.count == 2 && (words[1] == "on" || words[1] == "off"):
            if mailInterval <= 0 { mailInterval = 0.2 }
            nextMail = words[1] == "on" ? clock.now + mailInterval : nil
            synchronizeAll(thenSay: "mail")
        case "idle" where words.count == 1:
            idleReportDue = true
        case "quit" where words.count == 1:
            running = false
        default:
            return false
        }
        return true
    }
}
