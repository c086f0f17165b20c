import CXCB
import Glibc

/// What a connection's setup says about one screen: its root, size, depth, the visual windows use,
/// and the image format. Read the same way for a connection BadgeKit opened and for one it adopted.
package struct ScreenSetup {
    /// Why a setup cannot be used: one phrase for ``X11Error`` messages.
    package struct Failure: Error {
        /// "it has no screen 2".
        package var reason: String
    }

    package var root: xcb_window_t
    package var width: Int
    package var height: Int
    package var rootDepth: UInt8
    package var rootVisual: xcb_visualid_t
    package var imageByteOrderIsLSB: Bool
    package var bitsPerPixel: Int
    package var visualChoice: Result<WindowVisual, X11Error>
    package var maximumRequestBytes: Int
    /// How many screens the server has.
    package var screenCount: Int

    /// Reads screen `screenNumber` of `connection`'s setup (the connection must work).
    package init(connection: OpaquePointer, screenNumber: Int) throws(Failure) {
        guard let setup = xcb_get_setup(connection) else { throw Failure(reason: "the server sent no setup") }
        var iterator = xcb_setup_roots_iterator(setup)
        screenCount = Int(iterator.rem)
        var index = 0
        while index < screenNumber, iterator.rem > 0 {
            xcb_screen_next(&iterator)
            index += 1
        }
        guard screenNumber >= 0, iterator.rem > 0, let screen = iterator.data else {
            throw Failure(reason: "it has no screen \(screenNumber) (it has \(screenCount))")
        }
        root = screen.pointee.root
        width = Int(screen.pointee.width_in_pixels)
        height = Int(screen.pointee.height_in_pixels)
        rootDepth = screen.pointee.root_depth
        rootVisual = screen.pointee.root_visual
        imageByteOrderIsLSB = setup.pointee.image_byte_order == UInt8(XCB_IMAGE_ORDER_LSB_FIRST.rawValue)
        var bpp = 32
        var formats = xcb_setup_pixmap_formats_iterator(setup)
        while formats.rem > 0, let format = formats.data {
            if format.pointee.depth == screen.pointee.root_depth { bpp = Int(format.pointee.bits_per_pixel) }
            xcb_format_next(&formats)
        }
        bitsPerPixel = bpp
        visualChoice = XConnection.chooseVisual(setup: setup, screen: screen)
        maximumRequestBytes = Int(xcb_get_maximum_request_length(connection)) * 4
    }
}

extension XConnection {
    /// Runs `body` with an ``XConnection`` over an XCB connection your program already has, so
    /// that BadgeKit's windows share it instead of opening a second one.
    ///
    /// - Parameters:
    ///   - connection: an `xcb_connection_t *` that works (`xcb_connection_has_error` is 0).
    ///     You keep owning it: BadgeKit never disconnects it, and you disconnect it after this call
    ///     returns, never during it.
    ///   - screen: the screen to use, as `xcb_connect` reported it.
    ///   - displayName: the display's name for messages (":0"); "the adopted connection" when nil.
    ///   - body: everything that uses the adopted connection: hosts and windows on it are made,
    ///     run and released inside.
    ///
    /// Why a scope, rather than an initializer with a contract: the connection is borrowed, and the
    /// scope says for how long. Everything made on it (``ToolbarHost``, ``ApplicationWindow``, their
    /// windows, buffers and keymap) must be released before `body` returns; the ``XConnection``
    /// itself is checked when it returns, and one that escaped (kept by a host or a loop that
    /// outlives the call) stops the program with a message naming this contract, instead of
    /// reaching a connection you may have closed. When `body` returns, what BadgeKit made on the
    /// connection is destroyed or freed and the requests are flushed; the events it selected on
    /// the root window (property and structure changes) and XKB's stay selected.
    ///
    /// The events are yours to read: read them with ``nextEvent()`` (or your own
    /// `xcb_poll_for_event`) and hand each to the hosts as you would on a connection of
    /// BadgeKit's (``ToolbarHost/handle(_:)``). Throws ``X11Error/connectionLost(display:reason:)``
    /// for a broken connection, ``X11Error/unavailable(_:reason:)`` for a screen the server does
    /// not have, and what `body` throws.
    public static func withAdopted<Result>(unsafeConnection connection: OpaquePointer, screen: Int = 0,
                                           displayName: String? = nil,
                                           _ body: (XConnection) throws -> Result) throws -> Result {
        let name = displayName ?? "the adopted connection"
        let status = xcb_connection_has_error(connection)
        guard status == 0 else { throw X11Error.connectionLost(display: name, reason: describe(connectionError: status)) }
        let setup: ScreenSetup
        do {
            setup = try ScreenSetup(connection: connection, screenNumber: screen)
        } catch {
            throw X11Error.unavailable("screen \(screen) of \(name)", reason: error.reason)
        }
        var adopted = XConnection(handle: connection, displayName: name, screen: setup, ownsConnection: false)
        defer {
            // A use of the connection after the caller closed it would read freed memory: stop here instead.
            if !isKnownUniquelyReferenced(&adopted) {
                preconditionFailure("""
                    BadgeKit: an XConnection adopted with withAdopted(unsafeConnection:) is still in use after its \
                    scope ended (a ToolbarHost, ApplicationWindow or EventLoop holding it was kept); release them inside the scope
                    """)
            }
        }
        return try body(adopted)
    }

    /// Adds `mask` to the events this client selects on `window`, keeping what it (or code of the
    /// application sharing the connection) selected already: ChangeWindowAttributes replaces a
    /// client's whole event mask. Throws ``X11Error/noSuchWindow(_:)`` when the window is gone.
    package func addEventMask(_ mask: UInt32, to window: xcb_window_t) throws(X11Error) {
        var error: UnsafeMutablePointer<xcb_generic_error_t>?
        guard let attributes = xcb_get_window_attributes_reply(handle, xcb_get_window_attributes(handle, window), &error) else {
            let code = error?.pointee.error_code
            free(error)
            if let failure { throw failure }
            if code == XErrorDescription.badWindow { throw .noSuchWindow(window) }
            throw .requestRefused(request: "read the attributes of window 0x\(String(window, radix: 16))",
                                  error: code.map(XErrorDescription.errorName) ?? "no reply")
        }
        let current = attributes.pointee.your_event_mask
        free(attributes)
        guard current & mask != mask else { return }
        let values: [UInt32] = [current | mask]
        if let refusal = xcb_request_check(handle, xcb_change_window_attributes_checked(handle, window, XCB_CW_EVENT_MASK.rawValue, values)) {
            let code = refusal.pointee.error_code
            free(refusal)
            if code == XErrorDescription.badWindow { throw .noSuchWindow(window) }
            throw .requestRefused(request: "select events on window 0x\(String(window, radix: 16))", error: XErrorDescription.errorName(code))
        }
    }
}
