import BadgeCore
import CXCB
import CXCBDamage
import CXCBSync
import Glibc

/// The screen watched from outside, the same way for every program the benchmark runs: a DAMAGE
/// object on the root window reports every update anywhere on the screen, SubstructureNotify on
/// the root reports top-level windows being mapped, and GetImage reads the pixels back.
extension XTestClient {
    /// What the screen watch saw.
    public enum ScreenEvent: Equatable, Sendable {
        /// A top-level window (a child of the root) was mapped.
        case mapped(UInt32)
        /// Something was drawn on the screen.
        case damaged
        /// Any other event.
        case other
    }

    /// Starts watching the screen: SubstructureNotify on the root, and a DAMAGE object on the root
    /// reporting raw rectangles. Call once per client.
    public func watchScreen() throws {
        let version = try reply("DAMAGE QueryVersion") {
            xcb_damage_query_version_reply($0, xcb_damage_query_version($0, 1, 1), $1)
        }
        free(version)
        let values: [UInt32] = [XCB_EVENT_MASK_SUBSTRUCTURE_NOTIFY.rawValue]
        let change = xcb_change_window_attributes_checked(connection, root, XCB_CW_EVENT_MASK.rawValue, values)
        if let error = xcb_request_check(connection, change) {
            free(error)
            throw HarnessError("cannot select SubstructureNotify on the root window of \(display)")
        }
        let damage = xcb_generate_id(connection)
        let create = xcb_damage_create_checked(connection, damage, root, UInt8(XCB_DAMAGE_REPORT_LEVEL_RAW_RECTANGLES.rawValue))
        if let error = xcb_request_check(connection, create) {
            free(error)
            throw HarnessError("cannot create a DAMAGE object on the root window of \(display)")
        }
        damageFirstEvent = try damageExtensionFirstEvent()
    }

    private func damageExtensionFirstEvent() throws -> UInt8 {
        let name = "DAMAGE"
        let query = try reply("QueryExtension(DAMAGE)") {
            xcb_query_extension_reply($0, xcb_query_extension($0, UInt16(name.utf8.count), name), $1)
        }
        defer { free(query) }
        guard query.pointee.present != 0 else { throw HarnessError("the X server at \(display) has no DAMAGE extension") }
        return query.pointee.first_event
    }

    /// The next screen event, waiting at most `timeout` seconds; nil on timeout.
    public func nextScreenEvent(timeout: Double) throws -> ScreenEvent? {
        let deadline = Deadline(seconds: timeout)
        while true {
            if let event = xcb_poll_for_event(connection) {
                defer { free(event) }
                let code = event.pointee.response_type & 0x7f
                if code == UInt8(XCB_MAP_NOTIFY) {
                    let map = UnsafeMutableRawPointer(event).assumingMemoryBound(to: xcb_map_notify_event_t.self).pointee
                    return map.event == root ? .mapped(map.window) : .other
                }
                if let first = damageFirstEvent, code == first &+ UInt8(XCB_DAMAGE_NOTIFY) { return .damaged }
                return .other
            }
            if xcb_connection_has_error(connection) != 0 { throw HarnessError("the connection to \(display) broke") }
            if deadline.hasPassed { return nil }
            var descriptors = [pollfd(fd: xcb_get_file_descriptor(connection), events: Int16(POLLIN), revents: 0)]
            _ = poll(&descriptors, 1, max(1, deadline.remainingMilliseconds))
        }
    }

    /// Waits until `condition` (typically a GetImage check) holds, evaluating it now and after each
    /// batch of screen updates; returns when it first held, as seconds since `start`, and the time
    /// the first top-level window was mapped in the meantime (if one was). Throws on timeout.
    public func waitForScreen(since start: ContinuousClock.Instant, timeout: Double = 10, what: String,
                              until condition: () throws -> Bool) throws -> (met: Double, mapped: Double?) {
        let deadline = Deadline(seconds: timeout)
        var mapped: Double?
        while true {
            if try condition() { return (secondsSince(start), mapped) }
            // Wait for the next update, then take every one already queued before looking again.
            guard let first = try nextScreenEvent(timeout: Double(deadline.remainingMilliseconds) / 1000) else {
                throw HarnessError("timed out after \(timeout) s waiting for \(what)")
            }
            var event: ScreenEvent? = first
            while let seen = event {
                if case .mapped = seen, mapped == nil { mapped = secondsSince(start) }
                event = try nextScreenEvent(timeout: 0)
            }
        }
    }
}

extension XTestClient {
    /// The atoms of the PropertyNotify events `window` gets (after `selectPropertyChanges`), in
    /// order, until none has come for `quiet` seconds (or `timeout` passes): how often a program
    /// rewrote its properties.
    public func propertyNotifications(window: UInt32, quiet: Double, timeout: Double = 10) throws -> [UInt32] {
        var atoms: [UInt32] = []
        let deadline = Deadline(seconds: timeout)
        var lastSeen = ContinuousClock.now
        while !deadline.hasPassed && secondsSince(lastSeen) < quiet {
            if let event = xcb_poll_for_event(connection) {
                defer { free(event) }
                if event.pointee.response_type & 0x7f == UInt8(XCB_PROPERTY_NOTIFY) {
                    let notify = UnsafeMutableRawPointer(event).assumingMemoryBound(to: xcb_property_notify_event_t.self).pointee
                    if notify.window == window {
                        atoms.append(notify.atom)
                        lastSeen = ContinuousClock.now
                    }
                }
                continue
            }
            if hasConnectionError { throw HarnessError("connection to \(display) broke") }
            var descriptors = [pollfd(fd: xcb_get_file_descriptor(connection), events: Int16(POLLIN), revents: 0)]
            _ = poll(&descriptors, 1, 10)
        }
        return atoms
    }
}

