import BadgeCore
import BadgeDrawing
import Glibc
import BadgeControl

/// The toolbar described by a JSON file (`badge-demo --config FILE`):
///
///     {"theme": "dark", "scale": 1.5,
///      "buttons": [{"id": "bell", "icon": "bell", "label": "Notifications",
///                   "content": {"kind": "count", "count": 3},
///                   "style": {"background": "#1E88E5", "textColor": "#FFFFFF", "fontSize": 12,
///                             "maximumCount": 999, "maximumTextLength": 8}}]}
///
/// `icon` is a bundled icon name or the path of an SVG file; `content` uses the control protocol's
/// shapes (kind none, count, text, dot with "blink"). Every field but `id` is optional.
/// `"control": {"allowRoot": true}` lets root change and read counts through the control socket.
struct ToolbarConfig: Sendable {
    /// One button of the configured toolbar.
    struct Button: Sendable, Equatable {
        /// The button's id (used by `--count`, the control protocol and `state`).
        var id: String
        /// A bundled icon name, or nil when `iconPath` is set.
        var iconName: String?
        /// An SVG file to draw instead of a bundled icon.
        var iconPath: String?
        /// The accessible name (tooltip and `description`).
        var label: String
        /// The initial badge content.
        var content: BadgeContent
        /// True when an initial dot blinks.
        var blinks: Bool
        /// Badge drawing style.
        var style: BadgeStyle
        /// Badge text format (maximum count, text length).
        var format: BadgeFormat
        /// Where the count comes from, when something real feeds it.
        var source: SourceConfig? = nil
        /// How the badge shows while Do Not Disturb is on (default: a dot).
        var doNotDisturb: DoNotDisturbDisplay = .dot
        /// What a click does instead of counting; nil: the demo's +1 (a launcher button: its application).
        var click: ClickAction? = nil
        /// Whether the file gave the label and the icon (a launcher button takes its application's otherwise).
        var labelGiven = false
        var iconGiven = false
    }

    /// The buttons in reading order.
    var buttons: [Button]
    /// The colour theme, when the file sets one.
    var theme: Theme?
    /// The device scale, when the file sets one.
    var scale: Double?
    /// The scales per monitor and `scaleFromMonitorSize` (bad entries are warnings, not errors).
    var monitorScales = MonitorScaleConfig()
    /// Whether the file listed its buttons; a file that sets only `theme` or `monitors` keeps the
    /// bundled toolbar.
    var listsButtons = true
    /// One line per key nobody reads and per entry left out (`monitors`), naming the file and the
    /// field; the caller logs them.
    var warnings: [String] = []
    /// Whether root may use the control socket (`"control": {"allowRoot": true}`; default false):
    /// package-manager hooks that run as root, changing and reading counts only.
    var allowsRoot = false

    /// A rejected configuration: the file, the field and the reason in one line.
    struct Error: Swift.Error, CustomStringConvertible, Sendable {
        /// "FILE: FIELD: REASON".
        let sentence: Sentence
        /// The message in the user's language.
        var message: String { sentence.localized }
        /// The file is empty or its JSON ends before its value does (``JSONParseError/ranOut``):
        /// perhaps half saved, still being written (``ConfigSettle``).
        var isCut = false
        /// The message in the user's language.
        var description: String { message }

        init(_ sentence: Sentence, isCut: Bool = false) {
            self.sentence = sentence
            self.isCut = isCut
        }
    }

    /// Reads (through ``BoundedFile``, at most 1 MiB, a regular file only) and checks the file at `path`.
    static func load(path: String) throws(Error) -> ToolbarConfig {
        let bytes: [UInt8]
        do {
            bytes = try BoundedFile.read(path, kind: .config)
        } catch {
            throw Error(Sentence("%1$s: %2$s", .text(path), .sentence(error.sentence)))
        }
        return try parse(bytes, file: path)
    }

