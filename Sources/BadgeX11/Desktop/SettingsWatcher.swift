import CXCB
import Glibc

/// Follows the desktop's settings live, as GTK and Qt do: the XSETTINGS manager (the owner of the
/// `_XSETTINGS_S0` selection, its `_XSETTINGS_SETTINGS` property, a new owner announced with a
/// `MANAGER` message, an owner that goes away) and `Xft.dpi` in the root's `RESOURCE_MANAGER`.
///
/// Not Sendable: event-loop thread only.
package final class SettingsWatcher {
    private let x: XConnection
    private let atoms: Atoms
    /// The settings manager's window, or nil when none runs.
    private(set) var owner: xcb_window_t?
    private var xsettings: [String: XSetting] = [:]
    private var resourceScale: Double?
    /// What the desktop says now.
    package private(set) var settings = DesktopSettings()

    /// Starts watching on screen 0 (root StructureNotify and PropertyChange; the owner's
    /// StructureNotify and PropertyChange), and reads the current settings.
    private var selection: xcb_atom_t { atoms.xsettingsSelection }
    private var settingsAtom: xcb_atom_t { atoms.xsettingsSettings }
    private var manager: xcb_atom_t { atoms.manager }

    package init(connection x: XConnection, atoms: Atoms) {
        self.x = x
        self.atoms = atoms
        // Added to the client's mask on the root, never replacing it: the connection may be the
        // application's own (XConnection.withAdopted), with root events of its own selected.
        try? x.addEventMask(XCB_EVENT_MASK_STRUCTURE_NOTIFY.rawValue | XCB_EVENT_MASK_PROPERTY_CHANGE.rawValue, to: x.root)
        resourceScale = XResources.deviceScale(connection: x, atoms: atoms)
        findOwner()
        settings = DesktopSettings(xsettings: xsettings, resourceScale: resourceScale)
    }

    /// Takes the events that concern the settings; returns true when ``settings`` changed.
    /// (It never consumes an event: the caller's other handlers may want it too.)
    package func handle(_ event: XEvent) -> Bool {
        switch Int32(event.code) {
        case XCB_CLIENT_MESSAGE:
            let message = event.withEvent(as: xcb_client_message_event_t.self) { $0 }
            guard message.window == x.root, message.type == manager, message.format == 32,
                  message.data.data32.1 == selection else { return false }
            findOwner()
        case XCB_DESTROY_NOTIFY:
            let destroyed = event.withEvent(as: xcb_destroy_notify_event_t.self) { $0.window }
            guard destroyed == owner else { return false }
            // The manager went away: no settings until a new one announces itself.
            findOwner()
        case XCB_PROPERTY_NOTIFY:
            let notify = event.withEvent(as: xcb_property_notify_event_t.self) { $0 }
            if notify.window == owner, notify.atom == settingsAtom {
                readSettings()
            } else if notify.window == x.root, notify.atom == atoms.resourceManager {
                resourceScale = XResources.deviceScale(connection: x, atoms: atoms)
            } else {
                return false
            }
        default:
            return false
        }
        let updated = DesktopSettings(xsettings: xsettings, resourceScale: resourceScale)
        guard updated != settings else { return false }
        settings = updated
        return true
    }

    /// True when `event` is one of the watcher's (root or owner window events it selected).
    package func concerns(_ event: XEvent) -> Bool {
        guard let window = event.window else { return false }
        return window == x.root || window == owner
    }

    private func findOwner() {
        owner = nil
        xsettings = [:]
        guard let reply = xcb_get_selection_owner_reply(x.handle, xcb_get_selection_owner(x.handle, selection), nil) else { return }
        let window = reply.pointee.owner
        free(reply)
        guard window != 0 else { return }
        // Checked: the owner may be gone already (then there is no manager).
        do {
            try x.addEventMask(XCB_EVENT_MASK_STRUCTURE_NOTIFY.rawValue | XCB_EVENT_MASK_PROPERTY_CHANGE.rawValue, to: window)
        } catch {
            return
        }
        owner = window
        readSettings()
    }

    private func readSettings() {
        guard let owner else { return }
        xsettings = x.property(settingsAtom, of: owner, type: nil, maximumBytes: 1 << 20).map(XSetting.decode) ?? [:]
    }
}
