import BadgeCore
import BadgeDrawing
import BadgeX11
import Glibc
import BadgeControl

/// The badge demo: a ``ToolbarHost`` in a top-level window, on an ``EventLoop`` with the control
/// channel (`--control`) and the dock badge beside it. Everything else is the shell's.
final class DemoApplication {
    /// The demo's own gettext domain (its title and button labels).
    static let domain = "badge-demo"

    /// Who the demo is to the desktop, its title in the user's language.
    let identity: ApplicationIdentity

    private let options: DemoOptions
    private let clock = SystemClock()
    private var toolbar: Toolbar
    private let text: TextLayouts
    private let icons: IconLibrary
    private let locale: DesktopLocale
    /// The config file read (`--config`, or the XDG one), watched for changes; nil without one.
    private let configPath: String?
    private var configWatcher: ConfigWatcher?
    private let renderer: ToolbarRenderer
    private let loop = EventLoop()
    private var host: ToolbarHost?
    private var control: ControlChannel?
    /// The control socket, started after the first frame; nil before, or when there is none.
    private var socket: ControlSocketServer?
    /// Where the socket is, or why there is none (for `state`).
    private var socketStatus: JSONValue = .object([("status", .string("starting"))])
    private var dock: LauncherEntry?
    private let signals: SignalWatcher?
    private var saved: SavedCounts?
    /// Where the scale, theme and reduced motion in effect come from: "flag", "config", "desktop",
    /// "key" (reduced motion toggled with `r`) or "default".
    private(set) var sources = (scale: "default", theme: "default", reducedMotion: "default")
    private var exitStatus: ExitStatus?
    private var updatesBlinkRequested = false

    /// Prepares the toolbar, text and icons; throws ``DemoSetupError`` for an unusable config or
    /// icon file (naming it), or a drawing error when text or icons cannot be set up.
    init(options: DemoOptions, locale: DesktopLocale, signals: SignalWatcher? = nil) throws {
        self.signals = signals
        identity = ApplicationIdentity(instanceName: "badge-demo", className: "BadgeDemo",
                                       title: locale.translate("Badges", domain: Self.domain), desktopFileID: "badge-demo", iconName: "bell")
        // Pango and the font configuration load on a helper thread while the window is opened.
        let text = try TextLayouts(warmUp: options.screenshotPath == nil)
        text.language = locale.languageTag
        let icons = try IconLibrary()
        self.text = text
        self.icons = icons
        self.locale = locale
        // --config must be usable (exit 2 otherwise); the XDG file, when there is one, should be: a
        // bad one gives a warning and the bundled toolbar, and is read again when fixed.
        let environment: (String) -> String? = Environment.value
        configPath = options.screenshotPath == nil || options.configPath != nil
            ? ConfigWatcher.path(options: options, environment: environment) : nil
        var options = options
        if options.rightToLeft == nil { options.rightToLeft = locale.direction == .rightToLeft }
        var loaded: ToolbarConfig?
        var made: Toolbar?
        if let path = options.configPath {
            let config = try ToolbarConfig.load(path: path)
            made = try DemoToolbar.make(config: Self.localized(config, bundled: false, locale: locale), configFile: path,
                                        options: options, clock: clock, text: text, icons: icons)
            loaded = config
        } else if let path = configPath, access(path, F_OK) == 0 {
            // The whole file or nothing: an icon it names that cannot be used (missing, unknown, a
            // FIFO, too large) is as bad as a syntax error, so the bundled toolbar shows, the
            // warning names the file and field, and the file is applied once fixed.
            do {
                let config = try ToolbarConfig.load(path: path)
                made = try DemoToolbar.make(config: Self.localized(config, bundled: false, locale: locale), configFile: path,
                                            options: options, clock: clock, text: text, icons: icons)
                loaded = config
            } catch let error as DemoSetupError where !error.inConfigFile {
                throw error
            } catch {
                StandardError.write("badge-demo: \(error); using the bundled toolbar until it is fixed")
            }
        }
        let config = loaded ?? DemoToolbar.defaultConfig
        // Where each setting comes from: a flag, then the config file, then the desktop (live).
        sources.scale = options.scale != nil ? "flag" : config.scale != nil ? "config" : "default"
        sources.theme = options.themeFromFlag ? "flag" : config.theme != nil ? "config" : "default"
        sources.reducedMotion = options.reduceMotion ? "flag" : "default"
        if options.scale == nil { options.scale = config.scale }
        if !options.themeFromFlag, let theme = config.theme { options.theme = theme }
        self.options = options
        renderer = ToolbarRenderer(theme: options.theme, text: text, icons: icons)
        if let made {
            toolbar = made
        } else {
            toolbar = try DemoToolbar.make(config: Self.localized(config, bundled: true, locale: locale), configFile: nil,
                                           options: options, clock: clock, text: text, icons: icons)
        }
        let strings = locale.badgeStrings
        for button in toolbar.buttons { button.badge.strings = strings }
        // The counts of the last run, for the buttons that still exist; --count wins.
        if options.screenshotPath == nil,
           let path = SavedCounts.path(options: options, environment: environment) {
            let saved = SavedCounts(path: path, clock: clock)
            saved.warn = { StandardError.write("badge-demo: \($0)") }
            let contents = saved.load()
            for button in toolbar.buttons {
                // A flag's count is shown, and saved as a change of this run.
                guard options.counts[button.id] == nil else {
                    saved.differs(button.id)
                    continue
                }
                if let content = contents[button.id] {
                    button.badge.reducesMotion = true
                    button.badge.value = content
                    button.badge.reducesMotion = options.reduceMotion
                }
            }
            self.saved = saved
        }
    }

