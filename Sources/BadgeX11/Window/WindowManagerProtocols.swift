import CXCB
import Glibc

/// What a top-level window says to and hears from the window manager, in one place for every
/// top-level window the shell makes (a ``ToolbarHost``'s and an ``ApplicationWindow``): the
/// WM_PROTOCOLS messages (close, ping, sync request) and urgency (the ICCCM hint and
/// `_NET_WM_STATE_DEMANDS_ATTENTION`).
package struct WindowManagerProtocols {
    /// A WM_PROTOCOLS message, decoded.
    package enum Request: Equatable, Sendable {
        /// WM_DELETE_WINDOW: the close button.
        case close
        /// _NET_WM_SYNC_REQUEST: the counter value to reach once the frame for the coming
        /// ConfigureNotify is drawn.
        case syncRequest(low: UInt32, high: UInt32)
        /// _NET_WM_PING, already answered.
        case ping
        /// A protocol the shell does not take part in.
        case other
    }

    let connection: XConnection
    let atoms: Atoms
    let window: xcb_window_t

    /// Decodes `message` (nil when it is not WM_PROTOCOLS) and answers a ping at once, by sending
    /// the message back to the root window as EWMH asks.
    package func handle(_ message: xcb_client_message_event_t) -> Request? {
        guard message.type == atoms.wmProtocols, message.format == 32 else { return nil }
        let protocolAtom = message.data.data32.0
        if protocolAtom == atoms.wmDeleteWindow { return .close }
        if protocolAtom == atoms.netWMSyncRequest { return .syncRequest(low: message.data.data32.2, high: message.data.data32.3) }
        if protocolAtom == atoms.netWMPing {
            var reply = message
            reply.window = connection.root
            connection.sendToRoot(reply)
            return .ping
        }
        return .other
    }

    /// True when `event` says another window manager took over: the root's
    /// `_NET_SUPPORTING_WM_CHECK` changed (each EWMH window manager sets it when it starts), or a
    /// `MANAGER` client message announced a new owner of `WM_S0` (ICCCM 2.8). Either needs the
    /// root's PropertyChange and StructureNotify events (the session selects them).
    package static func announcesWindowManager(_ event: XEvent, root: xcb_window_t, atoms: Atoms) -> Bool {
        switch Int32(event.code) {
        case XCB_PROPERTY_NOTIFY:
            let notify = event.withEvent(as: xcb_property_notify_event_t.self) { $0 }
            return notify.window == root && notify.atom == atoms.netSupportingWMCheck
        case XCB_CLIENT_MESSAGE:
            let message = event.withEvent(as: xcb_client_message_event_t.self) { $0 }
            return message.window == root && message.type == atoms.manager && message.format == 32
                && message.data.data32.1 == atoms.wmS0
        default:
            return false
        }
    }

    /// True when `event` says a window manager began managing this window (it wrote WM_STATE
    /// on it, ICCCM 4.1.3.1): the moment a window manager that started after the window takes
    /// requests about it.
    package func isManagedAnew(_ event: XEvent) -> Bool {
        guard Int32(event.code) == XCB_PROPERTY_NOTIFY else { return false }
        let notify = event.withEvent(as: xcb_property_notify_event_t.self) { $0 }
        return notify.window == window && notify.atom == atoms.wmState && notify.state == UInt8(XCB_PROPERTY_NEW_VALUE.rawValue)
    }

    /// Writes urgency to the window: the ICCCM UrgencyHint (through `properties`) and
    /// `_NET_WM_STATE_DEMANDS_ATTENTION`, asked of the window manager when one runs, written as the
    /// property otherwise.
    package func setUrgent(_ on: Bool, properties: TopLevelProperties) {
        properties.setUrgent(on)
        if connection.windowManagerIsRunning(atoms: atoms) {
            var message = xcb_client_message_event_t()
            message.response_type = UInt8(XCB_CLIENT_MESSAGE)
            message.format = 32
            message.window = window
            message.type = atoms.netWMState
            // _NET_WM_STATE_ADD (1) or _REMOVE (0), the property, no second one, source: an application (1).
            message.data.data32 = (on ? 1 : 0, atoms.netWMStateDemandsAttention, 0, 1, 0)
            connection.sendToRoot(message)
        } else {
            connection.setProperty32(atoms.netWMState, of: window, type: XCB_ATOM_ATOM.rawValue,
                                     values: on ? [atoms.netWMStateDemandsAttention] : [])
        }
    }

    /// Brings the window to the front, as a running application does when it is launched again:
    /// maps it, then asks the window manager with `_NET_ACTIVE_WINDOW` (source: an application,
    /// with `time`, the user action's timestamp, for focus-stealing prevention; 0 when unknown).
    /// Without a window manager, raises it and gives it the input focus itself.
    package func activate(time: UInt32) {
        xcb_map_window(connection.handle, window)
        connection.requestActivation(of: window, time: time, atoms: atoms)
    }
}
