import BadgeCore
import BadgeDrawing

/// Builds the demo's toolbar from the command line: bell and mail count badges, a chat button with a
/// text badge and an updates button with a dot, so every kind of badge is on screen.
public enum DemoToolbar {
    /// A button of the demo: id, icon, accessible name and initial count.
    struct ButtonSpec {
        let id: String
        let icon: String
        let label: String
        let content: BadgeContent
    }

    static let specs = [
        ButtonSpec(id: "bell", icon: "bell", label: "Notifications", content: .count(3)),
        ButtonSpec(id: "mail", icon: "mail", label: "Mail", content: .count(12)),
        ButtonSpec(id: "chat", icon: "chat", label: "Chat", content: .text("New")),
        ButtonSpec(id: "updates", icon: "updates", label: "Updates", content: .dot),
    ]

    /// The toolbar with the options' counts, laid out for `scale`, its badges measuring text with `text`.
    public static func make(options: DemoOptions, clock: any BadgeClock, text: TextLayouts, scale: Double) -> Toolbar {
        let buttons = specs.map { spec in
            let badge = BadgeController(accessibilityLabel: spec.label,
                                        content: options.counts[spec.id].map { .count($0) } ?? spec.content,
                                        clock: clock, measurer: text)
            badge.reducesMotion = options.reduceMotion
            return ToolbarButton(id: spec.id, iconName: options.icons[spec.id] == nil ? spec.icon : spec.id, badge: badge)
        }
        let toolbar = Toolbar(buttons: buttons)
        toolbar.layout(size: toolbar.preferredSize, scale: scale,
                       direction: options.rightToLeft ? .rightToLeft : .leftToRight)
        return toolbar
    }
}
