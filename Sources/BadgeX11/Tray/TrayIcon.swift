import CXCB
import Glibc
import BadgeCore
import BadgeDrawing

/// An application's icon in the system tray, with its total count drawn in (the tray protocols
/// have no count field): a StatusNotifierItem on the session bus when a watcher takes one, else an
/// XEmbed icon in the X system tray when one runs, else nothing. Never both: where a watcher and
/// a tray are both there, the StatusNotifierItem is used (as Qt does); if the watcher goes, the
/// icon moves to the XEmbed tray, and back when a watcher comes.
///
/// Tell it the count with ``update(total:urgent:tooltip:)``: the icon is drawn again only when the
/// total, the urgency or the ``theme`` changes (never per animation frame), at the size the tray
/// gives it and the host's device scale. A click (XEmbed: button 1 on the icon; StatusNotifierItem:
/// `Activate`) calls ``onActivate``: show or hide the window there.
///
/// Costs nothing while no tray or watcher is there: no window, no timer, no wakeup; the tray's
/// arrival is a message the session already listens for. Not Sendable: event-loop thread only,
/// like the host.
public final class TrayIcon {
    /// Where the icon is.
    public enum Kind: String, Sendable {
        /// Nowhere: no tray and no watcher (or turned off).
        case none
        /// In an XEmbed system tray.
        case xembed
        /// A StatusNotifierItem registered with a watcher.
        case statusNotifierItem = "sni"
    }

    /// The sizes a StatusNotifierItem offers its icon at, in pixels.
    public static let pixmapSizes = [16, 22, 24, 32, 48]

    /// Called when the user activates the icon (a click): show or hide the window.
    public var onActivate: (() -> Void)?
    /// Called with where to open a menu (root pixels): a right click on the XEmbed icon (its
    /// rectangle), or the StatusNotifierItem host's `ContextMenu(x, y)` (that point). Open the
    /// peek there (``ToolbarHost/openPeek(anchoredAt:id:rows:trigger:strings:)``).
    public var onContextMenu: ((PixelRect) -> Void)?
    /// Called when ``kind`` or ``size`` changes.
    public var onChange: (() -> Void)?
    /// The colours of the icon under the badge (the foreground of `theme`): follow the desktop's
    /// light or dark preference, as the panel does.
    public var theme: Theme = .light {
        didSet { if theme != oldValue { iconChanged() } }
    }

    /// The total drawn in the icon.
    public private(set) var total = 0
    /// Whether the icon asks for attention (`NeedsAttention` for a StatusNotifierItem).
    public private(set) var urgent = false
    /// The tooltip: the counts per button.
    public private(set) var tooltip = ""

    private weak var host: ToolbarHost?
    /// The XEmbed icon's tooltip (the counts per button), made the first time the pointer enters it.
    private var tooltipWindow: TooltipWindow?
    private var tooltipRenderer: TooltipRenderer?
    /// Whether the XEmbed icon's tooltip is on the screen now.
    public private(set) var tooltipShown = false
    private let renderer: TrayIconRenderer
    private let xembed: XEmbedTray
    private var item: StatusNotifierItem?
    private var pixmapCache: [(side: Int, argb: [UInt8])]?

