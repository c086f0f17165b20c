import BadgeCore
import CXCB

/// What an event says, in Swift types: read from the event in hand when asked, nothing copied
/// before. Windows, atoms and times are the X protocol's 32-bit values.
extension XEvent {
    /// A pointer event: a button pressed or released, or the pointer moved (or crossing a window's
    /// edge, for ``Kind/enter(_:)`` and ``Kind/leave(_:)``).
    public struct PointerEvent: Equatable, Sendable {
        /// The window the event was selected on (the one it is reported to).
        public var window: UInt32
        /// The child of ``window`` the pointer is in, or 0.
        public var child: UInt32
        /// The button (1 left, 2 middle, 3 right, 4 and 5 the wheel); 0 for motion and crossing.
        public var button: UInt8
        /// The position in ``window``, in device pixels.
        public var x: Int
        /// The position in ``window``, in device pixels.
        public var y: Int
        /// The position on the root window.
        public var rootX: Int
        /// The position on the root window.
        public var rootY: Int
        /// The modifier and button mask before the event (`XCB_MOD_MASK_*`, `XCB_BUTTON_MASK_*`).
        public var state: UInt16
        /// The server time of the event.
        public var time: UInt32
    }

    /// A key pressed or released. The symbol needs a keymap: ask the host
    /// (``ToolbarHost/keyPress(for:)``), whose keymap is the connection's.
    public struct KeyEvent: Equatable, Sendable {
        /// The window the event was reported to (the focus window, or the one under the pointer in it).
        public var window: UInt32
        /// The key's keycode (8…255).
        public var keycode: UInt8
        /// The modifier mask before the event (`XCB_MOD_MASK_*`).
        public var state: UInt16
        /// The server time of the event.
        public var time: UInt32
    }

    /// X's keyboard focus came to or left a window.
    public struct FocusEvent: Equatable, Sendable {
        /// The window that gained or lost the focus.
        public var window: UInt32
        /// `XCB_NOTIFY_MODE_*`: normal, or a grab starting or ending.
        public var mode: UInt8
        /// `XCB_NOTIFY_DETAIL_*`: how the focus moved relative to ``window`` (ancestor, inferior, pointer…).
        public var detail: UInt8
    }

    /// A window's geometry or stacking changed (ConfigureNotify).
    public struct Configure: Equatable, Sendable {
        /// The window the event was selected on: ``window`` itself (StructureNotify) or its parent
        /// (SubstructureNotify).
        public var event: UInt32
        /// The window that changed.
        public var window: UInt32
        /// The window's outer position in its parent, its inner size and its border, in device pixels.
        public var frame: PixelRect
        /// The border's width.
        public var borderWidth: Int
        /// The sibling just below it in the stack, or 0.
        public var aboveSibling: UInt32
        /// True for an override-redirect window (a menu, a tooltip): no window manager manages it.
        public var overrideRedirect: Bool
    }

    /// A window mapped, unmapped or destroyed (Map, Unmap, DestroyNotify).
    public struct Structure: Equatable, Sendable {
        /// The window the event was selected on: ``window`` itself, or its parent.
        public var event: UInt32
        /// The window mapped, unmapped or destroyed.
        public var window: UInt32
    }

    /// A window created as a child of one whose substructure is watched (CreateNotify).
    public struct Creation: Equatable, Sendable {
        /// The parent, the window the event was selected on.
        public var parent: UInt32
        /// The new window.
        public var window: UInt32
        /// Its position in the parent and its size.
        public var frame: PixelRect
        /// Its border's width.
        public var borderWidth: Int
        /// True for an override-redirect window.
        public var overrideRedirect: Bool
    }

    /// A window moved to another parent (ReparentNotify).
    public struct Reparenting: Equatable, Sendable {
        /// The window the event was selected on: ``window`` itself, or the old or new parent.
        public var event: UInt32
        /// The window that moved.
        public var window: UInt32
        /// Its new parent.
        public var parent: UInt32
        /// Its position in the new parent.
        public var x: Int
        /// Its position in the new parent.
        public var y: Int
    }

    /// A window property changed or was deleted (PropertyNotify).
    public struct PropertyChange: Equatable, Sendable {
        /// The window.
        public var window: UInt32
        /// The property's atom.
        public var atom: UInt32
        /// True when the property was deleted, false when it was set.
        public var deleted: Bool
        /// The server time of the change.
        public var time: UInt32
    }

