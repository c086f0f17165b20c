import BadgeCore
import BadgeDrawing
import BadgeX11
import Glibc
import BadgeControl
import BadgeSources

/// The badge demo: a ``ToolbarHost`` in a top-level window, on an ``EventLoop`` with the control
/// channel (`--control`) and the dock badge beside it. Everything else is the shell's.
final class BadgeApplication {
    /// The demo's own gettext domain (its title and button labels).
    static let domain = "badge-demo"
    /// The app's desktop id: its dock count is broadcast for it (and never followed by its own
    /// launcher sources).
    static let desktopFileID = "badge-demo"

    /// Who the demo is to the desktop, its title in the user's language.
    let identity: ApplicationIdentity

    let options: AppOptions
    let clock = SystemClock()
    /// The one owner of the buttons and their badges (BadgeCore, no X): every input changes it
    /// through its funnel, the window is a view of it, and the board hands each change to the outputs.
    let model: ToolbarModel
    /// The buttons shown: the model's (a reload replaces them there).
    var toolbar: Toolbar { model.toolbar }
    let text: TextLayouts
    let icons: IconLibrary
    let locale: DesktopLocale
    /// The config file read (`--config`, or the XDG one), watched for changes; nil without one.
    let configPath: String?
    var configWatcher: ConfigWatcher?
    let renderer: ToolbarRenderer
    let loop = EventLoop()
    var host: ToolbarHost?
    var control: ControlChannel?
    /// The control socket, the profile this instance runs and its lock (``ControlSocketFront``).
    let socket = ControlSocketFront()
    /// The buttons bound to sources (Maildir, notifications, launcher counts, commands), from the
    /// first frame on; nil before, or when none is bound.
    var bindings: SourceBindings?
    /// What the config file says (its sources, Do Not Disturb choices, click actions, root),
    /// derived once per reading: at start and at every reload.
    var config = AppConfig()
    var launcher: ProgramLauncher?
    var dock: LauncherEntry?
    /// The icon with the total in the system tray (BadgeApplication+Tray.swift); nil with `--no-tray`.
    var tray: TrayIcon?
    /// The badges on the session bus under `busName` (BadgeApplication+Bus.swift), from the first frame on.
    var busService: BadgeBusService?
    var busName = BadgeApplication.busName(forProfile: nil)
    var busFailure: String?
    let signals: SignalWatcher?
    var saved: SavedCounts?
    /// Where each button's value came from (the demo, the config, a source, by hand).
    let origins = BadgeOrigins()
    /// Every change of the badges on its way out, to every output (Board/Board.swift).
    let board = Board()
    /// Where the scale, theme and reduced motion in effect come from (typed, never strings).
    var sources = SettingOrigins()
    /// The scale's layers (the flag's and the config's) until the monitor follower takes them
    /// over; read and written through ``scalePolicy`` (BadgeApplication+Monitors.swift).
    var startingScalePolicy = MonitorScalePolicy()
    var exitStatus: ExitStatus?
    var updatesBlinkRequested = false
    /// The open peek's owner (its menu), a board output too.
    private(set) lazy var peek = PeekController(application: self)

