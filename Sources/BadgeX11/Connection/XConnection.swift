import CXCB
import CXCBShm
import Glibc

/// An open connection to an X server and its default screen.
///
/// Owns the `xcb_connection_t` it opened (``init(display:)``) and closes it when released; a
/// connection your program opened itself is borrowed for a scope instead
/// (``withAdopted(unsafeConnection:screen:displayName:_:)``) and never closed. Not Sendable: it
/// belongs to the one thread that runs the event loop. Code outside BadgeKit reaches the raw
/// connection only inside ``withUnsafeConnection(_:)``.
public final class XConnection {
    /// The raw connection, for BadgeKit's own modules on the owning thread.
    package let handle: OpaquePointer
    /// The display name it connected to, for messages (":0").
    public let displayName: String
    /// The root window of the default screen.
    public let root: UInt32
    /// The default screen's size in pixels.
    public let screenWidth: Int
    /// The default screen's size in pixels.
    public let screenHeight: Int
    /// The default screen's depth and visual, for windows and images.
    package let rootDepth: UInt8
    package let rootVisual: xcb_visualid_t
    /// True when the server expects image data least-significant byte first (PutImage converts otherwise).
    package let imageByteOrderIsLSB: Bool
    /// Bits per pixel of images at the root depth.
    package let bitsPerPixel: Int
    /// The visual windows are created with (see ``WindowVisual``), or why the screen has none.
    private let visualChoice: Result<WindowVisual, X11Error>
    /// The colormap of a visual that is not the default one, made with the first window.
    private var visualColormap: xcb_colormap_t?
    /// The largest request the server accepts, in bytes.
    package let maximumRequestBytes: Int

    /// False for a connection adopted with ``withAdopted(unsafeConnection:screen:displayName:_:)``:
    /// the caller owns it, and BadgeKit never disconnects it.
    package let ownsConnection: Bool

    /// Connects to `display` (nil: `$DISPLAY`). Throws ``X11Error/noDisplay`` or
    /// ``X11Error/cannotOpenDisplay(_:reason:)`` naming the display and the reason.
    public convenience init(display: String? = nil) throws(X11Error) {
        let name = display ?? Environment.value("DISPLAY") ?? ""
        guard !name.isEmpty else { throw .noDisplay }
        var screenNumber: Int32 = 0
        guard let connection = xcb_connect(name, &screenNumber) else {
            throw .cannotOpenDisplay(name, reason: "")
        }
        let status = xcb_connection_has_error(connection)
        guard status == 0 else {
            xcb_disconnect(connection)
            throw .cannotOpenDisplay(name, reason: Self.describe(connectionError: status))
        }
        let screen: ScreenSetup
        do {
            screen = try ScreenSetup(connection: connection, screenNumber: Int(screenNumber))
        } catch {
            xcb_disconnect(connection)
            throw .cannotOpenDisplay(name, reason: error.reason)
        }
        self.init(handle: connection, displayName: name, screen: screen, ownsConnection: true)
    }

    /// The one place both ways in (connecting, adopting) set the connection up.
    package init(handle connection: OpaquePointer, displayName name: String, screen: ScreenSetup, ownsConnection: Bool) {
        handle = connection
        displayName = name
        self.ownsConnection = ownsConnection
        root = screen.root
        screenWidth = screen.width
        screenHeight = screen.height
        rootDepth = screen.rootDepth
        rootVisual = screen.rootVisual
        imageByteOrderIsLSB = screen.imageByteOrderIsLSB
        bitsPerPixel = screen.bitsPerPixel
        visualChoice = screen.visualChoice
        maximumRequestBytes = screen.maximumRequestBytes
    }

    deinit {
        if ownsConnection {
            xcb_disconnect(handle)
        } else {
            // The caller's connection lives on: free what the connection itself made, and send
            // what the released windows and buffers asked for (their destruction) now.
            if let visualColormap { xcb_free_colormap(handle, visualColormap) }
            _ = xcb_flush(handle)
        }
    }

    /// The visual the shell's windows use, by ``WindowVisual``'s policy. Throws
    /// ``X11Error/unavailable(_:reason:)`` naming what the screen offers when none can be drawn in
    /// (a depth-8 screen with only colour-mapped visuals): the connection itself stays usable.
    package func windowVisual() throws(X11Error) -> WindowVisual {
        try visualChoice.get()
    }

