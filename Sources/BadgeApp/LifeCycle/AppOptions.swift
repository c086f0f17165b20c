import BadgeX11
import BadgeCore

/// The demo's command line, parsed without traps: bad input becomes a `AppOptions.Error`.
struct AppOptions: Equatable, Sendable {
    /// Initial counts by button id (`--count bell=5`).
    var counts: [String: Int] = [:]
    /// Render offscreen to this PNG and exit (`--screenshot FILE`).
    var screenshotPath: String?
    /// Read commands from stdin and write JSON events to stdout (`--control`).
    var control = false
    /// Apply changes at once, without animation (`--reduce-motion` or BADGE_REDUCE_MOTION=1).
    var reduceMotion = false
    /// Device scale (`--scale`); nil: from Xft.dpi, else 1.
    var scale: Double?
    /// Colour theme (`--theme light|dark`).
    var theme: Theme = .light
    /// The layout direction asked for: `--rtl` (true) or `--ltr` (false); nil: the locale's.
    var rightToLeft: Bool?
    /// Icon overrides by button id (`--icon bell=PATH`).
    var icons: [String: String] = [:]
    /// Build the toolbar from this JSON file (`--config FILE`).
    var configPath: String?
    /// Where the counts are kept across restarts (`--state FILE`); nil: the XDG state folder.
    var statePath: String?
    /// Keep no counts across restarts (`--no-state`).
    var noState = false
    /// Show no tray icon (`--no-tray`); on by default when a tray or a StatusNotifierItem watcher is there.
    var noTray = false
    /// The profile (`--profile NAME`): its own state file and control socket; nil: the default
    /// (or, with `--state`, the file's own). See ``InstanceProfile``.
    var profile: String?
    /// Run beside a running instance of the profile instead of handing over to it (`--new-instance`).
    var newInstance = false
    /// Render the badge gallery to this PNG and exit (`--gallery FILE`).
    var galleryPath: String?
    /// True when `--theme` was given (it then wins over the config file's theme).
    var themeFromFlag = false
    /// Print usage and exit 0.
    var showHelp = false
    /// Print the version and exit 0.
    var showVersion = false
    /// Report, turn off or turn on the XDG autostart entry and exit (`--autostart[=off|on]`).
    var autostart: Autostart.Action?
    /// Accept the hidden fault-injection control commands (`debug-bad-request`); BADGE_DEBUG=1 only,
    /// for tests: never a command-line flag, never in the usage.
    var debugCommands = false

    /// The ids of the buttons the demo shows.
    static let buttonIDs = DemoToolbar.defaultConfig.buttons.map(\.id)

    /// The flags that take a value (`--flag VALUE` or `--flag=VALUE`); every other flag takes none.
    private static let flagsWithValues: Set<String> = ["--count", "--icon", "--screenshot", "--scale", "--theme", "--config", "--gallery", "--state", "--profile"]

    /// A rejected command line.
    struct Error: Swift.Error, Equatable, Sendable {
        /// One line saying what was wrong.
        let sentence: Sentence
        /// The line in the user's language.
        var message: String { sentence.localized }

        init(_ sentence: Sentence) { self.sentence = sentence }
    }

    /// The version string printed by `--version`.
    static let version = "badge-demo \(BadgeKitVersion.string) (BadgeKit)"

    /// The usage text printed by `--help` and after a bad argument.
    static let usage = """
        usage: badge-demo [options]
          --count ID=N        initial count of a button, N >= 0 (ID: a button of the config file;
                              bundled: \(buttonIDs.joined(separator: ", ")))
          --screenshot FILE   render the window offscreen to a PNG file and exit (no X server needed)
          --control           read commands on stdin, write JSON events on stdout
          --reduce-motion     apply changes at once, no animation (also BADGE_REDUCE_MOTION=1)
          --scale S           device scale, 0.5...4 (default: Xft.dpi / 96, else 1)
          --theme NAME        light or dark (default light)
          --rtl, --ltr        right-to-left or left-to-right layout (default: the locale's direction)
          --icon ID=PATH      draw button ID with the SVG file at PATH
          --config FILE       build the toolbar from a JSON file (buttons, icons, labels, content,
                              styles, theme, scale)
          --state FILE        keep the counts across restarts in FILE
                              (default: $XDG_STATE_HOME/badge-demo/state.json)
          --no-state          keep no counts across restarts
          --no-tray           no icon with the total in the system tray
          --profile NAME      run (or reach) the instance NAME: its own state file and control socket
          --new-instance      open a window of its own even when the profile runs (own state file)
          --gallery FILE      render every badge kind and animation frame to a PNG file and exit
          --autostart[=off|on]  say whether the session starts badge-demo (XDG autostart) and
                              how to change it; off: a copy with Hidden=true in
                              $XDG_CONFIG_HOME/autostart; on: removes that copy
          --help              show this help and exit
          --version           show the version and exit

        \(MessageClient.usage)
        """

    /// Creates the defaults.
    init() {}

