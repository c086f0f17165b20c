// Generated from README.md by Scripts/readme-examples.py (make examples): the README's code,
// compiled as written, inside a function and as top-level code. Not run by the tests.

import BadgeCore
import BadgeDrawing
import BadgeX11

/// The same code inside a function.
func readmeCodeInAFunction() throws {
    let identity = ApplicationIdentity(instanceName: "mail", className: "Mail", title: "Mail")
    let text = try TextLayouts()
    let inbox = ToolbarButton(id: "inbox", iconName: "mail", badge: BadgeController(
        accessibilityLabel: "Inbox", content: .count(3), clock: SystemClock(), measurer: text))
    let renderer = ToolbarRenderer(theme: .light, text: text, icons: try IconLibrary())
    let connection = try XConnection()                       // $DISPLAY; errors are typed X11Error values
    let window = try ApplicationWindow(connection: connection, identity: identity, width: 480, height: 320)
    let host = try ToolbarHost(toolbar: Toolbar(buttons: [inbox]), renderer: renderer, connection: connection,
                               placement: .child(of: window.id, x: 0, y: 0))   // or .topLevel(identity)
    var running = true
    host.onEvent = { event in                                // .ready, .badgeChanged(button, cause), …
        if case .detached = event { running = false }
    }
    host.change(inbox, cause: .control) { $0.value = .count(4) }               // reported like input
    window.map()
    while running {
        while let event = connection.nextEvent() {           // what the host does not take is yours
            if !host.handle(event), window.handle(event) == .closeRequested { running = false }
        }
        try host.refresh()                                   // draws only what changed, then flushes
        _ = host.session.wait()                              // sleeps in poll() on X and the buses (and
    }                                                        // descriptors of yours): idle, no wakeups
}

let identity = ApplicationIdentity(instanceName: "mail", className: "Mail", title: "Mail")
let text = try TextLayouts()
let inbox = ToolbarButton(id: "inbox", iconName: "mail", badge: BadgeController(
    accessibilityLabel: "Inbox", content: .count(3), clock: SystemClock(), measurer: text))
let renderer = ToolbarRenderer(theme: .light, text: text, icons: try IconLibrary())
let connection = try XConnection()                       // $DISPLAY; errors are typed X11Error values
let window = try ApplicationWindow(connection: connection, identity: identity, width: 480, height: 320)
let host = try ToolbarHost(toolbar: Toolbar(buttons: [inbox]), renderer: renderer, connection: connection,
                           placement: .child(of: window.id, x: 0, y: 0))   // or .topLevel(identity)
var running = true
host.onEvent = { event in                                // .ready, .badgeChanged(button, cause), …
    if case .detached = event { running = false }
}
host.change(inbox, cause: .control) { $0.value = .count(4) }               // reported like input
window.map()
while running {
    while let event = connection.nextEvent() {           // what the host does not take is yours
        if !host.handle(event), window.handle(event) == .closeRequested { running = false }
    }
    try host.refresh()                                   // draws only what changed, then flushes
    _ = host.session.wait()                              // sleeps in poll() on X and the buses (and
}                                                        // descriptors of yours): idle, no wakeups
