import BadgeX11
import CXCB
import Glibc

/// A window manager's stand-in that knows a window's `_NET_WM_STATE` only from what the window
/// asks of it, as EWMH has a client ask for the state of a mapped window (a `_NET_WM_STATE`
/// ClientMessage to the root), and writes back what it knows, as i3 does when it takes a window.
///
/// It announces itself as a window manager does when it takes over: it owns `WM_S0` (with a
/// `MANAGER` message to the root) and sets `_NET_SUPPORTING_WM_CHECK` on the root and on its check
/// window. Told to ``manage(_:)`` a window, it writes WM_STATE (NormalState) and its own
/// `_NET_WM_STATE` on it, replacing what an earlier window manager left there. It redirects
/// nothing: windows map and move as they would without a window manager. Not Sendable: one
/// test's thread.
public final class StandInWindowManager {
    /// One `_NET_WM_STATE` request as received: the window, the action (0 remove, 1 add,
    /// 2 toggle) and the first state atom.
    public struct Request: Equatable, Sendable {
        /// The window the request is about.
        public var window: UInt32
        /// `_NET_WM_STATE_REMOVE` (0), `_ADD` (1) or `_TOGGLE` (2).
        public var action: UInt32
        /// The first property the request names.
        public var state: UInt32
    }

    private let x: XConnection
    private let check: xcb_window_t
    private let atoms: [String: xcb_atom_t]
    /// What each window has asked for, in `_NET_WM_STATE` atoms, as written back on it.
    public private(set) var states: [UInt32: [UInt32]] = [:]
    /// Every `_NET_WM_STATE` request received, oldest first.
    public private(set) var requests: [Request] = []

    /// Connects to `display` and takes over as its window manager (WM_S0, the check window).
    public init(display: String) throws {
        x = try openDisplay(display, for: "StandInWindowManager")
        do {
            atoms = try x.internAtoms(["WM_S0", "MANAGER", "_NET_SUPPORTING_WM_CHECK", "_NET_WM_NAME", "UTF8_STRING",
                                       "_NET_WM_STATE", "WM_STATE"])
        } catch {
            throw HarnessError("StandInWindowManager: \(error)")
        }
        let c = x.handle
        check = xcb_generate_id(c)
        let created = xcb_request_check(c, xcb_create_window_checked(c, 0, check, x.root, -1, -1, 1, 1, 0,
                                                                     UInt16(XCB_WINDOW_CLASS_INPUT_ONLY.rawValue), 0, 0, nil))
        if let created {
            free(created)
            throw HarnessError("StandInWindowManager: CreateWindow (check window) refused")
        }
        // The requests of clients come as ClientMessages to the root with the substructure masks.
        let mask: [UInt32] = [XCB_EVENT_MASK_SUBSTRUCTURE_NOTIFY.rawValue]
        if let refused = xcb_request_check(c, xcb_change_window_attributes_checked(c, x.root, XCB_CW_EVENT_MASK.rawValue, mask)) {
            free(refused)
            throw HarnessError("StandInWindowManager: cannot select SubstructureNotify on the root")
        }
        let name = Array("badgekit-stand-in-wm".utf8)
        x.setProperty32(atom("_NET_SUPPORTING_WM_CHECK"), of: check, type: XCB_ATOM_WINDOW.rawValue, values: [check])
        x.setProperty(atom("_NET_WM_NAME"), of: check, type: atom("UTF8_STRING"), bytes: name)
        xcb_set_selection_owner(c, check, atom("WM_S0"), xcb_timestamp_t(XCB_CURRENT_TIME))
        let owner = xcb_get_selection_owner_reply(c, xcb_get_selection_owner(c, atom("WM_S0")), nil)
        defer { free(owner) }
        guard owner?.pointee.owner == check else { throw HarnessError("StandInWindowManager: could not take WM_S0") }
        // ICCCM 2.8: a new manager announces itself to the root's StructureNotify listeners.
        var message = xcb_client_message_event_t()
        message.response_type = UInt8(XCB_CLIENT_MESSAGE)
        message.format = 32
        message.window = x.root
        message.type = atom("MANAGER")
        message.data.data32 = (xcb_timestamp_t(XCB_CURRENT_TIME), atom("WM_S0"), check, 0, 0)
        withUnsafeBytes(of: &message) { bytes in
            _ = xcb_send_event(c, 0, x.root, XCB_EVENT_MASK_STRUCTURE_NOTIFY.rawValue, bytes.baseAddress?.assumingMemoryBound(to: CChar.self))
        }
        x.setProperty32(atom("_NET_SUPPORTING_WM_CHECK"), of: x.root, type: XCB_ATOM_WINDOW.rawValue, values: [check])
        x.roundTrip()
    }

    deinit {
        xcb_destroy_window(x.handle, check)
        x.roundTrip()
    }

    private func atom(_ name: String) -> xcb_atom_t { atoms[name] ?? 0 }

    /// Takes `window` as a window manager starting up takes the windows already mapped: WM_STATE
    /// NormalState, and `_NET_WM_STATE` as it knows it (nothing it was not asked for).
    public func manage(_ window: UInt32) throws {
        x.setProperty32(atom("WM_STATE"), of: window, type: atom("WM_STATE"), values: [1, 0])
        x.setProperty32(atom("_NET_WM_STATE"), of: window, type: XCB_ATOM_ATOM.rawValue, values: states[window] ?? [])
        x.roundTrip()
        if let failure = x.failure { throw HarnessError("StandInWindowManager: \(failure)") }
    }

    /// Handles the requests that come (each one written back to its window's `_NET_WM_STATE`)
    /// until `done` holds or `timeout` seconds pass; returns whether `done` held. Never sleeps:
    /// it waits on the connection.
    @discardableResult
    public func run(timeout: Double, until done: (StandInWindowManager) -> Bool) throws -> Bool {
        let deadline = Deadline(seconds: timeout)
        while true {
            while let event = xcb_poll_for_event(x.handle) {
                defer { free(event) }
                guard Int32(event.pointee.response_type & 0x7f) == XCB_CLIENT_MESSAGE else { continue }
                let message = UnsafeRawPointer(event).loadUnaligned(as: xcb_client_message_event_t.self)
                guard message.type == atom("_NET_WM_STATE"), message.format == 32 else { continue }
                apply(Request(window: message.window, action: message.data.data32.0, state: message.data.data32.1),
                      second: message.data.data32.2)
            }
            if done(self) { return true }
            if x.failure != nil { throw HarnessError("StandInWindowManager: the connection to \(x.displayName) broke") }
            if deadline.hasPassed { return false }
            var entry = pollfd(fd: xcb_get_file_descriptor(x.handle), events: Int16(POLLIN), revents: 0)
            _ = poll(&entry, 1, deadline.remainingMilliseconds)
        }
    }

    private func apply(_ request: Request, second: UInt32) {
        requests.append(request)
        var held = states[request.window] ?? []
        for state in [request.state, second] where state != 0 {
            let has = held.contains(state)
            switch request.action {
            case 0: held.removeAll { $0 == state }
            case 1: if !has { held.append(state) }
            case 2: if has { held.removeAll { $0 == state } } else { held.append(state) }
            default: break
            }
        }
        states[request.window] = held
        x.setProperty32(atom("_NET_WM_STATE"), of: request.window, type: XCB_ATOM_ATOM.rawValue, values: held)
        xcb_flush(x.handle)
    }
}