    /// Prepares the toolbar, text and icons; throws ``DemoSetupError`` for an unusable config or
    /// icon file (naming it), or a drawing error when text or icons cannot be set up.
    init(options: AppOptions, locale: DesktopLocale, signals: SignalWatcher? = nil) throws {
        self.signals = signals
        identity = ApplicationIdentity(instanceName: "badge-demo", className: "BadgeDemo",
                                       title: locale.translate("Badges", domain: Self.domain), desktopFileID: Self.desktopFileID, iconName: "bell")
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
                StandardError.say(Sentence("%s; using the bundled toolbar until it is fixed", .text("\(error)")))
            }
        }
        let config = loaded ?? DemoToolbar.defaultConfig
        for warning in config.warnings { StandardError.write("badge-demo: \(warning)") }
        self.config = AppConfig(config, fromFile: loaded != nil)
        // Where each setting comes from: a flag, then the config file, then the desktop (live).
        sources.scale = options.scale != nil ? .flag : config.scale != nil ? .config : .default
        sources.theme = options.themeFromFlag ? .flag : config.theme != nil ? .config : .default
        sources.reducedMotion = options.reduceMotion ? .flag : .default
        startingScalePolicy = Self.scalePolicy(flag: options.scale, config: config)
        if options.scale == nil { options.scale = config.scale }
        if !options.themeFromFlag, let theme = config.theme { options.theme = theme }
        self.options = options
        renderer = ToolbarRenderer(theme: options.theme, text: text, icons: icons)
        if let made {
            model = ToolbarModel(toolbar: made)
        } else {
            model = ToolbarModel(toolbar: try DemoToolbar.make(config: Self.localized(config, bundled: true, locale: locale), configFile: nil,
                                                               options: options, clock: clock, text: text, icons: icons))
        }
        let strings = locale.badgeStrings
        for button in toolbar.buttons { button.badge.strings = strings }
        // Where each value comes from: the bundled toolbar's are the demo's samples, a file's its own.
        let boundKinds = self.config.boundKinds
        for button in toolbar.buttons {
            // A bound button's `content` was left out (ToolbarConfig): it shows only what a source gave.
            if options.counts[button.id] != nil || boundKinds[button.id] != nil {
                origins.set(button.id, .hand)
            } else {
                origins.set(button.id, button.badge.value == .none ? .hand : loaded?.listsButtons == true ? .config : .demo)
            }
        }
        // The counts of the last run, for the buttons that still exist; --count wins.
        if options.screenshotPath == nil { restoreSavedCounts(boundKinds: boundKinds, environment: environment) }
        origins.sourceKind = { [weak self] id in self?.bindings?.binding(of: id)?.config.kind }
        board.observe(origins, at: .state)
        board.observe(EventStreamOutput(publish: { [weak self] event in self?.publish(event) }))
        board.observe(peek)
    }

    /// Shows `content` on `badge` without an animation.
    static func setAtOnce(_ badge: BadgeController, _ content: BadgeContent, reduceMotion: Bool) {
        badge.reducesMotion = true
        badge.value = content
        badge.reducesMotion = reduceMotion
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
            let host = try ToolbarHost(model: model, renderer: renderer, connection: try XConnection(),
                                       placement: .topLevel(identity), scale: options.scale, clock: clock)
            self.host = host
            // The board hears of every badge change from the model itself, after the view (which
            // asks for attention first): a source, the bus or a command never passes through X.
            model.observe { [board] change in
                if case .badge(let button, let cause, _) = change { board.apply(.badge(button, cause: cause)) }
            }
            if options.control { control = ControlChannel(acceptsDebugCommands: options.debugCommands) }
            host.accessibilityStrings = locale.accessibilityStrings
            wire(host)
            startMonitorScale(host)
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
        saved?.writeIfDue(toolbar, force: true, origin: { [origins] in origins.origin(of: $0).saved },
                          sender: { [bindings] in bindings?.sender(of: $0) })
        // Give a reader half a second to take the last events (a script waiting for them after quit).
        control?.finish(timeout: exitStatus == .connectionLost ? 0.2 : 0.5)
        socket.shutdown()
        bindings?.stop()
        host = nil
        return exitStatus ?? .closed
    }

    func wire(_ host: ToolbarHost) {
        host.onEvent = { [weak self] event in self?.hostEvent(event) }
        wireClicks(host)
        host.keyHandler = { [weak self, weak host] press in
            guard let self, let host else { return false }
            // A count made of a producer's items is their number: Space and Return show them, the other badge
            // keys leave it alone (a number typed over items would lie about them).
            if case .badge(let action)? = ToolbarKeyAction.action(for: press), let focused = host.toolbar.focusedButton,
               focused.badge.countIsItems {
                if action == .increment { self.openPeek(for: focused, trigger: .keyboard, host: host) }
                return true
            }
            guard let command = KeyCommand.command(for: press) else { return false }
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
                if let self {
                    saved.writeIfDue(self.toolbar, origin: { [origins = self.origins] in origins.origin(of: $0).saved },
                                     sender: { [bindings = self.bindings] in bindings?.sender(of: $0) })
                }
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
            // A file that read as cut is read again at its settle's deadline (no wakeup otherwise).
            loop.addDeadline(named: "config-settle") { [weak watcher] in watcher?.settle.timeUntilDue(now: SystemTime.monotonic) }
            loop.addPreparation(named: "config-settle") { [weak self, weak watcher] in
                if let watcher, watcher.settle.takeIfDue(now: SystemTime.monotonic) { self?.reloadConfig(cause: "file", settled: true) }
                return false
            }
        }
    }

    /// The dock badge, on the host's session bus, which it connects once the first frame is on its
    /// way (connecting never delays the frame).
    func startDock(_ host: ToolbarHost) {
        guard dock == nil, let bus = host.sessionBus else { return }
        let dock = LauncherEntry(bus: bus, desktopFileID: identity.desktopFileID)
        self.dock = dock
        board.observe(DockOutput(dock: dock, host: host))
        dock.publish(count: host.toolbar.totalCount, urgent: host.isUrgent)
    }

    func quit(_ status: ExitStatus) {
        if exitStatus == nil { exitStatus = status }
        loop.stop()
    }

    func hostEvent(_ event: ToolbarHost.Event) {
        switch event {
        case .ready:
            if let host {
                startDock(host)
                board.apply(.event(.ready(ControlEvents.ready(host))))
                startSocket()
                startSources(host)
                startBusService(host)
                startTray(host)
            }
        case .badgeChanged:
            break  // the board observes the model itself
        case .tooltipChanged(let info):
            board.apply(.event(.tooltip(ControlEvents.tooltip(info))))
        case .urgencyChanged(let on):
            board.apply(.urgency(on))
        case .closeRequested:
            quit(.closed)
        case .detached:
            guard exitStatus == nil, let host else { return }
            StandardError.say(Sentence("another X client destroyed the window 0x%s; exiting", .text("\(String(host.window, radix: 16))")))
            quit(.windowDestroyed)
        case .desktopSettingsChanged(let settings):
            if let host { follow(settings, host: host) }
        case .windowStateChanged(let state):
            // The dock shows what the taskbar shows, coalesced the same way.
            board.apply(.windowState(state))
        case .accessibilityChanged(let status):
            board.apply(.event(.accessibility(ControlEvents.accessibility(status))))
        case .warning(let message):
            StandardError.write("badge-demo: \(message)")
        case .peekRequested(let button, let trigger):
            if let host { openPeek(for: button, trigger: trigger, host: host) }
        case .peek(let event):
            if let host { peekEvent(event, host: host) }
        case .focusLeft, .focusEntered:
            break  // a top-level toolbar's focus wraps round and follows its window's: it never leaves
        }
    }
}