extension XTestClient {
    /// Starts receiving the startup-notification messages sent to the root window (they go to
    /// clients that select PropertyChange on it).
    public func watchStartupNotifications() throws {
        let values: [UInt32] = [XCB_EVENT_MASK_PROPERTY_CHANGE.rawValue | XCB_EVENT_MASK_SUBSTRUCTURE_NOTIFY.rawValue]
        let change = xcb_change_window_attributes_checked(connection, root, XCB_CW_EVENT_MASK.rawValue, values)
        if let error = xcb_request_check(connection, change) {
            free(error)
            throw HarnessError("cannot select PropertyChange on the root window of \(display)")
        }
    }

    /// The next whole startup-notification message (the text of _NET_STARTUP_INFO_BEGIN and the
    /// _NET_STARTUP_INFO parts that follow, up to its NUL) and the window that sent it; nil on timeout.
    public func nextStartupNotification(timeout: Double) throws -> (text: String, window: UInt32)? {
        let begin = try atom("_NET_STARTUP_INFO_BEGIN"), more = try atom("_NET_STARTUP_INFO")
        var bytes: [UInt8] = []
        var started = false
        let deadline = Deadline(seconds: timeout)
        while !deadline.hasPassed {
            if let event = xcb_poll_for_event(connection) {
                defer { free(event) }
                guard event.pointee.response_type & 0x7f == UInt8(XCB_CLIENT_MESSAGE) else { continue }
                let message = UnsafeMutableRawPointer(event).assumingMemoryBound(to: xcb_client_message_event_t.self).pointee
                guard message.format == 8, message.type == begin || (started && message.type == more) else { continue }
                if message.type == begin { bytes = []; started = true }
                var data = message.data
                let chunk = withUnsafeBytes(of: &data) { Array($0.prefix(20)) }
                if let end = chunk.firstIndex(of: 0) {
                    bytes += chunk[..<end]
                    return (String(decoding: bytes, as: UTF8.self), message.window)
                }
                bytes += chunk
                continue
            }
            if hasConnectionError { throw HarnessError("connection to \(display) broke") }
            var descriptors = [pollfd(fd: xcb_get_file_descriptor(connection), events: Int16(POLLIN), revents: 0)]
            _ = poll(&descriptors, 1, max(1, deadline.remainingMilliseconds))
        }
        return nil
    }
}

extension XTestClient {
    /// Sends `_NET_WM_SYNC_REQUEST` with `value` to `window`, as a compositing window manager does
    /// before it resizes the window.
    public func sendSyncRequest(window: UInt32, value: UInt64) throws {
        let protocols = try atom("WM_PROTOCOLS"), request = try atom("_NET_WM_SYNC_REQUEST")
        var event = xcb_client_message_event_t()
        event.response_type = UInt8(XCB_CLIENT_MESSAGE)
        event.format = 32
        event.window = window
        event.type = protocols
        event.data.data32 = (request, 0, UInt32(truncatingIfNeeded: value), UInt32(truncatingIfNeeded: value >> 32), 0)
        withUnsafeBytes(of: &event) { raw in
            _ = xcb_send_event(connection, 0, window, 0, raw.baseAddress?.assumingMemoryBound(to: CChar.self))
        }
        try sync()
    }

    /// The value of the SYNC counter named by `window`'s `_NET_WM_SYNC_REQUEST_COUNTER`, or nil
    /// when it has none.
    public func syncCounterValue(window: UInt32) throws -> UInt64? {
        let ids = try cardinals(window: window, name: "_NET_WM_SYNC_REQUEST_COUNTER")
        guard let counter = ids.first else { return nil }
        let version = try reply("SYNC Initialize") { xcb_sync_initialize_reply($0, xcb_sync_initialize($0, 3, 1), $1) }
        free(version)
        let value = try reply("SYNC QueryCounter") { xcb_sync_query_counter_reply($0, xcb_sync_query_counter($0, counter), $1) }
        defer { free(value) }
        return UInt64(UInt32(bitPattern: value.pointee.counter_value.hi)) << 32 | UInt64(value.pointee.counter_value.lo)
    }
}

extension XTestClient {
    /// The window owning the selection `name` (such as "_XSETTINGS_S0"), or 0 when none does.
    public func selectionOwner(_ name: String) throws -> UInt32 {
        let selection = try atom(name)
        let owner = try reply("GetSelectionOwner(\(name))") {
            xcb_get_selection_owner_reply($0, xcb_get_selection_owner($0, selection), $1)
        }
        defer { free(owner) }
        return owner.pointee.owner
    }
}