    /// Renders the window offscreen, as it first appears, to a PNG file.
    func renderScreenshot(to path: String) throws {
        try renderer.text.load()
        toolbar.layout(size: toolbar.preferredSize, scale: options.scale ?? 1, direction: toolbar.direction)
        try renderer.renderImage(toolbar, at: clock.now).writePNG(to: path)
    }

    /// Runs until the window is closed or the connection is lost; returns the exit status.
    func run() -> ExitStatus {
        signal(SIGPIPE, SIG_IGN)
        do {
            let host = try ToolbarHost(toolbar: toolbar, renderer: renderer, connection: try XConnection(),
                                       placement: .topLevel(identity), scale: options.scale, clock: clock)
            self.host = host
            if options.control { control = ControlChannel(acceptsDebugCommands: options.debugCommands) }
            host.accessibilityStrings = locale.accessibilityStrings
            wire(host)
            follow(host.desktopSettings, host: host)
            try loop.run()
        } catch let error as X11Error {
            if exitStatus == nil {
                printError(error)
                exitStatus = ExitStatus(error)
            }
        } catch {
            printError(error)
            exitStatus = .setupFailed
        }
        if exitStatus == .closed, let host {
            // `sync` then `quit` in one write: draw what the commands before them changed and answer.
            try? host.refresh()
        }
        // A clean exit saves what is shown (a lost connection too: the counts are still right).
        saved?.writeIfDue(toolbar, force: true)
        // Give a reader half a second to take the last events (a script waiting for them after quit).
        control?.finish(timeout: exitStatus == .connectionLost ? 0.2 : 0.5)
        socket?.shutdown()
        host = nil
        return exitStatus ?? .closed
    }

    private func wire(_ host: ToolbarHost) {
        host.onEvent = { [weak self] event in self?.hostEvent(event) }
        host.keyHandler = { [weak self] press in
            guard let self, let command = KeyCommand.command(for: press) else { return false }
            self.perform(command)
            return true
        }
        host.attach(to: loop)
        if let control {
            control.execute = { [weak self] request in self?.execute(request) ?? false }
            for source in control.sources { loop.add(source) }
        }
        if let saved {
            loop.addDeadline(named: "state") { saved.timeUntilDue }
            loop.addPreparation(named: "state") { [weak self] in
                if let self { saved.writeIfDue(self.toolbar) }
                return false
            }
        }
        if let signals {
            signals.onSignal = { [weak self] signal in
                if signal == SIGHUP { self?.reloadConfig(cause: "signal") } else { self?.quit(.closed) }
            }
            loop.add(signals.source)
        }
        if let configPath {
            let watcher = ConfigWatcher(path: configPath)
            watcher.onChange = { [weak self] in self?.reloadConfig(cause: "file") }
            configWatcher = watcher
            loop.add(watcher.source)
        }
    }