    /// A message another client sent to a window (ClientMessage): WM_PROTOCOLS, XEmbed, a tray's.
    public struct ClientMessage: Equatable, Sendable {
        /// The window it was sent to.
        public var window: UInt32
        /// Its type, an atom (`WM_PROTOCOLS`, `_XEMBED`, …).
        public var type: UInt32
        /// 8, 16 or 32: how the 20 data bytes are to be read.
        public var format: UInt8
        /// The data as five 32-bit values (the usual format 32).
        public var data32: [UInt32]
    }

    /// An error reply to an unchecked request.
    public struct RequestError: Equatable, Sendable {
        /// The error code (3 BadWindow, 9 BadDrawable, …).
        public var code: UInt8
        /// The resource the failed request named.
        public var resource: UInt32
        /// The failed request's major opcode.
        public var majorOpcode: UInt8
        /// The failed request's minor opcode (for an extension's request).
        public var minorOpcode: UInt16
    }

    /// The event, typed: one case for each event an application commonly handles, with its fields.
    public enum Kind: Equatable, Sendable {
        /// Part of a window needs to be drawn again: the area, and how many Expose events follow
        /// for the same window (redraw once `remaining` is 0, or each area as it comes).
        case expose(window: UInt32, area: PixelRect, remaining: Int)
        /// A window's geometry or stacking changed.
        case configure(Configure)
        /// A window was mapped.
        case map(Structure)
        /// A window was unmapped.
        case unmap(Structure)
        /// A window was destroyed.
        case destroy(Structure)
        /// A child window was created.
        case create(Creation)
        /// A window moved to another parent.
        case reparent(Reparenting)
        /// A pointer button was pressed.
        case buttonPress(PointerEvent)
        /// A pointer button was released.
        case buttonRelease(PointerEvent)
        /// The pointer moved.
        case motion(PointerEvent)
        /// The pointer came into a window.
        case enter(PointerEvent)
        /// The pointer left a window.
        case leave(PointerEvent)
        /// A key was pressed.
        case keyPress(KeyEvent)
        /// A key was released.
        case keyRelease(KeyEvent)
        /// X's keyboard focus came to a window.
        case focusIn(FocusEvent)
        /// X's keyboard focus left a window.
        case focusOut(FocusEvent)
        /// A property changed.
        case property(PropertyChange)
        /// Another client sent a message.
        case clientMessage(ClientMessage)
        /// A request failed.
        case error(RequestError)
        /// Another event (an extension's, or one not listed): its ``XEvent/code``; read it with
        /// ``XEvent/withUnsafeEvent(_:)``.
        case other(code: UInt8)
    }

