import BadgeCore
import BadgeSources
import BadgeX11
import Glibc

/// Binding buttons to real sources (issue 21): the config file's `"source"` of each button, or,
/// with no config file, the defaults: the bell follows the notification daemon when one is on the
/// session bus, and mail follows `$MAILDIR` or `~/Maildir` when it exists.
extension BadgeApplication {
    /// Starts the sources (after the first frame: no source ever delays it).
    /// Called again after the config file changed: the one group of sources (on the loop for the
    /// app's life) binds what the file says now.
    func startSources(_ host: ToolbarHost) {
        let wanted = wantedSources()
        guard !wanted.isEmpty || bindings != nil else { return }
        let made: SourceBindings
        if let bindings {
            made = bindings
        } else {
            do {
                made = try SourceBindings(model: model)
            } catch {
                StandardError.say(Sentence("%s; the buttons keep their own counts", .text("\(error)")))
                return
            }
            made.warn = { StandardError.write("badge-demo: \($0)") }
            made.onMarkRead = { [weak self] id, keys, outcome in self?.board.apply(.event(.read(buttonID: id, keys: keys, outcome: outcome))) }
            // The unbound buttons' Do Not Disturb choices: the config's, read where they are kept.
            made.quietChoice = { [weak self] id in self?.config.quietChoices[id] ?? .dot }
            made.attach(to: loop)
            bindings = made
            board.observe(made, at: .state)
        }
        // A binding kept through a reload (``SourceBindings/keep(_:)``) is not made again.
        for binding in wanted where made.binding(of: binding.id) == nil {
            made.bind(binding.id, to: binding.source, optional: binding.optional, quiet: binding.quiet, sessionBus: host.sessionBus,
                      resumingFrom: saved?.restored[binding.id]?.sender)
        }
    }

    /// The buttons to bind, as the config says now (the defaults without a config file).
    func wantedSources() -> [(id: String, source: SourceConfig, optional: Bool, quiet: DoNotDisturbDisplay)] {
        let wanted = config.usesDefaultSources ? defaultSources() : config.sourceConfigs.map { (id: $0.id, source: $0.source, optional: false) }
        return wanted.map { ($0.id, $0.source, $0.optional, config.quietChoices[$0.id] ?? .dot) }
    }

    /// Without a config file: the bell and mail, when their sources exist.
    func defaultSources() -> [(id: String, source: SourceConfig, optional: Bool)] {
        var found: [(id: String, source: SourceConfig, optional: Bool)] = []
        if toolbar.button(id: "bell") != nil, Environment.value("DBUS_SESSION_BUS_ADDRESS") != nil {
            found.append(("bell", .notifications(applications: []), true))
        }
        if toolbar.button(id: "mail") != nil, let maildir = Self.defaultMaildir() {
            found.append(("mail", .maildir(paths: [maildir], folders: [], newOnly: false), false))
        }
        return found
    }

    /// `$MAILDIR` when it is set (the user said where their mail is), else `~/Maildir`, when it is a folder.
    static func defaultMaildir() -> String? {
        var candidates: [String] = []
        if let maildir = Environment.value("MAILDIR") {
            candidates = maildir.hasPrefix("/") ? [maildir] : []
        } else if let home = Environment.value("HOME"), home.hasPrefix("/") {
            candidates = [home + "/Maildir"]
        }
        for path in candidates {
            var info = stat()
            if stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR { return path }
        }
        return nil
    }
}
