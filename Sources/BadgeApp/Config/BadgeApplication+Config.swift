import BadgeCore
import BadgeDrawing
import BadgeX11
import Glibc
import BadgeControl

/// The config file: read at start, again when it changes or on SIGHUP, applied to the running toolbar.
extension BadgeApplication {
    // MARK: Config

    /// `config` in the user's language: the bundled buttons' labels translated (a config file's
    /// are the user's own), and digits grouped as the locale groups them.
    static func localized(_ config: ToolbarConfig, bundled: Bool, locale: DesktopLocale) -> ToolbarConfig {
        var config = config
        for index in config.buttons.indices {
            if bundled { config.buttons[index].label = locale.translate(config.buttons[index].label, domain: domain) }
            if !locale.groupingSeparator.isEmpty { config.buttons[index].format.groupingSeparator = locale.groupingSeparator }
        }
        return config
    }

    /// Reads the config file again (it changed, or SIGHUP): applied when it is good, with the
    /// surviving buttons keeping their contents; otherwise the running toolbar stays and the reason
    /// goes to standard error and the control channel. A changed file that reads as cut may be
    /// half saved: it is reported only if it is still bad when it settles (``ConfigSettle``;
    /// `settled`: this is the settle's reading).
    func reloadConfig(cause: String, settled: Bool = false) {
        guard let path = configPath, let host else { return }
        let asked = cause == "signal" || settled
        let config: ToolbarConfig
        let newToolbar: Toolbar
        guard access(path, F_OK) == 0 else {
            // Removed (or renamed away, as editors do before writing the new one): what is shown stays.
            configWatcher?.settle.cancel()
            if cause == "signal" {
                StandardError.say(Sentence("%s: no such file; keeping the toolbar", .text(path)))
                board.apply(.event(.config(ControlEvents.configError("\(path): no such file", cause: cause))))
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
            let reading: ConfigSettle.Reading = (error as? ToolbarConfig.Error)?.isCut == true ? .cut : .bad
            if configWatcher?.settle.verdict(on: reading, asked: asked, now: SystemTime.monotonic) == .wait { return }
            StandardError.say(Sentence("%s; keeping the toolbar", .text("\(error)")))
            board.apply(.event(.config(ControlEvents.configError("\(error)", cause: cause))))
            return
        }
        _ = configWatcher?.settle.verdict(on: .good, asked: asked, now: SystemTime.monotonic)
        for warning in config.warnings { StandardError.write("badge-demo: \(warning)") }
        let strings = locale.badgeStrings
        for button in newToolbar.buttons {
            button.badge.strings = strings
            // A button that survives keeps what it shows.
            if let old = toolbar.button(id: button.id) {
                button.badge.reducesMotion = true
                if old.badge.isBlinking { button.badge.showDot(blink: true) } else { button.badge.value = old.badge.value }
                // …and how far it can be trusted: a source kept through the reload tells it anew.
                button.badge.confidence = old.badge.confidence
                button.badge.sourceDescription = old.badge.sourceDescription
            }
            button.badge.reducesMotion = host.reducesMotion
        }
        origins.follow(newToolbar.buttons.map(\.id)) { id in
            config.buttons.first { $0.id == id }.map { $0.content == .none || $0.source != nil ? .hand : .config } ?? .hand
        }
        model.replace(toolbar: newToolbar)
        // The sources follow the file: those it changed are stopped and started again as it says
        // now; an unchanged one keeps running with what it knows.
        let allowedRoot = self.config.allowsRoot
        self.config = AppConfig(config, fromFile: true)
        bindings?.keep(wantedSources())
        bindings?.toolbarReplaced(newToolbar)
        startSources(host)
        if allowedRoot != config.allowsRoot {
            socket.allowRoot(config.allowsRoot)
        }
        if sources.theme == .config || sources.theme == .default, let theme = config.theme {
            renderer.theme = theme
            sources.theme = .config
            board.apply(.theme(theme))
        }
        applyScaleConfig(config, host: host)
        board.apply(.reload(newToolbar, config))
        board.apply(.event(.config(ControlEvents.configReloaded(cause: cause, buttons: newToolbar.buttons.map(\.id), warnings: config.warnings,
                                                                state: state(of: host)))))
    }
}
