import BadgeCore
import BadgeControl
import BadgeX11

/// The config file's per-monitor scales: `"monitors": {"HDMI-1": 1.5, "eDP-1": 2}` (by RandR
/// monitor or output name, 0.5…4) and `"scaleFromMonitorSize": true`. Unlike the rest of the
/// file, a bad entry does not reject it: it gets one warning and is left out (a monitor name is
/// checked against the monitors once the window is up, BadgeApplication+Monitors.swift).
struct MonitorScaleConfig: Sendable, Equatable {
    /// The scales by monitor or output name.
    var perMonitor: [String: Double] = [:]
    /// Whether a monitor's physical size may give its scale.
    var fromMonitorSize = false
    /// One line per entry left out, naming the file and field.
    var warnings: [String] = []

    /// The longest monitor or output name taken (RandR names are short: "DisplayPort-10").
    static let maximumNameLength = 64

    /// Reads `monitors` and `scaleFromMonitorSize` of the top-level object `root`; `file` names it in warnings.
    static func parse(_ root: JSONValue, file: String) -> MonitorScaleConfig {
        var config = MonitorScaleConfig()
        func warn(_ field: String, _ reason: Sentence) {
            config.warnings.append(Sentence("%1$s: %2$s: %3$s; ignored", .text(file), .text(field), .sentence(reason)).localized)
        }
        switch root["scaleFromMonitorSize"] {
        case nil, .null?: break
        case .bool(let flag)?: config.fromMonitorSize = flag
        default: warn("scaleFromMonitorSize", Sentence("expected true or false"))
        }
        switch root["monitors"] {
        case nil, .null?:
            break
        case .object(let entries)?:
            for (name, value) in entries {
                let field = "monitors.\(InputEcho.escaped(name))"
                guard !name.isEmpty, name.utf8.count <= maximumNameLength else {
                    warn(field, Sentence("a monitor name must be 1 to %s characters", .number(maximumNameLength)))
                    continue
                }
                let number: Double
                switch value {
                case .int(let whole): number = Double(whole)
                case .double(let fraction): number = fraction
                default:
                    warn(field, Sentence("expected a number from 0.5 to 4"))
                    continue
                }
                guard let scale = MonitorScalePolicy.usable(number) else {
                    warn(field, Sentence("must be a number from 0.5 to 4, not %s", .text("\(number)")))
                    continue
                }
                config.perMonitor[name] = scale
            }
        default:
            warn("monitors", Sentence("expected an object of monitor names and scales"))
        }
        return config
    }
}
