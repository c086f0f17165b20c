import BadgeCore
import BadgeDrawing

/// Builds the demo's toolbar (bell and mail buttons with their badges) from the command line.
public enum DemoToolbar {
    /// A button of the demo: id, icon, accessible name and initial count.
    struct ButtonSpec {
        let id: String
        let icon: String
        let label: String
        let count: Int
    }

    static let specs = [
        ButtonSpec(id: "bell", icon: "bell", label: "Notifications", count: 3),
        ButtonSpec(id: "mail", icon: "mail", label: "Mail", count: 12),
    ]

    /// The toolbar with the options' counts, laid out for `scale`, its badges measuring text with `text`.
    public static func make(options: DemoOptions, clock: any BadgeClock, text: TextLayouts, scale: Double) -> Toolbar {
        let buttons = specs.map { spec in
            let badge = BadgeController(accessibilityLabel: spec.label,
                                        content: .count(options.counts[spec.id] ?? spec.count),
                                        clock: clock, measurer: text)
            badge.reducesMotion = options.reduceMotion
            return ToolbarButton(id: spec.id, iconName: spec.icon, badge: badge)
        }
        let toolbar = Toolbar(buttons: buttons)
        toolbar.layout(size: toolbar.preferredSize, scale: scale,
                       direction: options.rightToLeft ? .rightToLeft : .leftToRight)
        return toolbar
    }
}
