import BadgeCore
import CXCB
import CXCBRandR
import Glibc

/// The screen's monitors through RandR, followed live: RandR 1.5's monitors (`GetMonitors`), or
/// on an older server the active CRTCs with their outputs; each with its outputs' names, its
/// physical size and its outputs' `DPI` property. The server's change events (screen, CRTC,
/// output, the `DPI` property; and the root's ConfigureNotify, the only event `xrandr
/// --setmonitor` and `--delmonitor` make the server send) mark the layout stale, and it is read
/// again, once, when next asked for.
///
/// One per connection (``DesktopSession``), made when the first ``MonitorScaleFollower`` starts;
/// none without RandR 1.2, and then nothing is selected or watched (no wakeups).
///
/// Not Sendable: event-loop thread only, like the connection it reads from.
package final class RandRMonitors {
    /// RandR 1.2: outputs and CRTCs. Older servers have no monitors to follow.
    static let minimumVersion = (major: UInt32(1), minor: UInt32(2))
    /// RandR 1.5: monitors.
    static let monitorsVersion = (major: UInt32(1), minor: UInt32(5))
    /// The name of X11Libre's per-output DPI property.
    static let dpiPropertyName = "DPI"
    /// What the monitors' events are selected for.
    static let eventMask = UInt16(XCB_RANDR_NOTIFY_MASK_SCREEN_CHANGE.rawValue | XCB_RANDR_NOTIFY_MASK_CRTC_CHANGE.rawValue
        | XCB_RANDR_NOTIFY_MASK_OUTPUT_CHANGE.rawValue | XCB_RANDR_NOTIFY_MASK_OUTPUT_PROPERTY.rawValue)

    private let x: XConnection
    /// RandR's first event code: ScreenChangeNotify; RRNotify follows it.
    package let firstEvent: UInt8
    private let hasMonitorRequests: Bool
    private let dpiAtom: xcb_atom_t
    private var stale = true
    private var current = MonitorLayout.none

    /// Sets RandR up on `x` and selects its change events on the root; nil when the server has no
    /// RandR 1.2 or refuses the selection (one scale for the whole screen then, as without RandR).
    package init?(connection x: XConnection) {
        let c = x.handle
        let name = "RANDR"
        guard let query = xcb_query_extension_reply(c, xcb_query_extension(c, UInt16(name.utf8.count), name), nil) else { return nil }
        let present = query.pointee.present != 0
        let first = query.pointee.first_event
        free(query)
        guard present else { return nil }
        var error: UnsafeMutablePointer<xcb_generic_error_t>?
        let cookie = xcb_randr_query_version(c, Self.monitorsVersion.major, Self.monitorsVersion.minor)
        guard let version = xcb_randr_query_version_reply(c, cookie, &error) else {
            free(error)
            return nil
        }
        let (major, minor) = (version.pointee.major_version, version.pointee.minor_version)
        free(version)
        guard (major, minor) >= Self.minimumVersion else { return nil }
        hasMonitorRequests = (major, minor) >= Self.monitorsVersion
        guard let atom = (try? x.internAtoms([Self.dpiPropertyName]))?[Self.dpiPropertyName], atom != 0 else { return nil }
        if let refusal = xcb_request_check(c, xcb_randr_select_input_checked(c, x.root, Self.eventMask)) {
            free(refusal)
            return nil
        }
        self.x = x
        firstEvent = first
        dpiAtom = atom
    }

    /// The monitors now (read again when an event said they changed).
    package var layout: MonitorLayout {
        if stale {
            stale = false
            current = MonitorLayout(hasMonitorRequests ? readMonitors() : readCRTCs())
        }
        return current
    }

    /// True when `event` is one of RandR's own events.
    package func isRandREvent(_ event: XEvent) -> Bool {
        event.code == firstEvent &+ UInt8(XCB_RANDR_SCREEN_CHANGE_NOTIFY) || event.code == firstEvent &+ UInt8(XCB_RANDR_NOTIFY)
    }

    /// Marks the layout stale when `event` says the monitors may have changed; true when it does.
    package func handle(_ event: XEvent) -> Bool {
        switch event.code {
        case firstEvent &+ UInt8(XCB_RANDR_SCREEN_CHANGE_NOTIFY):
            stale = true
        case firstEvent &+ UInt8(XCB_RANDR_NOTIFY):
            let (kind, atom) = event.withEvent(as: xcb_randr_notify_event_t.self) { ($0.subCode, $0.u.op.atom) }
            // Of the output properties, only the DPI matters.
            guard kind != UInt8(XCB_RANDR_NOTIFY_OUTPUT_PROPERTY.rawValue) || atom == dpiAtom else { return false }
            stale = true
        case UInt8(XCB_CONFIGURE_NOTIFY) where event.window == x.root:
            // A monitor set or deleted (RRSendConfigNotify), or the screen resized.
            stale = true
        default:
            return false
        }
        return true
    }

    // MARK: Reading

    /// An output's name and physical size, and its DPI property when it has one.
    private struct Output {
        var name: String
        var millimetres: (width: Int, height: Int)
        var dpi: Double?
    }

    /// Every output of the screen, by id (one round trip, the requests pipelined).
    private func readOutputs() -> [xcb_randr_output_t: Output] {
        let c = x.handle
        guard let resources = checkedReply(xcb_randr_get_screen_resources_current_reply,
                                           xcb_randr_get_screen_resources_current(c, x.root)) else { return [:] }
        defer { free(resources) }
        let count = Int(xcb_randr_get_screen_resources_current_outputs_length(resources))
        guard count > 0, let start = xcb_randr_get_screen_resources_current_outputs(resources) else { return [:] }
        let ids = Array(UnsafeBufferPointer(start: start, count: count))
        let timestamp = resources.pointee.config_timestamp
        let infoCookies = ids.map { xcb_randr_get_output_info(c, $0, timestamp) }
        let dpiCookies = ids.map { xcb_randr_get_output_property(c, $0, dpiAtom, xcb_atom_t(XCB_GET_PROPERTY_TYPE_ANY.rawValue), 0, 1, 0, 0) }
        var outputs: [xcb_randr_output_t: Output] = [:]
        var dpis: [String: Double] = [:]
        for (index, id) in ids.enumerated() {
            let dpi = propertyInteger(dpiCookies[index])
            guard let info = checkedReply(xcb_randr_get_output_info_reply, infoCookies[index]) else { continue }
            defer { free(info) }
            let length = Int(xcb_randr_get_output_info_name_length(info))
            let name = xcb_randr_get_output_info_name(info).map {
                String(decoding: UnsafeBufferPointer(start: $0, count: max(0, length)), as: UTF8.self)
            } ?? ""
            outputs[id] = Output(name: name, millimetres: (Int(info.pointee.mm_width), Int(info.pointee.mm_height)), dpi: dpi)
            if let dpi { dpis[name] = dpi }
        }
        // A server that leaves every output at the default states nothing per output.
        let counted = MonitorScalePolicy.outputDPIs(dpis)
        for (id, output) in outputs { outputs[id]?.dpi = counted[output.name] }
        return outputs
    }

    /// The DPI property's value (one integer of 8, 16 or 32 bits), or nil.
    private func propertyInteger(_ cookie: xcb_randr_get_output_property_cookie_t) -> Double? {
        guard let reply = checkedReply(xcb_randr_get_output_property_reply, cookie) else { return nil }
        defer { free(reply) }
        guard reply.pointee.num_items >= 1, xcb_randr_get_output_property_data_length(reply) > 0,
              let data = xcb_randr_get_output_property_data(reply) else { return nil }
        switch reply.pointee.format {
        case 8: return Double(Int8(bitPattern: data.pointee))
        case 16: return Double(UnsafeRawPointer(data).loadUnaligned(as: Int16.self))
        case 32: return Double(UnsafeRawPointer(data).loadUnaligned(as: Int32.self))
        default: return nil
        }
    }

    /// RandR 1.5's monitors, the active ones, with their outputs' names, sizes and DPI.
    private func readMonitors() -> [Monitor] {
        let c = x.handle
        let outputs = readOutputs()
        guard let reply = checkedReply(xcb_randr_get_monitors_reply, xcb_randr_get_monitors(c, x.root, 1)) else { return readCRTCs() }
        defer { free(reply) }
        var found: [(atom: xcb_atom_t, monitor: Monitor)] = []
        var iterator = xcb_randr_get_monitors_monitors_iterator(reply)
        while iterator.rem > 0, let info = iterator.data {
            let count = Int(xcb_randr_monitor_info_outputs_length(info))
            let ids = count > 0 ? xcb_randr_monitor_info_outputs(info).map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? [] : []
            let shown = ids.compactMap { outputs[$0] }
            let monitor = Monitor(name: "", outputs: shown.map(\.name),
                                  frame: PixelRect(x: Int(info.pointee.x), y: Int(info.pointee.y),
                                                   width: Int(info.pointee.width), height: Int(info.pointee.height)),
                                  widthMillimetres: Int(info.pointee.width_in_millimeters),
                                  heightMillimetres: Int(info.pointee.height_in_millimeters),
                                  outputDPI: shown.lazy.compactMap(\.dpi).first, isPrimary: info.pointee.primary != 0)
            found.append((info.pointee.name, monitor))
            xcb_randr_monitor_info_next(&iterator)
        }
        let names = found.map { xcb_get_atom_name(c, $0.atom) }
        return zip(found, names).map { entry, cookie in
            var monitor = entry.monitor
            monitor.name = atomName(cookie) ?? monitor.outputs.first ?? "monitor-\(entry.atom)"
            return monitor
        }
    }

    /// Before RandR 1.5: each active CRTC is a monitor, named after its first output.
    private func readCRTCs() -> [Monitor] {
        let c = x.handle
        let outputs = readOutputs()
        guard let resources = checkedReply(xcb_randr_get_screen_resources_current_reply,
                                           xcb_randr_get_screen_resources_current(c, x.root)) else { return [] }
        defer { free(resources) }
        let count = Int(xcb_randr_get_screen_resources_current_crtcs_length(resources))
        guard count > 0, let start = xcb_randr_get_screen_resources_current_crtcs(resources) else { return [] }
        let timestamp = resources.pointee.config_timestamp
        let cookies = UnsafeBufferPointer(start: start, count: count).map { xcb_randr_get_crtc_info(c, $0, timestamp) }
        var monitors: [Monitor] = []
        for cookie in cookies {
            guard let crtc = checkedReply(xcb_randr_get_crtc_info_reply, cookie) else { continue }
            defer { free(crtc) }
            guard crtc.pointee.mode != 0 else { continue }
            let used = Int(xcb_randr_get_crtc_info_outputs_length(crtc))
            let ids = used > 0 ? xcb_randr_get_crtc_info_outputs(crtc).map { Array(UnsafeBufferPointer(start: $0, count: used)) } ?? [] : []
            let shown = ids.compactMap { outputs[$0] }
            let first = shown.first
            monitors.append(Monitor(name: first?.name ?? "crtc-\(monitors.count)", outputs: shown.map(\.name),
                                    frame: PixelRect(x: Int(crtc.pointee.x), y: Int(crtc.pointee.y),
                                                     width: Int(crtc.pointee.width), height: Int(crtc.pointee.height)),
                                    widthMillimetres: first?.millimetres.width ?? 0, heightMillimetres: first?.millimetres.height ?? 0,
                                    outputDPI: shown.lazy.compactMap(\.dpi).first))
        }
        return monitors
    }

    private func atomName(_ cookie: xcb_get_atom_name_cookie_t) -> String? {
        guard let reply = checkedReply(xcb_get_atom_name_reply, cookie) else { return nil }
        defer { free(reply) }
        let length = Int(xcb_get_atom_name_name_length(reply))
        guard length > 0, let start = xcb_get_atom_name_name(reply) else { return nil }
        return String(decoding: UnsafeRawBufferPointer(start: start, count: length), as: UTF8.self)
    }

    /// The reply to `cookie`, or nil (with its error freed) when the server refused.
    private func checkedReply<Cookie, Reply>(
        _ read: (OpaquePointer?, Cookie, UnsafeMutablePointer<UnsafeMutablePointer<xcb_generic_error_t>?>?) -> UnsafeMutablePointer<Reply>?,
        _ cookie: Cookie
    ) -> UnsafeMutablePointer<Reply>? {
        var error: UnsafeMutablePointer<xcb_generic_error_t>?
        let reply = read(x.handle, cookie, &error)
        free(error)
        return reply
    }
}