    /// An icon for `host`'s application: `iconName` drawn by the host's renderer's icons, the title
    /// and id from the host's identity (`title` and `id` override them). Starts following the X
    /// tray at once and the session bus when the host's session starts it (after the first frame).
    /// Throws when the tray's atoms cannot be interned (a broken connection).
    public init(host: ToolbarHost, iconName: String = "bell", id: String? = nil, title: String? = nil) throws(X11Error) {
        self.host = host
        renderer = TrayIconRenderer(icons: host.renderer.icons, text: host.renderer.text, iconName: iconName)
        let identity = host.identity
        let itemID = id ?? identity?.desktopFileID ?? "badgekit"
        let itemTitle = title ?? identity?.title ?? itemID
        tooltip = itemTitle
        let xembed = try XEmbedTray(connection: host.connection)
        self.xembed = xembed
        xembed.name = itemTitle
        xembed.requestedSide = Int((22 * host.scale).rounded())
        xembed.draw = { [weak self] width, height, transparent, backdrop in
            self?.image(width: width, height: height, transparent: transparent, backdrop: backdrop)
        }
        xembed.onPress = { [weak self] button in
            guard let self else { return }
            if button == 1 { self.onActivate?() }
            if button == 3, let icon = self.xembed.icon, let origin = Self.rootOrigin(of: icon.window, connection: host.connection) {
                self.onContextMenu?(PixelRect(x: origin.0, y: origin.1, width: icon.width, height: icon.height))
            }
        }
        xembed.onHover = { [weak self] inside in self?.hover(inside) }
        xembed.onChange = { [weak self] in self?.reportChange() }
        host.session.whenBusesStarted { [weak self] bus in self?.startItem(on: bus, id: itemID, title: itemTitle) }
        arbitrate()
    }

    /// Where the icon is now.
    public var kind: Kind {
        if let item, item.watcher != nil { return .statusNotifierItem }
        if xembed.isDocked { return .xembed }
        return .none
    }

    /// The XEmbed icon's size in device pixels, as the tray gave it; nil when not docked.
    public var size: (width: Int, height: Int)? {
        guard kind == .xembed, let icon = xembed.icon else { return nil }
        return (icon.width, icon.height)
    }

    /// The XEmbed icon's window while docked (for tests and tools that look at the tray); nil otherwise.
    public var windowID: UInt32? {
        kind == .xembed ? xembed.icon?.window : nil
    }

    /// The XEmbed tray's orientation ("horizontal" or "vertical"), nil while there is none.
    public var trayOrientation: String? {
        xembed.manager == nil ? nil : xembed.orientation.rawValue
    }

    /// The StatusNotifierItem's bus name, while it is registered.
    public var itemBusName: String? {
        kind == .statusNotifierItem ? item?.busName : nil
    }

    /// Shows the tooltip beside the XEmbed icon while the pointer is on it (above it when the tray
    /// is in the lower half of the screen), as trays show their icons' tooltips; hides it when the
    /// pointer leaves, on a click, and when the icon leaves the tray.
    private func hover(_ inside: Bool) {
        guard let host else { return }
        guard inside, let icon = xembed.icon, !tooltip.isEmpty else {
            if tooltipShown { tooltipWindow?.hide() }
            tooltipShown = false
            try? host.connection.flush()
            reportChange()
            return
        }
        let x = host.connection
        do {
            if tooltipWindow == nil {
                tooltipWindow = try TooltipWindow(connection: x, atoms: host.atoms,
                                                  identity: host.identity ?? ApplicationIdentity(instanceName: "badgekit", title: ""))
                tooltipRenderer = TooltipRenderer(text: host.renderer.text)
            }
        } catch {
            return
        }
        guard let window = tooltipWindow, let renderer = tooltipRenderer,
              let origin = Self.rootOrigin(of: icon.window, connection: x) else { return }
        let scale = host.scale, gap = Int((4 * scale).rounded())
        let size = renderer.size(of: tooltip, scale: scale)
        let below = origin.1 + icon.height + gap
        let top = origin.1 + icon.height / 2 > x.screenHeight / 2 ? origin.1 - size.height - gap : below
        do {
            try window.show(tooltip, rootX: origin.0, rootY: top, scale: scale, renderer: renderer)
            tooltipShown = true
        } catch {
            tooltipShown = false
        }
        try? x.flush()
        reportChange()
    }