    static func chooseVisual(setup: UnsafePointer<xcb_setup_t>, screen: UnsafeMutablePointer<xcb_screen_t>)
        -> Result<WindowVisual, X11Error> {
        var formats: [(depth: Int, bitsPerPixel: Int, scanlinePad: Int)] = []
        var formatIterator = xcb_setup_pixmap_formats_iterator(setup)
        while formatIterator.rem > 0, let format = formatIterator.data {
            formats.append((Int(format.pointee.depth), Int(format.pointee.bits_per_pixel), Int(format.pointee.scanline_pad)))
            xcb_format_next(&formatIterator)
        }
        var visuals: [VisualDescription] = []
        var depths = xcb_screen_allowed_depths_iterator(screen)
        while depths.rem > 0, let depth = depths.data {
            var visualIterator = xcb_depth_visuals_iterator(depth)
            while visualIterator.rem > 0, let v = visualIterator.data {
                visuals.append(VisualDescription(id: v.pointee.visual_id, visualClass: v.pointee._class, depth: Int(depth.pointee.depth),
                                                 redMask: v.pointee.red_mask, greenMask: v.pointee.green_mask, blueMask: v.pointee.blue_mask))
                xcb_visualtype_next(&visualIterator)
            }
            xcb_depth_next(&depths)
        }
        return WindowVisual.choose(rootVisual: screen.pointee.root_visual, visuals: visuals, pixmapFormats: formats,
                                   leastSignificantByteFirst: setup.pointee.image_byte_order == UInt8(XCB_IMAGE_ORDER_LSB_FIRST.rawValue))
    }

    /// Calls `body` with the raw `xcb_connection_t`, valid only during the call: for requests of
    /// your own on this connection. Do not keep the pointer or disconnect it.
    public func withUnsafeConnection<Result>(_ body: (OpaquePointer) throws -> Result) rethrows -> Result {
        try body(handle)
    }

    /// The connection's file descriptor, to wait on with poll() in your own loop.
    public var fileDescriptor: Int32 { xcb_get_file_descriptor(handle) }

    /// Non-zero when the connection is broken (server gone, protocol error): `xcb_connection_has_error`.
    public var errorStatus: Int32 { xcb_connection_has_error(handle) }

    /// The error for a broken connection, or nil while it works.
    public var failure: X11Error? {
        let status = errorStatus
        guard status != 0 else { return nil }
        return .connectionLost(display: displayName, reason: Self.describe(connectionError: status))
    }

    /// Sends buffered requests; throws ``X11Error/connectionLost(display:reason:)`` when the connection is broken.
    public func flush() throws(X11Error) {
        if xcb_flush(handle) <= 0 {
            throw failure ?? .connectionLost(display: displayName, reason: Self.describe(connectionError: 1))
        }
    }

    /// The next event, reading the socket if nothing is queued; nil when none has arrived.
    ///
    /// Events that BadgeKit read on your behalf while it waited for the server (a host's
    /// ``ToolbarHost/synchronize(_:)``, start-up, a round trip) and that no host took come first, in
    /// the order they arrived: nothing of yours is lost to a host.
    public func nextEvent() -> XEvent? {
        router.takeSetAside() ?? xcb_poll_for_event(handle).map(XEvent.init(taking:))
    }

    /// The next event already read, without reading the socket: the events set aside for you first,
    /// then XCB's queue. Replies can pull events into the queue without making the socket readable:
    /// check this before sleeping in poll().
    public func nextQueuedEvent() -> XEvent? {
        router.takeSetAside() ?? xcb_poll_for_queued_event(handle).map(XEvent.init(taking:))
    }

    /// True while events read on your behalf wait for ``nextEvent()``: do not sleep in poll() then
    /// (``ToolbarHost/pollTimeout`` is 0 while it is true).
    public var hasEventsSetAside: Bool { router.hasSetAside }

    /// The next event from the server itself, skipping what was set aside (the hosts' own reads).
    package func nextEventFromServer() -> XEvent? {
        xcb_poll_for_event(handle).map(XEvent.init(taking:))
    }

    /// The next event in XCB's queue, without reading the socket, skipping what was set aside.
    package func nextQueuedEventFromServer() -> XEvent? {
        xcb_poll_for_queued_event(handle).map(XEvent.init(taking:))
    }

    /// Which host each event belongs to, and the events set aside for the caller.
    package let router = EventRouter()

    /// The desktop session its hosts share (``DesktopSession/session(of:)``), while one lives.
    package weak var session: DesktopSession?

    /// A fresh resource id (window, pixmap, GC).
    package func generateID() -> UInt32 { xcb_generate_id(handle) }