    /// The dock badge, on the host's session bus, which it connects once the first frame is on its
    /// way (connecting never delays the frame).
    private func startDock(_ host: ToolbarHost) {
        guard dock == nil, let bus = host.sessionBus else { return }
        let dock = LauncherEntry(bus: bus, desktopFileID: identity.desktopFileID)
        self.dock = dock
        dock.publish(count: host.toolbar.totalCount, urgent: host.isUrgent)
    }

    private func quit(_ status: ExitStatus) {
        if exitStatus == nil { exitStatus = status }
        loop.stop()
    }

    private func hostEvent(_ event: ToolbarHost.Event) {
        switch event {
        case .ready:
            if let host {
                startDock(host)
                control?.emit(ControlEvents.ready(host))
                startSocket()
            }
        case .badgeChanged(let button, let cause):
            let change = ControlEvents.change(button, cause: cause)
            control?.emit(change)
            socket?.broadcast(change.serialized)
            saved?.changed(button.id)
        case .tooltipChanged(let info):
            control?.emit(ControlEvents.tooltip(info))
        case .urgencyChanged(let on):
            control?.emit(ControlEvents.urgent(on))
        case .closeRequested:
            quit(.closed)
        case .detached:
            guard exitStatus == nil, let host else { return }
            StandardError.write("badge-demo: another X client destroyed the window 0x\(String(host.window, radix: 16)); exiting")
            quit(.windowDestroyed)
        case .desktopSettingsChanged(let settings):
            if let host { follow(settings, host: host) }
        case .windowStateChanged(let state):
            // The dock shows what the taskbar shows, coalesced the same way.
            if let host { dock?.publish(count: host.toolbar.totalCount, urgent: state.urgent) }
        case .accessibilityChanged(let status):
            control?.emit(ControlEvents.accessibility(status))
        case .warning(let message):
            StandardError.write("badge-demo: \(message)")
        case .focusLeft:
            break  // a top-level toolbar's focus wraps round: it never leaves
        }
    }

    // MARK: Config

    /// `config` in the user's language: the bundled buttons' labels translated (a config file's
    /// are the user's own), and digits grouped as the locale groups them.
    private static func localized(_ config: ToolbarConfig, bundled: Bool, locale: DesktopLocale) -> ToolbarConfig {
        var config = config
        for index in config.buttons.indices {
            if bundled { config.buttons[index].label = locale.translate(config.buttons[index].label, domain: domain) }
            if !locale.groupingSeparator.isEmpty { config.buttons[index].format.groupingSeparator = locale.groupingSeparator }
        }
        return config
    }

    /// Reads the config file again (it changed, or SIGHUP): applied when it is good, with the
    /// surviving buttons keeping their contents; otherwise the running toolbar stays and the reason
    /// goes to standard error and the control channel.
    private func reloadConfig(cause: String) {
        guard let path = configPath, let host else { return }
        let config: ToolbarConfig
        let newToolbar: Toolbar
        guard access(path, F_OK) == 0 else {
            // Removed (or renamed away, as editors do before writing the new one): what is shown stays.
            if cause == "signal" {
                StandardError.write("badge-demo: \(path): no such file; keeping the toolbar")
                control?.emit(ControlEvents.configError("\(path): no such file", cause: cause))
            }
            return
        }
        do {
            config = try ToolbarConfig.load(path: path)
            var flagless = options
            flagless.counts = [:]
            flagless.icons = [:]
            newToolbar = try DemoToolbar.make(config: Self.localized(config, bundled: false, locale: locale),
                                              configFile: path, options: flagless, clock: clock, text: text, icons: icons)
        } catch {
            StandardError.write("badge-demo: \(error); keeping the toolbar")
            control?.emit(ControlEvents.configError("\(error)", cause: cause))
            return
        }
        let strings = locale.badgeStrings
        for button in newToolbar.buttons {
            button.badge.strings = strings
            // A button that survives keeps what it shows.
            if let old = toolbar.button(id: button.id) {
                button.badge.reducesMotion = true
                if old.badge.isBlinking { button.badge.showDot(blink: true) } else { button.badge.value = old.badge.value }
            }
            button.badge.reducesMotion = host.reducesMotion
        }
        toolbar = newToolbar
        host.replace(toolbar: newToolbar)
        if sources.theme == "config" || sources.theme == "default", let theme = config.theme {
            renderer.theme = theme
            sources.theme = "config"
        }
        if sources.scale == "config" || sources.scale == "default", let scale = config.scale {
            host.setScale(scale)
            sources.scale = "config"
        }
        saved?.changed()
        control?.emit(ControlEvents.configReloaded(cause: cause, buttons: newToolbar.buttons.map(\.id)))
    }