    /// Decodes and checks JSON text; `file` names it in errors.
    static func parse(_ bytes: [UInt8], file: String) throws(Error) -> ToolbarConfig {
        let root: JSONValue
        do {
            root = try JSONValue.parse(bytes)
        } catch {
            throw Error(Sentence("%1$s: not valid JSON (%2$s)", .text(file), .sentence(error.sentence)), isCut: error.ranOut)
        }
        let unknown = keys.unknownKeys(in: root)
        // A field refused because a key was misspelled (`"pasword"` leaves `password` missing;
        // `{"comand": …}` leaves it empty) says so in the error itself: the warnings about unknown
        // keys are never shown for a file that is refused.
        func fail(_ field: String, _ reason: Sentence) -> Error {
            let typos = unknown.filter { key in
                guard let suggestion = key.suggestion else { return false }
                let meant = key.parent.isEmpty ? suggestion : "\(key.parent).\(suggestion)"
                return meant == field || field.hasPrefix(meant + ".") || key.parent == field
            }
            var sentence = Sentence("%1$s: %2$s: %3$s", .text(file), .text(field), .sentence(reason))
            for typo in typos.prefix(3) {
                sentence = Sentence("%1$s; %2$s: unknown key, did you mean \"%3$s\"?", .sentence(sentence), .text(typo.path), .text(typo.suggestion ?? ""))
            }
            return Error(sentence)
        }
        let fields = ConfigFields(fail: fail)
        guard case .object = root else { throw fail("top level", Sentence("expected an object")) }
        var config = ToolbarConfig(buttons: [], theme: nil, scale: nil)
        config.warnings = unknown.map { Sentence("%1$s: %2$s", .text(file), .sentence($0.sentence)).localized }
        if let name = try fields.string(root["theme"], "theme") {
            guard let theme = Theme.named(name) else { throw fail("theme", Sentence("must be \"light\" or \"dark\", not \"%s\"", .text(InputEcho.escaped(name, quote: true)))) }
            config.theme = theme
        }
        if let scale = try fields.number(root["scale"], "scale") {
            guard scale.isFinite, scale >= 0.5, scale <= 4 else { throw fail("scale", Sentence("must be a number from 0.5 to 4, not %s", .text("\(scale)"))) }
            config.scale = scale
        }
        config.monitorScales = MonitorScaleConfig.parse(root, file: file)
        config.warnings += config.monitorScales.warnings
        if let control = root["control"], control != .null {
            guard case .object = control else { throw fail("control", Sentence("expected an object")) }
            config.allowsRoot = try fields.bool(control["allowRoot"], "control.allowRoot") ?? false
        }
        guard let buttons = try fields.array(root["buttons"], "buttons") else {
            // Only settings: the bundled buttons, with their sources.
            config.buttons = DemoToolbar.defaultConfig.buttons
            config.listsButtons = false
            return config
        }
        guard !buttons.isEmpty, buttons.count <= 32 else { throw fail("buttons", Sentence("must list 1 to 32 buttons, not %s", .number(buttons.count))) }
        var seen = Set<String>()
        for (index, b) in buttons.enumerated() {
            let at = "buttons[\(index)]"
            guard case .object = b else { throw fail(at, Sentence("expected an object")) }
            guard let id = try fields.string(b["id"], "\(at).id") else { throw fail("\(at).id", Sentence("missing")) }
            guard !id.isEmpty, id.utf8.count <= 64, id != "all",
                  id.unicodeScalars.allSatisfy({ $0.value > 0x20 && !InputEcho.needsEscape($0) }) else {
                throw fail("\(at).id", Sentence("\"%s\" must be 1 to 64 characters without spaces, and not \"all\"", .text(InputEcho.escaped(id, quote: true))))
            }
            guard seen.insert(id).inserted else { throw fail("\(at).id", Sentence("\"%s\" is used by an earlier button", .text(id))) }
            var button = Button(id: id, iconName: nil, iconPath: nil, label: try fields.string(b["label"], "\(at).label") ?? id,
                                content: .none, blinks: false, style: BadgeStyle(), format: BadgeFormat())
            button.labelGiven = b["label"] != nil && b["label"] != .null
            button.iconGiven = b["icon"] != nil && b["icon"] != .null
            let icon = try fields.string(b["icon"], "\(at).icon") ?? id
            guard !icon.isEmpty else { throw fail("\(at).icon", Sentence("must not be empty")) }
            if icon.contains("/") || icon.hasSuffix(".svg") { button.iconPath = icon } else { button.iconName = icon }
            if let content = b["content"], content != .null {
                guard case .object = content else { throw fail("\(at).content", Sentence("expected an object")) }
                guard let kind = try fields.string(content["kind"], "\(at).content.kind") else { throw fail("\(at).content.kind", Sentence("missing")) }
                switch kind {
                case "none": button.content = .none
                case "count":
                    guard let count = try fields.integer(content["count"], "\(at).content.count") else {
                        throw fail("\(at).content.count", Sentence("missing for kind \"count\""))
                    }
                    guard count >= 0 else { throw fail("\(at).content.count", Sentence("must be 0 or more, not %s", .number(count))) }
                    button.content = .count(count)
                case "text":
                    guard let text = try fields.string(content["text"], "\(at).content.text") else {
                        throw fail("\(at).content.text", Sentence("missing for kind \"text\""))
                    }
                    button.content = .text(text)
                case "dot":
                    button.content = .dot
                    button.blinks = try fields.bool(content["blink"], "\(at).content.blink") ?? false
                default:
                    throw fail("\(at).content.kind", Sentence("must be none, count, text or dot, not \"%s\"", .text(InputEcho.escaped(kind, quote: true))))
                }
            }
            if let style = b["style"], style != .null {
                guard case .object = style else { throw fail("\(at).style", Sentence("expected an object")) }
                func colour(_ name: String) throws(Error) -> Color? {
                    guard let value = try fields.string(style[name], "\(at).style.\(name)") else { return nil }
                    guard let colour = Color(hex: value), value.count == 7 else {
                        throw fail("\(at).style.\(name)", Sentence("\"%s\" is not a colour \"#RRGGBB\"", .text(InputEcho.escaped(value, quote: true))))
                    }
                    return colour
                }
                if let c = try colour("background") { button.style.backgroundColor = c }
                if let c = try colour("textColor") { button.style.textColor = c }
                if let size = try fields.number(style["fontSize"], "\(at).style.fontSize") {
                    guard size.isFinite, size >= 4, size <= 72 else { throw fail("\(at).style.fontSize", Sentence("must be from 4 to 72, not %s", .text("\(size)"))) }
                    button.style.font.size = size
                }
                if let maximum = try fields.integer(style["maximumCount"], "\(at).style.maximumCount") {
                    guard maximum >= 1 else { throw fail("\(at).style.maximumCount", Sentence("must be 1 or more, not %s", .number(maximum))) }
                    button.format.maximumCount = maximum
                }
                if let length = try fields.integer(style["maximumTextLength"], "\(at).style.maximumTextLength") {
                    guard length >= 1, length <= 1000 else {
                        throw fail("\(at).style.maximumTextLength", Sentence("must be from 1 to 1000, not %s", .number(length)))
                    }
                    button.format.maximumTextLength = length
                }
            }
            if let source = b["source"], source != .null {
                button.source = try SourceConfig.parse(source, at: "\(at).source", fields: fields, fail: fail)
                if button.content != .none {
                    // A number no source gave would be drawn as the source's.
                    config.warnings.append(Sentence("%s.content: not shown: the button's source gives its value", .text("\(file): \(at)")).localized)
                    button.content = .none
                }
            }
            if let click = b["click"], click != .null {
                button.click = try ClickAction.parse(click, at: "\(at).click", fail: fail)
            } else if case .launcher(let desktopID)? = button.source {
                button.click = .launch(desktopID: desktopID)
            }
            if let quiet = try fields.string(b["doNotDisturb"], "\(at).doNotDisturb") {
                guard let display = DoNotDisturbDisplay(rawValue: quiet) else {
                    throw fail("\(at).doNotDisturb", Sentence("must be hidden, dot or count, not \"%s\"", .text(InputEcho.escaped(quiet, quote: true))))
                }
                button.doNotDisturb = display
            }
            config.buttons.append(button)
        }
        return config
    }
}