    /// Waits until the server has processed every request sent so far (a GetInputFocus round trip).
    /// Events that arrive meanwhile stay queued for ``nextQueuedEvent()``.
    public func roundTrip() {
        let cookie = xcb_get_input_focus(handle)
        free(xcb_get_input_focus_reply(handle, cookie, nil))
    }

    /// Interns atoms in one batch: every request is sent before any reply is awaited.
    package func internAtoms(_ names: [String]) throws(X11Error) -> [String: xcb_atom_t] {
        let cookies = names.map { name in
            xcb_intern_atom(handle, 0, UInt16(name.utf8.count), name)
        }
        var atoms: [String: xcb_atom_t] = [:]
        for (index, (name, cookie)) in zip(names, cookies).enumerated() {
            var error: UnsafeMutablePointer<xcb_generic_error_t>?
            guard let reply = xcb_intern_atom_reply(handle, cookie, &error) else {
                let code = error?.pointee.error_code
                free(error)
                // Replies still on their way would otherwise stay in XCB's queue.
                for pending in cookies[(index + 1)...] { xcb_discard_reply(handle, pending.sequence) }
                if let failure { throw failure }
                throw .requestRefused(request: "intern atom \(name)", error: code.map(XErrorDescription.errorName) ?? "no reply")
            }
            atoms[name] = reply.pointee.atom
            free(reply)
        }
        return atoms
    }

    /// Sends a client message to the root window with the substructure masks, as EWMH asks for
    /// requests to the window manager (and for answering its _NET_WM_PING).
    package func sendToRoot(_ message: xcb_client_message_event_t) {
        var message = message
        let mask = XCB_EVENT_MASK_SUBSTRUCTURE_NOTIFY.rawValue | XCB_EVENT_MASK_SUBSTRUCTURE_REDIRECT.rawValue
        withUnsafeBytes(of: &message) { bytes in
            _ = xcb_send_event(handle, 0, root, mask, bytes.baseAddress?.assumingMemoryBound(to: CChar.self))
        }
    }

    /// Replaces an 8-bit property of `window`.
    package func setProperty(_ property: xcb_atom_t, of window: xcb_window_t, type: xcb_atom_t, bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { buffer in
            _ = xcb_change_property(handle, UInt8(XCB_PROP_MODE_REPLACE.rawValue), window, property, type, 8,
                                    UInt32(buffer.count), buffer.baseAddress)
        }
    }

    /// Replaces a 32-bit property of `window`.
    package func setProperty32(_ property: xcb_atom_t, of window: xcb_window_t, type: xcb_atom_t, values: [UInt32]) {
        values.withUnsafeBufferPointer { buffer in
            _ = xcb_change_property(handle, UInt8(XCB_PROP_MODE_REPLACE.rawValue), window, property, type, 32,
                                    UInt32(buffer.count), buffer.baseAddress)
        }
    }

    /// Creates an input-output window at (`x`, `y`) of `parent` (the root when nil) in
    /// ``windowVisual()``, checked: throws ``X11Error/unavailable(_:reason:)`` when the screen has
    /// no usable visual, ``X11Error/noSuchWindow(_:)`` when the parent does not exist, and
    /// ``X11Error/requestRefused(request:error:)`` naming `what` for any other refusal.
    /// `values` follow `mask`'s bit order. A visual other than the default one gets its colormap
    /// and a border pixel added (a window cannot copy them from a parent of another visual).
    package func createWindow(_ what: String, parent: xcb_window_t? = nil, x: Int = 0, y: Int = 0, width: Int, height: Int,
                              mask: UInt32, values: [UInt32]) throws(X11Error) -> xcb_window_t {
        let visual = try windowVisual()
        var mask = mask, values = values
        if visual.needsColormap {
            let colormap = try colormap(for: visual)
            (mask, values) = Self.adding([(XCB_CW_BORDER_PIXEL.rawValue, 0), (XCB_CW_COLORMAP.rawValue, colormap)], to: mask, values)
        }
        let window = generateID()
        let cookie = xcb_create_window_checked(handle, visual.depth, window, parent ?? root,
                                               Int16(clamping: x), Int16(clamping: y),
                                               UInt16(clamping: max(width, 1)), UInt16(clamping: max(height, 1)), 0,
                                               UInt16(XCB_WINDOW_CLASS_INPUT_OUTPUT.rawValue), visual.id, mask, values)
        if let error = xcb_request_check(handle, cookie) {
            let code = error.pointee.error_code
            free(error)
            if let parent, code == XErrorDescription.badWindow { throw .noSuchWindow(parent) }
            throw .requestRefused(request: "create \(what)", error: XErrorDescription.errorName(code))
        }
        if let failure { throw failure }
        return window
    }

