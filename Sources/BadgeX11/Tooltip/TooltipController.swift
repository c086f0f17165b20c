import BadgeCore
import BadgeDrawing
import CXCB
import Glibc

/// Where a tooltip is shown: its window, text and frame in root coordinates (device pixels).
public struct TooltipInfo: Hashable, Sendable {
    /// The tooltip's window id.
    public var window: UInt32
    /// The id of the button it describes.
    public var buttonID: String
    /// The text it shows (the hovered badge's accessible description).
    public var text: String
    /// Its frame on the screen, in device pixels.
    public var frame: PixelRect
}

/// Decides when the tooltip shows and hides, as GTK and Qt tooltips do: after the pointer rests on
/// a button for ``delay`` seconds; hidden on leaving, pressing or typing (and then kept away until
/// the pointer moves to another button); its text follows the badge while shown.
///
/// Not Sendable: event-loop thread only.
package final class TooltipController {
    /// How long the pointer rests on a button before its tooltip shows, in seconds.
    package static let delay = 0.5

    private let x: XConnection
    private let window: TooltipWindow
    private let renderer: TooltipRenderer
    private let clock: any BadgeClock
    private var hovered: ToolbarButton?
    private var suppressed = false
    /// The host whose button the tooltip is for (shown or pending), or nil: one tooltip window
    /// serves every host on the connection, for one host at a time.
    private(set) var owner: ObjectIdentifier?
    /// When the pending tooltip is due (clock seconds), or nil.
    private(set) var dueTime: Double?
    /// Called with the owner after the tooltip was shown or hidden and the server has processed it.
    var onChange: ((ObjectIdentifier, TooltipInfo?) -> Void)?
    /// Called with a one-line message when the tooltip cannot be drawn.
    var onWarning: ((String) -> Void)?

    package init(connection x: XConnection, atoms: Atoms, identity: ApplicationIdentity, text: TextLayouts,
                 clock: any BadgeClock) throws(X11Error) {
        self.x = x
        self.clock = clock
        window = try TooltipWindow(connection: x, atoms: atoms, identity: identity)
        renderer = TooltipRenderer(text: text)
    }

    /// The tooltip window's id.
    package var windowID: xcb_window_t { window.window }

    /// What is shown now for `owner`'s toolbar, or nil while hidden or shown for another host.
    package func shown(for owner: ObjectIdentifier) -> TooltipInfo? {
        guard self.owner == owner, let text = window.text else { return nil }
        return TooltipInfo(window: window.window, buttonID: hovered?.id ?? "", text: text, frame: window.frame)
    }

    /// When `owner`'s pending tooltip is due, or nil.
    package func dueTime(for owner: ObjectIdentifier) -> Double? {
        self.owner == owner ? dueTime : nil
    }

    /// Follows the hovered button of `owner`'s `toolbar`: a new one (re)starts the delay and makes
    /// `owner` the tooltip's, none hides the tooltip if it was `owner`'s, and a shown tooltip
    /// follows its badge's description.
    package func follow(_ toolbar: Toolbar, host: xcb_window_t, owner: ObjectIdentifier) {
        let now = toolbar.buttons.first { $0.isHovered }
        guard now != nil || self.owner == owner else { return }
        if now !== hovered || self.owner != owner {
            hide(suppress: false, owner: self.owner ?? owner)
            self.owner = now == nil ? nil : owner
            hovered = now
            suppressed = false
            if now != nil { dueTime = clock.now + Self.delay }
        } else if let now, let text = window.text, text != now.badge.accessibilityDescription {
            show(now, toolbar: toolbar, host: host)
        }
    }

    /// Shows `owner`'s pending tooltip when it is due (and the host window is mapped).
    package func fireIfDue(_ toolbar: Toolbar, host: xcb_window_t, mapped: Bool, owner: ObjectIdentifier) {
        guard self.owner == owner, let due = dueTime, clock.now >= due else { return }
        dueTime = nil
        guard let hovered, !suppressed, mapped else { return }
        show(hovered, toolbar: toolbar, host: host)
    }

    /// Hides the tooltip and cancels a pending one, if they are `owner`'s; with `suppress`, it stays
    /// away until the pointer moves to another button (after a press or a key).
    package func hide(suppress: Bool, owner: ObjectIdentifier) {
        guard self.owner == nil || self.owner == owner else { return }
        dueTime = nil
        if suppress { suppressed = true }
        guard window.text != nil else { return }
        window.hide()
        settle()
        onChange?(owner, nil)
    }

    /// Forgets `owner` (a host that closed or went away), hiding its tooltip.
    package func release(_ owner: ObjectIdentifier) {
        guard self.owner == owner else { return }
        hide(suppress: false, owner: owner)
        self.owner = nil
        hovered = nil
    }

    /// Copies the tooltip's image again (Expose).
    package func expose() {
        window.present()
    }

    private func show(_ button: ToolbarButton, toolbar: Toolbar, host: xcb_window_t) {
        let cookie = xcb_translate_coordinates(x.handle, host, x.root, 0, 0)
        guard let reply = xcb_translate_coordinates_reply(x.handle, cookie, nil) else { return }
        let originX = Int(reply.pointee.dst_x), originY = Int(reply.pointee.dst_y)
        free(reply)
        let scale = toolbar.scale
        let frame = button.frame.pixels(scale: scale, rounding: .nearest)
        let label = button.badge.accessibilityDescription
        do {
            try window.show(label, rootX: originX + frame.x, rootY: originY + frame.maxY + Int((4 * scale).rounded()),
                            scale: scale, renderer: renderer)
        } catch {
            onWarning?("cannot draw the tooltip (\(error))")
            return
        }
        settle()
        if let owner { onChange?(owner, shown(for: owner)) }
    }

    /// Makes sure the server has processed the map or unmap before anyone is told about it.
    private func settle() {
        guard onChange != nil else { return }
        try? x.flush()
        x.roundTrip()
    }
}
