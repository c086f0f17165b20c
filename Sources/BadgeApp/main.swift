// badge-demo: a toolbar whose buttons carry count, text and dot badges. Wiring only.
import BadgeCore
import BadgeDrawing
import BadgeX11
import Glibc

let environment: [String: String] = Dictionary(uniqueKeysWithValues: ["BADGE_REDUCE_MOTION", "BADGE_DEBUG"].map { name in
    (name, Environment.value(name) ?? "")
})

/// Exits with `status`, writing `message` (prefixed by the program's name) to standard error first.
func exit(_ status: ExitStatus, message: String? = nil) -> Never {
    if let message { StandardError.write("badge-demo: \(message)") }
    exit(status.rawValue)
}

/// Runs an offscreen render (`--gallery`, `--screenshot`) and exits: 0 when written, 1 with a message otherwise.
func renderAndExit(_ render: () throws -> Void) -> Never {
    do {
        try render()
    } catch {
        exit(.cannotOpenDisplay, message: "\(error)")
    }
    exit(.closed)
}

// `badge-demo msg …`: a client of the running instance; no display, no window.
if CommandLine.arguments.count > 1, CommandLine.arguments[1] == "msg" {
    // Its messages in the user's language, from the same catalogues as the app's (no warning for a
    // locale that is not installed: a bar or a script reads msg's standard error).
    let locale = DesktopLocale.adopt()
    if let directory = locale.localeDirectory { DesktopLocale.bind(BadgeApplication.domain, to: directory) }
    exit(MessageClient.run(arguments: Array(CommandLine.arguments.dropFirst(2))).rawValue)
}

switch AppOptions.parse(Array(CommandLine.arguments.dropFirst()), environment: environment) {
case .failure(let error):
    StandardError.write("badge-demo: \(error.message)")
    StandardError.write(AppOptions.usage, to: 2)
    exit(.badArguments)
case .success(var options):
    if options.showHelp {
        print(AppOptions.usage)
        exit(.closed)
    }
    if options.showVersion {
        print(AppOptions.version)
        exit(.closed)
    }
    if let action = options.autostart {
        // Its words in the user's language: the catalogues are bound before it speaks.
        let locale = DesktopLocale.adopt()
        if let directory = locale.localeDirectory { DesktopLocale.bind(BadgeApplication.domain, to: directory) }
        exit(Autostart.run(action, environment: Environment.value).rawValue)
    }
    if let path = options.galleryPath {
        renderAndExit { try BadgeGallery.render(to: path) }
    }
    // One instance per profile: a launch while the profile runs hands its counts over and exits
    // (before any library is set up: it takes milliseconds).
    // (An offscreen render opens no window: it claims nothing.)
    var claim = options.screenshotPath == nil ? SingleInstance.claim(options: options, environment: Environment.value) : .alone(reason: nil)
    while case .handOver(_, let path, let lockPath) = claim {
        let startupID = Environment.value("DESKTOP_STARTUP_ID")
        if let status = SingleInstance.handOver(options: options, path: path, lockPath: lockPath, startupID: startupID) {
            exit(status)
        }
        claim = SingleInstance.claim(options: options, environment: Environment.value)  // it ended meanwhile
    }
    switch claim {
    case .refused(let message):
        exit(.badArguments, message: message)
    case .primary(let profile, _, _, _) where options.statePath == nil && profile.name != (options.profile ?? "default"):
        options.profile = profile.name  // a slot of the profile: a state file of its own
    default:
        break
    }
    // The user's locale, first (before any thread): descriptions, labels, digits and direction.
    let locale = DesktopLocale.adopt()
    if let missing = locale.unavailable {
        StandardError.say(Sentence("the locale %1$s%2$s is not installed; carrying on in English (C)", .text(InputEcho.escaped(missing, limit: 60)), .text("")))
        // Fontconfig reads the same variables and echoes a value it cannot use whole: give it
        // the language the app carries on in (before the text thread starts).
        if Environment.value("FC_LANG") == nil { setenv("FC_LANG", "en", 1) }
    }
    if let directory = locale.localeDirectory { DesktopLocale.bind(BadgeApplication.domain, to: directory) }
    // A catalogue that is not where it was looked for: said once, in English (there is nothing
    // to say it in the user's language with), with the place, so a packager or a user can fix it.
    if let missing = locale.missingCatalogue(domain: BadgeApplication.domain) {
        StandardError.write("badge-demo: no catalogue for \(locale.language ?? "") at \(missing) (`make locale` builds them; "
            + "BADGEKIT_LOCALEDIR names another folder); carrying on in English")
    }
    // SIGTERM, SIGINT and SIGHUP have been blocked since before the first library initializer
    // (CEarlySignals); from here on they are loop events: one that arrived at any moment since exec
    // is pending, and ends the app cleanly on the loop's first turn.
    let signals: SignalWatcher?
    do {
        signals = try SignalWatcher(signals: [SIGTERM, SIGINT, SIGHUP])
    } catch {
        StandardError.say(Sentence("%s; SIGTERM and SIGINT end the app at once, SIGHUP too", .text("\(error)")))
        // Blocked without a signalfd, they would never end the app: their default action again.
        var set = sigset_t()
        sigemptyset(&set)
        for signal in [SIGTERM, SIGINT, SIGHUP] { sigaddset(&set, signal) }
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
        signals = nil
    }
    let app: BadgeApplication
    do {
        app = try BadgeApplication(options: options, locale: locale, signals: signals)
    } catch let error as DemoSetupError {
        exit(.badArguments, message: "\(error)")  // a bad icon file or button id, named in the message
    } catch let error as ToolbarConfig.Error {
        exit(.badArguments, message: "\(error)")
    } catch {
        exit(.setupFailed, message: "\(error)")  // text or icon set-up failed (fonts, Pango, cairo)
    }
    if let path = options.screenshotPath {
        renderAndExit { try app.renderScreenshot(to: path) }
    }
    app.adopt(claim)
    exit(app.run())
}