    /// The event, typed (read from the event now; nothing is kept).
    public var kind: Kind {
        switch Int32(code) {
        case 0:
            return withEvent(as: xcb_generic_error_t.self) {
                .error(RequestError(code: $0.error_code, resource: $0.resource_id, majorOpcode: $0.major_code, minorOpcode: $0.minor_code))
            }
        case XCB_EXPOSE:
            return withEvent(as: xcb_expose_event_t.self) {
                .expose(window: $0.window, area: PixelRect(x: Int($0.x), y: Int($0.y), width: Int($0.width), height: Int($0.height)),
                        remaining: Int($0.count))
            }
        case XCB_CONFIGURE_NOTIFY:
            return withEvent(as: xcb_configure_notify_event_t.self) {
                .configure(Configure(event: $0.event, window: $0.window,
                                     frame: PixelRect(x: Int($0.x), y: Int($0.y), width: Int($0.width), height: Int($0.height)),
                                     borderWidth: Int($0.border_width), aboveSibling: $0.above_sibling,
                                     overrideRedirect: $0.override_redirect != 0))
            }
        case XCB_MAP_NOTIFY:
            return withEvent(as: xcb_map_notify_event_t.self) { .map(Structure(event: $0.event, window: $0.window)) }
        case XCB_UNMAP_NOTIFY:
            return withEvent(as: xcb_unmap_notify_event_t.self) { .unmap(Structure(event: $0.event, window: $0.window)) }
        case XCB_DESTROY_NOTIFY:
            return withEvent(as: xcb_destroy_notify_event_t.self) { .destroy(Structure(event: $0.event, window: $0.window)) }
        case XCB_CREATE_NOTIFY:
            return withEvent(as: xcb_create_notify_event_t.self) {
                .create(Creation(parent: $0.parent, window: $0.window,
                                 frame: PixelRect(x: Int($0.x), y: Int($0.y), width: Int($0.width), height: Int($0.height)),
                                 borderWidth: Int($0.border_width), overrideRedirect: $0.override_redirect != 0))
            }
        case XCB_REPARENT_NOTIFY:
            return withEvent(as: xcb_reparent_notify_event_t.self) {
                .reparent(Reparenting(event: $0.event, window: $0.window, parent: $0.parent, x: Int($0.x), y: Int($0.y)))
            }
        case XCB_BUTTON_PRESS, XCB_BUTTON_RELEASE, XCB_MOTION_NOTIFY:
            // The three share one layout (xcb_button_press_event_t).
            let pointer = withEvent(as: xcb_button_press_event_t.self) {
                PointerEvent(window: $0.event, child: $0.child, button: Int32(code) == XCB_MOTION_NOTIFY ? 0 : $0.detail,
                             x: Int($0.event_x), y: Int($0.event_y), rootX: Int($0.root_x), rootY: Int($0.root_y),
                             state: $0.state, time: $0.time)
            }
            switch Int32(code) {
            case XCB_BUTTON_PRESS: return .buttonPress(pointer)
            case XCB_BUTTON_RELEASE: return .buttonRelease(pointer)
            default: return .motion(pointer)
            }
        case XCB_ENTER_NOTIFY, XCB_LEAVE_NOTIFY:
            let pointer = withEvent(as: xcb_enter_notify_event_t.self) {
                PointerEvent(window: $0.event, child: $0.child, button: 0, x: Int($0.event_x), y: Int($0.event_y),
                             rootX: Int($0.root_x), rootY: Int($0.root_y), state: $0.state, time: $0.time)
            }
            return Int32(code) == XCB_ENTER_NOTIFY ? .enter(pointer) : .leave(pointer)
        case XCB_KEY_PRESS, XCB_KEY_RELEASE:
            let key = withEvent(as: xcb_key_press_event_t.self) {
                KeyEvent(window: $0.event, keycode: $0.detail, state: $0.state, time: $0.time)
            }
            return Int32(code) == XCB_KEY_PRESS ? .keyPress(key) : .keyRelease(key)
        case XCB_FOCUS_IN, XCB_FOCUS_OUT:
            let focus = withEvent(as: xcb_focus_in_event_t.self) { FocusEvent(window: $0.event, mode: $0.mode, detail: $0.detail) }
            return Int32(code) == XCB_FOCUS_IN ? .focusIn(focus) : .focusOut(focus)
        case XCB_PROPERTY_NOTIFY:
            return withEvent(as: xcb_property_notify_event_t.self) {
                .property(PropertyChange(window: $0.window, atom: $0.atom, deleted: $0.state == UInt8(XCB_PROPERTY_DELETE.rawValue),
                                         time: $0.time))
            }
        case XCB_CLIENT_MESSAGE:
            return withEvent(as: xcb_client_message_event_t.self) { message in
                var data = message.data
                let values = withUnsafeBytes(of: &data) { Array($0.bindMemory(to: UInt32.self).prefix(5)) }
                return .clientMessage(ClientMessage(window: message.window, type: message.type, format: message.format, data32: values))
            }
        default:
            return .other(code: code)
        }
    }

    /// Reads the event's bytes inside `body`, for what ``kind`` does not type (an extension's
    /// event: RandR, XKB, SYNC). The pointer is an `xcb_generic_event_t` (32 bytes, more for
    /// GenericEvent) and is valid only inside `body`: do not keep it.
    public func withUnsafeEvent<Result>(_ body: (UnsafeRawPointer) throws -> Result) rethrows -> Result {
        try body(UnsafeRawPointer(raw))
    }

    /// Wraps an event your program read itself from an adopted connection
    /// (``XConnection/withAdopted(unsafeConnection:screen:displayName:_:)``, `xcb_poll_for_event` or
    /// `xcb_wait_for_event`),
    /// so that the hosts can take it (``ToolbarHost/handle(_:)``) and you can read it typed.
    ///
    /// The event becomes this object's: it is freed (with `free`, as XCB's events are) when the
    /// object goes. Do not free it yourself, and do not use the pointer after this call.
    public convenience init(adopting event: UnsafeMutableRawPointer) {
        self.init(taking: event.assumingMemoryBound(to: xcb_generic_event_t.self))
    }
}