    // MARK: Desktop settings

    /// Applies what the desktop says, where no flag or config file decided.
    private func follow(_ settings: DesktopSettings, host: ToolbarHost) {
        if sources.scale == "default" || sources.scale == "desktop" {
            host.setScale(settings.scale ?? 1)
            sources.scale = settings.scale == nil ? "default" : "desktop"
        }
        if sources.theme == "default" || sources.theme == "desktop" {
            let theme: Theme = settings.prefersDark == true ? .dark : .light
            if renderer.theme != theme {
                renderer.theme = theme
                host.invalidate()
            }
            sources.theme = settings.prefersDark == nil ? "default" : "desktop"
        }
        if sources.reducedMotion == "default" || sources.reducedMotion == "desktop" {
            host.reducesMotion = settings.reducesMotion ?? false
            sources.reducedMotion = settings.reducesMotion == nil ? "default" : "desktop"
        }
    }

    // MARK: Keys

    private func perform(_ command: KeyCommand) {
        guard let host else { return }
        switch command {
        case .quit:
            quit(.closed)
        case .cycleChatText:
            guard let chat = toolbar.button(id: "chat") else { return }
            var current: String?
            if case .text(let text) = chat.badge.value { current = text }
            host.change(chat, cause: .key) { $0.setText(KeyCommand.nextChatText(after: current)) }
        case .toggleBlink:
            guard let updates = toolbar.button(id: "updates") else { return }
            // Remembered here: under reduced motion the badge shows a steady dot even when asked to blink.
            updatesBlinkRequested = !(updates.badge.value == .dot && updatesBlinkRequested)
            let blink = updatesBlinkRequested
            host.change(updates, cause: .key) { $0.showDot(blink: blink) }
        case .toggleOverflow:
            guard let mail = toolbar.button(id: "mail") else { return }
            host.change(mail, cause: .key) { $0.value = .count($0.count == 120 ? 12 : 120) }
        case .toggleReducedMotion:
            host.reducesMotion.toggle()
            sources.reducedMotion = "key"
            control?.emit(ControlEvents.motion(reduced: host.reducesMotion))
        }
    }

    // MARK: Control commands

    /// Runs one control request; false once the app is quitting (the rest of the batch is left).
    private func execute(_ request: ControlChannel.Request) -> Bool {
        guard let host, let control else { return false }
        switch request {
        case .debug(.badRequest):
            host.connection.sendRefusedRequest()
        case .command(let command):
            switch execute(command, host: host) {
            case .done: break
            case .failed(let reason): control.emitError(reason)
            case .answer(let event): control.emit(event)
            case .synchronize(let token):
                host.synchronize { [weak control] in control?.emit(ControlEvents.sync(token)) }
            }
        }
        return exitStatus == nil
    }

    /// What a command did, for the channel that sent it to answer.
    private enum Outcome {
        case done
        case failed(String)
        case answer(JSONValue)
        case synchronize(String)
    }

