import BadgeCore
import BadgeDrawing
import CXCB
import Glibc

/// The XEmbed system tray protocol (freedesktop's System Tray specification), as trayer, tint2,
/// polybar, stalonetray and i3bar speak it: the tray owns the selection `_NET_SYSTEM_TRAY_S<screen>`;
/// an icon is a window the tray swallows after `SYSTEM_TRAY_REQUEST_DOCK`.
///
/// - A tray that starts later announces itself with a `MANAGER` message on the root (the session
///   selects the root's StructureNotify); one that goes away is seen by the DestroyNotify of its
///   window. The icon window is destroyed with it (the tray's save-set would otherwise put it on
///   the root) and made again for the next tray.
/// - The icon window is made in the tray's `_NET_SYSTEM_TRAY_VISUAL` when that is a 32-bit ARGB
///   visual (drawn with transparency), otherwise in the shell's visual with a background; the
///   tray's `_NET_SYSTEM_TRAY_ORIENTATION` is read and reported.
/// - The tray sizes the window: each ConfigureNotify that changes the size asks for a new image
///   (``draw``) at that size; Expose copies the last one. ButtonPress reports the button.
///
/// Docking is wanted or not (``wantsDock``): the ``TrayIcon`` turns it off while a
/// StatusNotifierItem is used. Not Sendable: event-loop thread only.
package final class XEmbedTray: EventTaker {
    /// How the tray lays its icons out.
    package enum Orientation: String, Sendable {
        /// In a row (a horizontal panel).
        case horizontal
        /// In a column.
        case vertical
    }

    /// The image for a window of `width` × `height` device pixels, with alpha when `transparent`.
    /// `backdrop` is the tray's own pixels behind a window without alpha (nil: transparent, or unknown).
    package var draw: ((_ width: Int, _ height: Int, _ transparent: Bool, _ backdrop: ImageSurface?) -> ImageSurface?)?
    /// Called with the X button number of a press on the icon.
    package var onPress: ((UInt8) -> Void)?
    /// Called when the pointer enters (true) or leaves (false) the docked icon.
    package var onHover: ((Bool) -> Void)?
    /// Called when the tray appears or goes, or the icon is docked, undocked or resized.
    package var onChange: (() -> Void)?
    /// The icon's name (the tooltip trays show).
    package var name = "" {
        didSet { if name != oldValue { icon?.setName(name, atoms: atoms) } }
    }
    /// Dock while a tray is there (true), or stay out of it (false: the window is destroyed).
    package var wantsDock = false {
        didSet { if wantsDock != oldValue { follow() } }
    }
    /// The tray's window, while one runs.
    package private(set) var manager: xcb_window_t?
    /// The tray's orientation (horizontal when it does not say).
    package private(set) var orientation = Orientation.horizontal
    /// The icon window, while docked or docking.
    package private(set) var icon: TrayIconWindow?
    /// True once the tray reparented the icon into its own window.
    package var isDocked: Bool {
        guard let icon else { return false }
        return icon.parent != x.root
    }
    /// The side of the window asked for before the tray sizes it, in device pixels.
    package var requestedSide = 22

    private let x: XConnection
    private let atoms: TrayAtoms
    private var image: ImageSurface?
    /// The last image was drawn without the tray's pixels behind it, though the window has no alpha.
    private var imageLacksBackdrop = false

    /// Follows the tray of `connection`'s screen (nothing is docked until ``wantsDock``).
    package init(connection x: XConnection) throws(X11Error) {
        self.x = x
        atoms = try TrayAtoms(connection: x, screen: x.screenNumber)
        // Added to the client's root mask (the session selects it too): MANAGER messages arrive there.
        try? x.addEventMask(XCB_EVENT_MASK_STRUCTURE_NOTIFY.rawValue, to: x.root)
        x.router.register(self)
        findManager()
    }

    /// Draws the icon again (its count changed) and copies it to the window.
    package func redraw() {
        guard let icon else { return }
        let backdrop = icon.hasAlpha ? nil : icon.backdrop()
        image = draw?(icon.width, icon.height, icon.hasAlpha, backdrop)
        // Drawn before the window could be read back (not viewable yet): drawn again at its Expose.
        imageLacksBackdrop = !icon.hasAlpha && backdrop == nil
        if let image { icon.present(image) }
        try? x.flush()
    }

    // MARK: Events

    package func take(_ event: XEvent) -> EventRouter.Disposition {
        switch Int32(event.code) {
        case XCB_CLIENT_MESSAGE:
            let message = event.withEvent(as: xcb_client_message_event_t.self) { $0 }
            if message.window == x.root, message.type == atoms.manager, message.format == 32,
               message.data.data32.1 == atoms.selection {
                findManager()
                follow()
                onChange?()
                return .shared
            }
            return message.window == icon?.window ? .taken : .notTaken
        case XCB_DESTROY_NOTIFY:
            let destroyed = event.withEvent(as: xcb_destroy_notify_event_t.self) { $0.window }
            if destroyed == manager {
                manager = nil
                dropIcon()
                onChange?()
                return .shared
            }
            if let icon, destroyed == icon.window {
                icon.exists = false
                self.icon = nil
                image = nil
                onChange?()
                return .taken
            }
            return .notTaken
        case XCB_REPARENT_NOTIFY:
            let (window, parent) = event.withEvent(as: xcb_reparent_notify_event_t.self) { ($0.window, $0.parent) }
            guard let icon, window == icon.window else { return .notTaken }
            icon.parent = parent
            onChange?()
            return .taken
        default:
            break
        }
        guard let icon, let window = event.window, window == icon.window else { return .notTaken }
        switch Int32(event.code) {
        case XCB_CONFIGURE_NOTIFY:
            let (width, height) = event.withEvent(as: xcb_configure_notify_event_t.self) { (Int($0.width), Int($0.height)) }
            if icon.resized(width: width, height: height) {
                redraw()
                onChange?()
            }
        case XCB_EXPOSE:
            if event.withEvent(as: xcb_expose_event_t.self, { $0.count }) == 0 {
                if let image, image.width == icon.width, image.height == icon.height, !imageLacksBackdrop {
                    icon.present(image)
                } else {
                    redraw()
                }
            }
        case XCB_BUTTON_PRESS:
            onHover?(false)
            onPress?(event.withEvent(as: xcb_button_press_event_t.self) { $0.detail })
        case XCB_ENTER_NOTIFY:
            onHover?(true)
        case XCB_LEAVE_NOTIFY:
            onHover?(false)
        default:
            break
        }
        return .taken
    }

    // MARK: The tray

    /// Reads the selection's owner, its visual and orientation, and watches it go.
    private func findManager() {
        guard let reply = xcb_get_selection_owner_reply(x.handle, xcb_get_selection_owner(x.handle, atoms.selection), nil) else {
            manager = nil
            return
        }
        let owner = reply.pointee.owner
        free(reply)
        guard owner != 0, owner != manager else {
            if owner == 0 { manager = nil }
            return
        }
        // Checked: the owner may be gone already.
        do {
            try x.addEventMask(XCB_EVENT_MASK_STRUCTURE_NOTIFY.rawValue, to: owner)
        } catch {
            manager = nil
            return
        }
        if manager != nil { dropIcon() }  // a new tray replaced the old one
        manager = owner
        let orientation = x.property(atoms.orientation, of: owner, type: XCB_ATOM_CARDINAL.rawValue, maximumBytes: 4)
        self.orientation = orientation.flatMap(Self.word) == TrayAtoms.vertical ? .vertical : .horizontal
    }

    /// Docks when wanted and a tray is there; undocks when not wanted.
    private func follow() {
        guard wantsDock else { return dropIcon() }
        guard let manager, icon == nil else { return }
        let visualID = x.property(atoms.visual, of: manager, type: XCB_ATOM_VISUALID.rawValue, maximumBytes: 4).flatMap(Self.word)
        let visual = visualID.flatMap { x.visual(withID: $0) }
        do {
            icon = try TrayIconWindow(connection: x, atoms: atoms, trayVisual: visual, side: requestedSide, name: name)
        } catch {
            return
        }
        guard let icon else { return }
        var message = xcb_client_message_event_t()
        message.response_type = UInt8(XCB_CLIENT_MESSAGE)
        message.format = 32
        message.window = manager
        message.type = atoms.opcode
        message.data.data32 = (UInt32(XCB_CURRENT_TIME), TrayAtoms.requestDock, icon.window, 0, 0)
        withUnsafeBytes(of: &message) { bytes in
            _ = xcb_send_event(x.handle, 0, manager, XCB_EVENT_MASK_NO_EVENT.rawValue, bytes.baseAddress?.assumingMemoryBound(to: CChar.self))
        }
        try? x.flush()
        onChange?()
    }

    private func dropIcon() {
        guard icon != nil else { return }
        onHover?(false)
        icon = nil
        image = nil
        try? x.flush()
    }

    /// The first 32-bit word of a property's bytes (the server's byte order is the client's).
    private static func word(_ bytes: [UInt8]) -> UInt32? {
        guard bytes.count >= 4 else { return nil }
        return bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
    }
}
