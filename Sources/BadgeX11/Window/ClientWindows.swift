import CXCB
import Glibc

extension XConnection {
    /// The most windows read from the window manager's client list.
    private static let clientListLimit = 4096

    /// Other applications' top-level windows that belong to an application, topmost first: those
    /// whose WM_CLASS instance or class equals one of `classes` (ignoring case: a desktop file's
    /// `StartupWMClass`, or BadgeSources' `DesktopEntry.windowClasses`), or whose `_NET_WM_PID` is `pid`.
    ///
    /// The windows are the window manager's `_NET_CLIENT_LIST_STACKING` (else `_NET_CLIENT_LIST`);
    /// without an EWMH window manager, the root's children (and their children, for a frame) that
    /// carry WM_STATE, else every mapped child of the root. Throws ``X11Error`` only when the
    /// connection has failed.
    public func clientWindows(withClass classes: [String], pid: Int32? = nil) throws(X11Error) -> [UInt32] {
        let atoms = try sessionAtoms()
        let wanted = Set(classes.map { $0.lowercased() }.filter { !$0.isEmpty })
        guard !wanted.isEmpty || pid != nil else { return [] }
        let candidates = clientList(atoms: atoms)
        // Every request first, then the replies: one round trip for the whole list.
        let classCookies = candidates.map {
            xcb_get_property(handle, 0, $0, XCB_ATOM_WM_CLASS.rawValue, XCB_ATOM_STRING.rawValue, 0, 256)
        }
        let pidCookies = pid == nil ? [] : candidates.map {
            xcb_get_property(handle, 0, $0, atoms.netWMPID, XCB_ATOM_CARDINAL.rawValue, 0, 1)
        }
        var matches: [UInt32] = []
        for (index, window) in candidates.enumerated() {
            let names = (propertyReply(classCookies[index]) ?? []).split(separator: 0).map {
                String(decoding: $0, as: UTF8.self).lowercased()
            }
            var matched = names.prefix(2).contains { wanted.contains($0) }
            if let pid, let value = propertyReply(pidCookies[index]), value.count == 4 {
                matched = matched || value.withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) } == UInt32(bitPattern: pid)
            }
            if matched { matches.append(window) }
        }
        if let failure { throw failure }
        return matches.reversed()
    }

    /// Brings another application's window to the front: the topmost of ``clientWindows(withClass:pid:)``,
    /// asked of the window manager with `_NET_ACTIVE_WINDOW` (source indication 1, an application,
    /// with `time`, the click's X timestamp, so focus-stealing prevention lets it through; 0 when
    /// unknown), which also de-iconifies it and switches to its desktop; without a window manager,
    /// raised and focused directly. Returns the window asked for, or nil when the application has
    /// no window (then launch it). The request is sent with the next flush.
    @discardableResult
    public func activateClient(withClass classes: [String], pid: Int32? = nil, time: UInt32) throws(X11Error) -> UInt32? {
        guard let window = try clientWindows(withClass: classes, pid: pid).first else { return nil }
        requestActivation(of: window, time: time, atoms: try sessionAtoms())
        return window
    }

    /// The desktop session's atoms, or this connection's own when it has no session.
    private func sessionAtoms() throws(X11Error) -> Atoms {
        if let atoms = session?.atoms { return atoms }
        return try Atoms(connection: self)
    }

    /// The top-level client windows, bottom to top.
    private func clientList(atoms: Atoms) -> [xcb_window_t] {
        if windowManagerIsRunning(atoms: atoms) {
            for list in [atoms.netClientListStacking, atoms.netClientList] {
                if let value = property(list, of: root, type: XCB_ATOM_WINDOW.rawValue, maximumBytes: Self.clientListLimit * 4) {
                    return Self.windows(in: value)
                }
            }
        }
        // No (EWMH) window manager: the clients are the windows with WM_STATE at or just below the top.
        let topLevel = children(of: root)
        var clients: [xcb_window_t] = []
        for window in topLevel {
            if hasProperty(atoms.wmState, on: window) {
                clients.append(window)
            } else if let inner = children(of: window).last(where: { hasProperty(atoms.wmState, on: $0) }) {
                clients.append(inner)
            }
        }
        guard clients.isEmpty else { return clients }
        let viewable = UInt8(XCB_MAP_STATE_VIEWABLE.rawValue)
        return topLevel.filter { mapState(of: $0) == viewable }
    }

    /// The children of `window`, bottom to top (empty when it does not exist).
    private func children(of window: xcb_window_t) -> [xcb_window_t] {
        var error: UnsafeMutablePointer<xcb_generic_error_t>?
        guard let reply = xcb_query_tree_reply(handle, xcb_query_tree(handle, window), &error) else {
            free(error)
            return []
        }
        defer { free(reply) }
        let count = Int(xcb_query_tree_children_length(reply))
        guard count > 0, let first = xcb_query_tree_children(reply) else { return [] }
        return Array(UnsafeBufferPointer(start: first, count: min(count, Self.clientListLimit)))
    }

    private func hasProperty(_ atom: xcb_atom_t, on window: xcb_window_t) -> Bool {
        property(atom, of: window, type: nil, maximumBytes: 4) != nil
    }

    /// The value of a GetProperty reply (nil for an error, a missing property or another type).
    private func propertyReply(_ cookie: xcb_get_property_cookie_t) -> [UInt8]? {
        var error: UnsafeMutablePointer<xcb_generic_error_t>?
        guard let reply = xcb_get_property_reply(handle, cookie, &error) else {
            free(error)
            return nil
        }
        defer { free(reply) }
        let length = Int(xcb_get_property_value_length(reply))
        guard reply.pointee.type != XCB_ATOM_NONE.rawValue, length > 0, let value = xcb_get_property_value(reply) else { return nil }
        return Array(UnsafeRawBufferPointer(start: value, count: length))
    }

    private static func windows(in value: [UInt8]) -> [xcb_window_t] {
        stride(from: 0, to: value.count - value.count % 4, by: 4).map { offset in
            value.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: UInt32.self) }
        }
    }
}