    /// Where `window`'s top-left corner is on the root window (nil when the window is gone).
    private static func rootOrigin(of window: xcb_window_t, connection x: XConnection) -> (Int, Int)? {
        let cookie = xcb_translate_coordinates(x.handle, window, x.root, 0, 0)
        guard let reply = xcb_translate_coordinates_reply(x.handle, cookie, nil) else { return nil }
        defer { free(reply) }
        return (Int(reply.pointee.dst_x), Int(reply.pointee.dst_y))
    }

    /// Shows `total` in the icon, `urgent` as `NeedsAttention`, and `tooltip` (the counts per
    /// button, "Notifications, 3 unread; Mail, 12 unread") as the tooltip and the XEmbed window's
    /// name. What did not change is not sent again; the icon is drawn only for a new total.
    public func update(total: Int, urgent: Bool, tooltip: String) {
        let total = max(total, 0)
        if total != self.total {
            self.total = total
            iconChanged()
        }
        self.urgent = urgent
        self.tooltip = tooltip
        item?.status = urgent ? "NeedsAttention" : "Active"
        item?.tooltip = tooltip
        xembed.name = tooltip
    }

    /// The tooltip for `toolbar`: each button with a badge said as a screen reader says it, joined
    /// by "; " ("Notifications, 3 unread; Mail, 12 unread"); `title` when no button has one.
    public static func tooltip(for toolbar: Toolbar, title: String) -> String {
        let parts = toolbar.buttons.filter { $0.badge.label != .hidden }.map(\.badge.valueDescription)
        return parts.isEmpty ? title : parts.joined(separator: "; ")
    }

    // MARK: Drawing

    /// The icon for the tray: over the tray's own pixels when they can be read (a dark bar gets a
    /// light bell: the theme follows the backdrop's brightness), else transparent, else on the theme's background.
    private func image(width: Int, height: Int, transparent: Bool, backdrop: ImageSurface?) -> ImageSurface? {
        if let backdrop {
            let shown: Theme = backdrop.averageLuminance < 0.5 ? .dark : .light
            return try? renderer.image(width: width, height: height, scale: host?.scale ?? 1, count: total, theme: shown,
                                       backdrop: backdrop)
        }
        return try? renderer.image(width: width, height: height, scale: host?.scale ?? 1, count: total, theme: theme,
                                   background: transparent ? nil : theme.background)
    }

    /// The StatusNotifierItem's pixmaps: the host's background cannot be read, so the bell is
    /// haloed to read on a black bar and a white one alike (the XEmbed icon sees its backdrop).
    private func pixmaps() -> [(side: Int, argb: [UInt8])] {
        if let pixmapCache { return pixmapCache }
        let made = renderer.statusNotifierPixmaps(sides: Self.pixmapSizes, count: total, theme: theme)
        pixmapCache = made
        return made
    }

    private func iconChanged() {
        pixmapCache = nil
        item?.iconChanged()
        xembed.redraw()
    }

    // MARK: Which protocol

    private func startItem(on bus: BusConnection?, id: String, title: String) {
        guard let bus else {
            arbitrate()
            return
        }
        let item = StatusNotifierItem(bus: bus, id: id, title: title)
        item.windowID = host?.window ?? 0
        item.tooltip = tooltip
        item.status = urgent ? "NeedsAttention" : "Active"
        item.pixmaps = { [weak self] in self?.pixmaps() ?? [] }
        item.onActivate = { [weak self] primary in if primary { self?.onActivate?() } }
        item.onContextMenu = { [weak self] x, y in self?.onContextMenu?(PixelRect(x: x, y: y, width: 1, height: 1)) }
        item.onRegistrationChange = { [weak self] in self?.arbitrate() }
        self.item = item
        arbitrate()
    }

    /// XEmbed only when no watcher took the item, once that is known (or there is no bus).
    private func arbitrate() {
        guard let host else { return }
        let busKnown = host.session.busesHaveStarted && (item?.isSettled ?? true)
        xembed.wantsDock = busKnown && item?.watcher == nil
        reportChange()
    }

    private func reportChange() {
        onChange?()
    }
}