/// Typed reads of optional JSON fields; a value of the wrong type names the field and what was expected.
struct ConfigFields {
    let fail: (String, Sentence) -> ToolbarConfig.Error

    func string(_ value: JSONValue?, _ field: String) throws(ToolbarConfig.Error) -> String? {
        switch value {
        case nil, .null?: return nil
        case .string(let text)?: return text
        default: throw fail(field, Sentence("expected a string"))
        }
    }

    func number(_ value: JSONValue?, _ field: String) throws(ToolbarConfig.Error) -> Double? {
        switch value {
        case nil, .null?: return nil
        case .int(let number)?: return Double(number)
        case .double(let number)?: return number
        default: throw fail(field, Sentence("expected a number"))
        }
    }

    func integer(_ value: JSONValue?, _ field: String) throws(ToolbarConfig.Error) -> Int? {
        switch value {
        case nil, .null?: return nil
        case .int(let number)?: return number
        case .double(let number)?: throw fail(field, Sentence("expected a whole number, not %s", .text("\(number)")))
        default: throw fail(field, Sentence("expected a number"))
        }
    }

    func bool(_ value: JSONValue?, _ field: String) throws(ToolbarConfig.Error) -> Bool? {
        switch value {
        case nil, .null?: return nil
        case .bool(let flag)?: return flag
        default: throw fail(field, Sentence("expected true or false"))
        }
    }

    func array(_ value: JSONValue?, _ field: String) throws(ToolbarConfig.Error) -> [JSONValue]? {
        switch value {
        case nil, .null?: return nil
        case .array(let items)?: return items
        default: throw fail(field, Sentence("expected an array"))
        }
    }
}
