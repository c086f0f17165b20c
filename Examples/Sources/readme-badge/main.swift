// Generated from README.md by Scripts/readme-examples.py (make examples): the README's code,
// compiled as written, inside a function and as top-level code. Not run by the tests.

import BadgeCore
import BadgeDrawing

/// The same code inside a function.
func readmeCodeInAFunction() throws {
    let text = try TextLayouts()               // Pango text, cached; also measures for the core
    let badge = BadgeController(accessibilityLabel: "Mail", content: .count(3),
                                clock: SystemClock(), measurer: text)
    let icon = Rect(x: 8, y: 10, width: 24, height: 24)          // the button's icon, in logical units
    badge.layout(host: icon, bounds: Rect(x: 0, y: 0, width: 48, height: 44), direction: .leftToRight, scale: 2)
    badge.increment()                          // bounces and rolls the changed digit, from what is on screen
    badge.value = .count(120)                  // shows "99+" (format.maximumCount, overflowSuffix)
    badge.setText("一个信息")                   // a text badge; empty text removes it
    badge.showDot(blink: true)                 // a dot that blinks until changed
    print(badge.accessibilityDescription)      // "Mail, new" ("Mail, 3 unread", "Mail, more than 99 unread")
    _ = badge.takeDamage()                     // the only rectangle to redraw, nil when nothing changed
    let image = try ImageSurface(width: 96, height: 88)
    try image.draw { context in                // a CairoContext; CairoContext.borrowing(cr) lends your own cairo_t
        context.scale(by: 2)                   // logical units from here on
        BadgeRenderer(text: text).draw(badge.presentation(), style: badge.style,
                                       surface: Theme.light.background, in: context)
    }
    try image.writePNG(to: "badge.png")
    print(badge.animationEndTime ?? 0)         // when the animation ends; nil at rest: no more frames
}

let text = try TextLayouts()               // Pango text, cached; also measures for the core
let badge = BadgeController(accessibilityLabel: "Mail", content: .count(3),
                            clock: SystemClock(), measurer: text)
let icon = Rect(x: 8, y: 10, width: 24, height: 24)          // the button's icon, in logical units
badge.layout(host: icon, bounds: Rect(x: 0, y: 0, width: 48, height: 44), direction: .leftToRight, scale: 2)
badge.increment()                          // bounces and rolls the changed digit, from what is on screen
badge.value = .count(120)                  // shows "99+" (format.maximumCount, overflowSuffix)
badge.setText("一个信息")                   // a text badge; empty text removes it
badge.showDot(blink: true)                 // a dot that blinks until changed
print(badge.accessibilityDescription)      // "Mail, new" ("Mail, 3 unread", "Mail, more than 99 unread")
_ = badge.takeDamage()                     // the only rectangle to redraw, nil when nothing changed
let image = try ImageSurface(width: 96, height: 88)
try image.draw { context in                // a CairoContext; CairoContext.borrowing(cr) lends your own cairo_t
    context.scale(by: 2)                   // logical units from here on
    BadgeRenderer(text: text).draw(badge.presentation(), style: badge.style,
                                   surface: Theme.light.background, in: context)
}
try image.writePNG(to: "badge.png")
print(badge.animationEndTime ?? 0)         // when the animation ends; nil at rest: no more frames