    /// Runs one command, from standard input or the socket alike (cause "control").
    private func execute(_ command: ControlCommand, host: ToolbarHost) -> Outcome {
        func target(_ id: String) -> ToolbarButton? { toolbar.button(id: id) }
        func unknown(_ id: String) -> Outcome {
            .failed("unknown button \"\(id.prefix(40))\"; buttons are \(toolbar.buttons.map(\.id).joined(separator: ", "))")
        }
        switch command {
        case .set(let id, let count):
            guard let button = target(id) else { return unknown(id) }
            host.change(button, cause: .control) { $0.value = .count(max(0, count)) }
        case .increment(let id, let step):
            guard let button = target(id) else { return unknown(id) }
            host.change(button, cause: .control) { $0.increment(by: step) }
        case .decrement(let id, let step):
            guard let button = target(id) else { return unknown(id) }
            host.change(button, cause: .control) { $0.decrement(by: step) }
        case .text(let id, let text):
            guard let button = target(id) else { return unknown(id) }
            host.change(button, cause: .control) { $0.setText(text) }
        case .dot(let id, let blink):
            guard let button = target(id) else { return unknown(id) }
            host.change(button, cause: .control) { $0.showDot(blink: blink) }
        case .clear(let id):
            if let id, target(id) == nil { return unknown(id) }
            let buttons = id.flatMap { target($0).map { [$0] } } ?? toolbar.buttons
            for button in buttons {
                host.change(button, cause: .control) { $0.clear() }
            }
        case .state:
            return .answer(ControlEvents.state(host, now: clock.now, theme: renderer.theme, sources: sources, socket: socketStatus))
        case .sync(let token):
            return .synchronize(token)
        case .quit:
            quit(.closed)
        }
        return .done
    }

    // MARK: Control socket

    /// Starts the control socket (after the first frame, never before the window). Without one
    /// (no XDG_RUNTIME_DIR, an unsafe folder, another instance), says why and goes on.
    private func startSocket() {
        guard socket == nil else { return }
        do {
            let server = try ControlSocketServer(app: "badge-demo")
            server.onLine = { [weak self, weak server] client, line in
                guard let self, let server else { return }
                self.socketLine(line, from: client, server: server)
            }
            server.onLog = { [weak self, weak server] message in
                StandardError.write("badge-demo: \(message)")
                let event = JSONValue.object([("event", .string("error")), ("line", .int(0)), ("source", .string("socket")),
                                              ("reason", .string(message))])
                self?.control?.emit(event)
                server?.broadcast(event.serialized)
            }
            loop.add(server.source(paused: { [weak self] in self?.control?.isBackedUp == true }))
            loop.addDeadline(named: "control-socket") { [weak server] in server?.timeUntilDue }
            loop.addPreparation(named: "control-socket") { [weak server] in server?.expire() ?? false }
            socket = server
            socketStatus = .object([("status", .string("listening")), ("path", .string(server.path)),
                                    ("protocol", .int(ControlSocketServer.protocolVersion))])
        } catch {
            StandardError.write("badge-demo: \(error)")
            socketStatus = .object([("status", .string("off")), ("reason", .string("\(error)"))])
        }
    }

    /// One line from a socket client: every line gets a reply.
    private func socketLine(_ line: String, from client: ControlSocketServer.ClientID, server: ControlSocketServer) {
        let ok = #"{"reply":"ok"}"#
        let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
        let trimmed = words.count == 1 ? String(words[0]) : ""
        if trimmed == "hello" {
            server.reply(#"{"reply":"ok","protocol":\#(ControlSocketServer.protocolVersion)}"#, to: client)
            return
        }
        if trimmed == "subscribe" {
            server.reply(ok, to: client)
            server.subscribe(client)
            return
        }
        guard let host else { return server.reply(ControlSocketServer.errorLine("the window is gone"), to: client) }
        switch ControlCommand.parse(line) {
        case .failure(let error):
            server.reply(ControlSocketServer.errorLine(error.reason), to: client)
        case .success(let command):
            switch execute(command, host: host) {
            case .done:
                server.reply(ok, to: client)
            case .failed(let reason):
                server.reply(ControlSocketServer.errorLine(reason), to: client)
            case .answer(let event):
                server.reply(Self.reply(event).serialized, to: client)
            case .synchronize(let token):
                host.synchronize { [weak server] in
                    server?.reply(JSONValue.object([("reply", .string("ok")), ("token", .string(token))]).serialized, to: client)
                }
            }
        }
    }

    /// An event as a reply: `{"reply":"ok", ...the event's fields}`.
    private static func reply(_ event: JSONValue) -> JSONValue {
        guard case .object(let fields) = event else { return event }
        return .object([("reply", .string("ok"))] + fields)
    }

    private func printError(_ error: any Error) {
        if case X11Error.noDisplay = error {
            StandardError.write("badge-demo: \(error); or render offscreen with --screenshot FILE.png")
        } else {
            StandardError.write("badge-demo: \(error)")
        }
    }
}
