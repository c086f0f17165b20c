import BadgeCore
import CXCB
import Glibc

/// Placing the host's window: where it is, moving and resizing it, showing, hiding and closing it.
extension ToolbarHost {
    /// Where the window is, in device pixels: in its parent's coordinates for a child host, on the
    /// screen (root coordinates) for a top-level one.
    ///
    /// Kept from what was last asked (``move(x:y:)``, ``resize(width:height:)``, a new scale or
    /// toolbar) and from what the server last said (ConfigureNotify), whichever came last. A
    /// window manager may place a top-level window elsewhere than asked; once it has reparented
    /// the window into its frame, the position follows only the synthetic ConfigureNotify it
    /// sends (ICCCM 4.1.5), since the server's own is relative to the frame. The size can differ
    /// from ``size`` until the server confirms a resize: ``size`` is what the toolbar is laid out for.
    public var frame: PixelRect { surface.frame }

    /// True while the window is mapped, as the server last said (MapNotify, UnmapNotify): after
    /// ``show()`` or ``hide()``, once the server's answer is handled. A mapped child window is
    /// on screen only while its parent is too.
    public var isMapped: Bool { mapped }

    /// Moves the window to (`x`, `y`) device pixels in its parent's coordinates (a child host), or
    /// asks the window manager to move it there on the screen (a top-level host; the window
    /// manager may place it elsewhere). ``frame`` says the new position at once; nothing happens
    /// once detached.
    public func move(x: Int, y: Int) {
        guard isAttached else { return }
        surface.move(x: x, y: y)
        knownOrigin = nil
    }

    /// Resizes the window to `width` × `height` device pixels (at least 1, at most 32767): a child
    /// window at once, a top-level one as its window manager allows. The toolbar is laid out
    /// again when the server confirms the size (``size``); nothing happens once detached.
    public func resize(width: Int, height: Int) {
        requestSize(width: width, height: height)
    }

    /// Shows (maps) the window, after ``hide()``. A new host is shown already.
    public func show() {
        guard isAttached else { return }
        surface.map()
    }

    /// Hides (unmaps) the window and its tooltip; the host keeps its toolbar, and ``show()``
    /// brings it back. A top-level window is withdrawn as ICCCM asks (the window manager is told
    /// with a synthetic UnmapNotify), so taskbars drop it too.
    public func hide() {
        guard isAttached else { return }
        tooltips?.hide(suppress: false, owner: tooltipOwner)
        surface.unmap()
        if properties != nil { announceWithdrawal() }
    }

    /// Destroys the window (and the tooltip's) now and detaches: ``Event/detached`` is reported
    /// before this returns, as for a window destroyed by someone else, so ``run()`` ends. The host
    /// keeps its toolbar and counts and draws nothing more; releasing it afterwards does nothing
    /// more to the server. Closing a detached host does nothing.
    public func close() {
        guard isAttached else { return }
        tooltips?.release(tooltipOwner)
        tooltips = nil
        surface.destroy()
        try? connection.flush()
        detach()
    }

    /// The identity of the windows the host makes besides its own (the tooltip): the top-level
    /// window's, a child placement's, or the program's name.
    var identityOfCreatedWindows: ApplicationIdentity {
        switch placement {
        case .topLevel(let identity): return identity
        case .child(_, _, _, let identity): return identity ?? .ofThisProcess
        }
    }

    /// Follows where the server says the window is (ConfigureNotify, ReparentNotify); see ``frame``.
    func recordPlacement(_ event: XEvent) {
        let root = connection.root
        let isTopLevel = properties != nil
        switch Int32(event.code) {
        case XCB_REPARENT_NOTIFY:
            let (parent, x, y) = event.withEvent(as: xcb_reparent_notify_event_t.self) { ($0.parent, Int($0.x), Int($0.y)) }
            surface.parent = parent
            if !isTopLevel || parent == root {
                surface.recordConfigured(position: (x, y), width: surface.frame.width, height: surface.frame.height)
            }
        case XCB_CONFIGURE_NOTIFY:
            let (x, y, width, height) = event.withEvent(as: xcb_configure_notify_event_t.self) {
                (Int($0.x), Int($0.y), Int($0.width), Int($0.height))
            }
            // A synthetic one is the window manager's, in root coordinates: only a top-level window's.
            let trusted = event.isSentByClient ? isTopLevel : (!isTopLevel || surface.parent == root)
            surface.recordConfigured(position: trusted ? (x, y) : nil, width: width, height: height)
        default:
            break
        }
    }

    /// Tells the window manager that the unmapped top-level window is withdrawn (ICCCM 4.1.4): a
    /// synthetic UnmapNotify sent to the root.
    private func announceWithdrawal() {
        var notify = xcb_unmap_notify_event_t()
        notify.response_type = UInt8(XCB_UNMAP_NOTIFY)
        notify.event = connection.root
        notify.window = surface.window
        notify.from_configure = 0
        // SendEvent always sends 32 bytes; the struct is shorter.
        var bytes = [CChar](repeating: 0, count: 32)
        withUnsafeBytes(of: &notify) { source in
            for (index, byte) in source.prefix(bytes.count).enumerated() { bytes[index] = CChar(bitPattern: byte) }
        }
        let mask = XCB_EVENT_MASK_SUBSTRUCTURE_NOTIFY.rawValue | XCB_EVENT_MASK_SUBSTRUCTURE_REDIRECT.rawValue
        _ = xcb_send_event(connection.handle, 0, connection.root, mask, bytes)
    }
}

extension ApplicationIdentity {
    /// The program's own identity, from its executable's name, for windows made without one.
    package static var ofThisProcess: ApplicationIdentity {
        let name = CommandLine.arguments.first?.split(separator: "/").last.map(String.init) ?? ""
        return ApplicationIdentity(instanceName: name.isEmpty ? "application" : name, title: "")
    }
}