    /// Parses the arguments (without the program name) and the environment's BADGE_REDUCE_MOTION and BADGE_DEBUG.
    static func parse(_ arguments: [String], environment: [String: String] = [:]) -> Result<AppOptions, Error> {
        var options = AppOptions()
        if let flag = environment["BADGE_REDUCE_MOTION"], !flag.isEmpty, flag != "0" { options.reduceMotion = true }
        if environment["BADGE_DEBUG"] == "1" { options.debugCommands = true }
        var index = 0
        func value(for flag: String) -> Result<String, Error> {
            index += 1
            guard index < arguments.count else { return .failure(Error(Sentence("%s needs a value", .text(flag)))) }
            return .success(arguments[index])
        }
        while index < arguments.count {
            var argument = arguments[index]
            var inlineValue: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                inlineValue = String(argument[argument.index(after: equals)...])
                argument = String(argument[..<equals])
            }
            func next() -> Result<String, Error> { inlineValue.map { .success($0) } ?? value(for: argument) }
            switch argument {
            case "--autostart":
                switch inlineValue {
                case nil: options.autostart = .report
                case "off": options.autostart = .off
                case "on": options.autostart = .on
                case let other?:
                    return .failure(Error(Sentence("--autostart takes off or on (as --autostart=off), not \"%s\"", .text(InputEcho.escaped(other, quote: true)))))
                }
                index += 1
                continue
            case "--help", "-h": options.showHelp = true
            case "--version": options.showVersion = true
            case "--control": options.control = true
            case "--reduce-motion": options.reduceMotion = true
            case "--rtl": options.rightToLeft = true
            case "--ltr": options.rightToLeft = false
            case "--no-state": options.noState = true
            case "--no-tray": options.noTray = true
            case "--new-instance": options.newInstance = true
            case "--profile":
                switch next() {
                case .success(let name):
                    if let problem = InstanceProfile.problem(with: name) { return .failure(Error(problem)) }
                    options.profile = name == "default" ? nil : name
                case .failure(let error): return .failure(error)
                }
            case "--count":
                switch next().flatMap(parseCount) {
                case .success(let (id, count)): options.counts[id] = count
                case .failure(let error): return .failure(error)
                }
            case "--icon":
                switch next().flatMap({ parseAssignment($0, flag: "--icon", what: "PATH") }) {
                case .success(let (id, path)): options.icons[id] = path
                case .failure(let error): return .failure(error)
                }
            case "--config", "--gallery", "--screenshot", "--state":
                switch next() {
                case .success(let path) where !path.isEmpty:
                    switch argument {
                    case "--config": options.configPath = path
                    case "--state": options.statePath = path
                    case "--gallery": options.galleryPath = path
                    default: options.screenshotPath = path
                    }
                case .success: return .failure(Error(Sentence("%s needs a file name", .text(argument))))
                case .failure(let error): return .failure(error)
                }
            case "--scale":
                switch next() {
                case .success(let text):
                    guard let scale = Double(text), scale.isFinite, scale >= 0.5, scale <= 4 else {
                        return .failure(Error(Sentence("--scale must be a number from 0.5 to 4, not \"%s\"", .text(InputEcho.escaped(text, quote: true)))))
                    }
                    options.scale = scale
                case .failure(let error): return .failure(error)
                }
            case "--theme":
                switch next() {
                case .success(let name):
                    guard let theme = Theme.named(name) else {
                        return .failure(Error(Sentence("--theme must be light or dark, not \"%s\"", .text(InputEcho.escaped(name, quote: true)))))
                    }
                    options.theme = theme
                    options.themeFromFlag = true
                case .failure(let error): return .failure(error)
                }
            default:
                return .failure(Error(Sentence("unknown argument \"%s\"", .text(InputEcho.escaped(arguments[index], limit: 80, quote: true)))))
            }
            if inlineValue != nil, !flagsWithValues.contains(argument) {
                return .failure(Error(Sentence("%s takes no value", .text(argument))))
            }
            index += 1
        }
        if options.profile != nil, options.statePath != nil {
            return .failure(Error(Sentence("--profile NAME keeps its counts in state-NAME.json: give --profile or --state, not both")))
        }
        // The ids are checked against the buttons that will run: the config file's (--config, or
        // the user's XDG one), by DemoToolbar.make in a first launch, and by the running instance
        // on a hand-over. The bundled ids are only the default's.
        return .success(options)
    }

    private static func parseAssignment(_ text: String, flag: String, what: String) -> Result<(String, String), Error> {
        guard let equals = text.firstIndex(of: "=") else {
            return .failure(Error(Sentence("%1$s expects ID=%2$s, e.g. %1$s bell=%3$s; got \"%4$s\"", .text(flag), .text(what), .text(what == "N" ? "5" : "bell.svg"), .text(InputEcho.escaped(text, quote: true)))))
        }
        let id = String(text[..<equals]), rest = String(text[text.index(after: equals)...])
        guard !id.isEmpty else { return .failure(Error(Sentence("%s needs a button id before \"=\"", .text(flag)))) }
        guard !rest.isEmpty else { return .failure(Error(Sentence("%1$s %2$s= needs a value", .text(flag), .text(InputEcho.escaped(id, quote: true))))) }
        return .success((id, rest))
    }

    private static func parseCount(_ text: String) -> Result<(String, Int), Error> {
        parseAssignment(text, flag: "--count", what: "N").flatMap { id, number in
            guard let count = Int(number), count >= 0 else {
                return .failure(Error(Sentence("--count %1$s: \"%2$s\" is not a whole number from 0 to %3$s", .text(InputEcho.escaped(id, quote: true)), .text(InputEcho.escaped(number, quote: true)), .text(String(Int.max)))))
            }
            return .success((id, count))
        }
    }
}