    /// The colormap for windows of `visual`, created (checked) the first time.
    private func colormap(for visual: WindowVisual) throws(X11Error) -> xcb_colormap_t {
        if let visualColormap { return visualColormap }
        let colormap = generateID()
        let cookie = xcb_create_colormap_checked(handle, UInt8(XCB_COLORMAP_ALLOC_NONE.rawValue), colormap, root, visual.id)
        if let error = xcb_request_check(handle, cookie) {
            let code = error.pointee.error_code
            free(error)
            throw .requestRefused(request: "create a colormap for visual 0x\(String(visual.id, radix: 16))",
                                  error: XErrorDescription.errorName(code))
        }
        visualColormap = colormap
        return colormap
    }

    /// A CreateWindow value list with `extra` (mask bit, value) pairs merged in, in ascending bit
    /// order as the protocol wants; a bit already in `mask` keeps the caller's value.
    static func adding(_ extra: [(bit: UInt32, value: UInt32)], to mask: UInt32, _ values: [UInt32]) -> (UInt32, [UInt32]) {
        var pairs: [(bit: UInt32, value: UInt32)] = []
        var remaining = values[...]
        for shift in 0..<UInt32.bitWidth where mask & (1 << UInt32(shift)) != 0 {
            guard let value = remaining.popFirst() else { break }
            pairs.append((1 << UInt32(shift), value))
        }
        for pair in extra where mask & pair.bit == 0 { pairs.append(pair) }
        pairs.sort { $0.bit < $1.bit }
        return (pairs.reduce(0) { $0 | $1.bit }, pairs.map(\.value))
    }

    /// Creates a graphics context for PutImage into `drawable` (no GraphicsExpose events).
    package func createCopyGC(for drawable: xcb_drawable_t) -> xcb_gcontext_t {
        let gc = generateID()
        let values: [UInt32] = [0]
        xcb_create_gc(handle, gc, drawable, XCB_GC_GRAPHICS_EXPOSURES.rawValue, values)
        return gc
    }

    /// MIT-SHM on this connection: its completion event code, or nil when window updates go over
    /// the socket (no extension, a window visual that does not take cairo's pixels unchanged, or
    /// `BADGEKIT_SHM=0`). Asked of the server once, the first time a window buffer is made.
    package lazy var sharedMemoryCompletionEvent: UInt8? = {
        if Environment.value("BADGEKIT_SHM") == "0" { return nil }
        guard let visual = try? visualChoice.get(), visual.format.matchesCairo else { return nil }
        let name = "MIT-SHM"
        guard let query = xcb_query_extension_reply(handle, xcb_query_extension(handle, UInt16(name.utf8.count), name), nil) else {
            return nil
        }
        defer { free(query) }
        guard query.pointee.present != 0 else { return nil }
        guard let version = xcb_shm_query_version_reply(handle, xcb_shm_query_version(handle), nil) else { return nil }
        free(version)
        return query.pointee.first_event &+ UInt8(XCB_SHM_COMPLETION)
    }()

    /// Fault injection for tests: sends a request every server refuses (FreePixmap of None, BadPixmap).
    package func sendRefusedRequest() {
        xcb_free_pixmap(handle, xcb_pixmap_t(XCB_PIXMAP_NONE.rawValue))
        _ = xcb_flush(handle)
    }

    /// A human-readable reason for an `xcb_connection_has_error` status, by XCB's own names.
    public static func describe(connectionError status: Int32) -> String {
        switch status {
        case 0: return "no error"
        case XCB_CONN_ERROR: return "connection refused or broken: is an X server running there?"
        case XCB_CONN_CLOSED_EXT_NOTSUPPORTED: return "an X extension is not supported"
        case XCB_CONN_CLOSED_MEM_INSUFFICIENT: return "out of memory"
        case XCB_CONN_CLOSED_REQ_LEN_EXCEED: return "request too long"
        case XCB_CONN_CLOSED_PARSE_ERR: return "cannot parse the display name"
        case XCB_CONN_CLOSED_INVALID_SCREEN: return "no such screen on that display"
        case XCB_CONN_CLOSED_FDPASSING_FAILED: return "file descriptor passing failed"
        default: return "X connection error \(status)"
        }
    }
}
