// badge-png: the README's library example. Draws a mail icon with a "99+" badge at 2x into a PNG
// file, with BadgeCore and BadgeDrawing only.
import BadgeCore
import BadgeDrawing

let path = CommandLine.arguments.dropFirst().first ?? "badge.png"
do {
    let text = try TextLayouts()  // Pango text, cached; also measures for the core
    let icons = try IconLibrary()
    let badge = BadgeController(accessibilityLabel: "Mail", content: .count(3), clock: SystemClock(), measurer: text)
    let icon = Rect(x: 8, y: 10, width: 24, height: 24)
    badge.layout(host: icon, bounds: Rect(x: 0, y: 0, width: 48, height: 44), direction: .leftToRight, scale: 2)
    badge.reducesMotion = true  // draw the final state at once
    badge.value = .count(120)   // shows "99+"
    let image = try ImageSurface(width: 96, height: 88)
    try image.draw { context in
        context.paint(Color(red: 1, green: 1, blue: 1))
        context.scale(by: 2)  // logical units from here on
        icons.draw("mail", in: icon, color: Color(red: 0.1, green: 0.1, blue: 0.1), scale: 2, context: context)
        BadgeRenderer(text: text).draw(badge.presentation(), style: badge.style, surface: Color(red: 1, green: 1, blue: 1),
                                       in: context)
    }
    try image.writePNG(to: path)
    let frame = badge.presentation().frame.map { $0.pixels(scale: 2, rounding: .nearest) }
    print("\(path)\t\(badge.accessibilityDescription)\t\(frame.map(\.description) ?? "none")")
} catch {
    print("badge-png: \(error)")
}
