import BadgeCore
import BadgeDrawing

/// Builds the demo's toolbar: from `--config FILE` when given, else the default one with bell and
/// mail count badges, a chat button with a text badge and an updates button with a dot, so every
/// kind of badge is on screen.
enum DemoToolbar {
    /// The default toolbar, as a configuration.
    static var defaultConfig: ToolbarConfig {
        var chatFormat = BadgeFormat()
        chatFormat.maximumTextLength = 8
        func button(_ id: String, _ label: String, _ content: BadgeContent, format: BadgeFormat = BadgeFormat()) -> ToolbarConfig.Button {
            ToolbarConfig.Button(id: id, iconName: id, iconPath: nil, label: label, content: content, blinks: false,
                                 style: BadgeStyle(), format: format)
        }
        return ToolbarConfig(buttons: [
            button("bell", "Notifications", .count(3)),
            button("mail", "Mail", .count(12)),
            button("chat", "Chat", .text("New"), format: chatFormat),
            button("updates", "Updates", .dot),
        ], theme: nil, scale: nil)
    }

    /// The toolbar for `config` with the options' counts and icon overrides, not yet laid out,
    /// its badges measuring text with `text`. Icons named by path are loaded into `icons` (under the
    /// button's id). Throws a one-line message naming the file and field for an unusable icon or id;
    /// an icon that `config` names (not `--icon`) is marked ``DemoSetupError/inConfigFile``.
    static func make(config: ToolbarConfig, configFile: String?, options: AppOptions, clock: any BadgeClock,
                            text: TextLayouts, icons: IconLibrary) throws(DemoSetupError) -> Toolbar {
        let filePrefix = configFile.map { "\($0): " } ?? ""
        let bundled = Set(icons.names.filter { !$0.hasPrefix("file:") })
        for id in options.counts.keys.sorted() + options.icons.keys.sorted() where !config.buttons.contains(where: { $0.id == id }) {
            throw DemoSetupError(Sentence("unknown button \"%1$s\"; buttons are %2$s", .text(InputEcho.escaped(id, quote: true)),
                                          .text(config.buttons.map(\.id).joined(separator: ", "))).localized)
        }
        var buttons: [ToolbarButton] = []
        for (index, original) in config.buttons.enumerated() {
            let (spec, warning) = LauncherButton.resolved(original)
            if let warning { StandardError.say(Sentence("%1$s: %2$s", .text("\(filePrefix)buttons[\(index)].source.launcher"), .sentence(warning))) }
            var iconName = spec.iconName ?? spec.id
            // An SVG file given for the button is loaded under a name no bundled icon has.
            let fileIconName = "file:" + spec.id
            if let path = options.icons[spec.id] {
                try loadIcon(path, as: fileIconName, into: icons, context: "--icon \(spec.id)")
                iconName = fileIconName
            } else if let path = spec.iconPath {
                do {
                    try loadIcon(path, as: fileIconName, into: icons, context: "\(filePrefix)buttons[\(index)].icon")
                    iconName = fileIconName
                } catch where LauncherButton.iconIsApplications(spec) {
                    // The application's own icon cannot be drawn: its button keeps the chat icon.
                } catch {
                    throw error.blamingConfigFile()
                }
            } else if !bundled.contains(iconName) {
                throw DemoSetupError(Sentence("%1$s: no bundled icon \"%2$s\"; bundled icons are %3$s, or give the path of an SVG file",
                                              .text("\(filePrefix)buttons[\(index)].icon"), .text(InputEcho.escaped(iconName, quote: true)),
                                              .text(bundled.sorted().joined(separator: ", "))).localized,
                                     inConfigFile: true)
            }
            let badge = BadgeController(accessibilityLabel: spec.label,
                                        content: options.counts[spec.id].map { .count($0) } ?? spec.content,
                                        format: spec.format, style: spec.style, clock: clock, measurer: text)
            badge.reducesMotion = options.reduceMotion
            if spec.blinks, options.counts[spec.id] == nil { badge.showDot(blink: true) }
            buttons.append(ToolbarButton(id: spec.id, iconName: iconName, badge: badge))
        }
        // Not laid out yet: that measures text, which the window does not wait for (the host lays
        // it out once the window is mapped; a screenshot lays it out itself).
        return Toolbar(buttons: buttons, direction: options.rightToLeft == true ? .rightToLeft : .leftToRight)
    }

    private static func loadIcon(_ path: String, as name: String, into icons: IconLibrary, context: String) throws(DemoSetupError) {
        do {
            try icons.loadIcon(named: name, fromFile: path)
        } catch {
            throw DemoSetupError(Sentence("%1$s: %2$s", .text(context), .text("\(error)")).localized)
        }
    }
}

/// A toolbar the demo cannot build from its arguments or config file (exit status 2): one line
/// naming the flag or the file and field.
struct DemoSetupError: Error, CustomStringConvertible {
    /// The line.
    let message: String
    /// True when the config file is at fault (an icon it names), not a flag: an XDG config file
    /// then gives a warning and the bundled toolbar instead of an exit.
    var inConfigFile = false

    /// Creates an error with its line.
    init(_ message: String, inConfigFile: Bool = false) {
        self.message = message
        self.inConfigFile = inConfigFile
    }

    /// The same error, marked as the config file's.
    func blamingConfigFile() -> DemoSetupError { DemoSetupError(message, inConfigFile: true) }

    /// The line.
    var description: String { message }
}
