import BadgeCore
import CXCB
import Glibc

/// Screen readers: the toolbar on AT-SPI2 (``AccessibilityBridge``), started once the first frame
/// is on its way, only when an accessibility bus is there.
extension ToolbarHost {
    /// How screen readers reach the toolbar.
    public enum AccessibilityStatus: Equatable, Sendable {
        /// No bridge: no accessibility bus was found, or the bridge is turned off (with why).
        case off(String)
        /// Looking for the bus or registering with its registry.
        case connecting
        /// The bus is there but cannot be used now (it refused, stopped answering or went away):
        /// tried again with growing pauses. The reason, as the bus connection's status says it.
        case waiting(String)
        /// Registered: screen readers see the toolbar as the application on this bus name.
        case registered(busName: String)
    }

    /// The session's accessibility bus, looked for the standard ways in order: `NO_AT_BRIDGE=1`
    /// turns the bridge off (as GTK and Qt do); `AT_SPI_BUS_ADDRESS`; the root window's
    /// `AT_SPI_BUS`; then `org.a11y.Bus.GetAddress` on the session bus, answered without waiting.
    func startAccessibility() {
        if Environment.value("NO_AT_BRIDGE") == "1" {
            accessibilityStatus = .off("turned off by NO_AT_BRIDGE=1")
            return
        }
        if let address = Environment.value("AT_SPI_BUS_ADDRESS") ?? rootAccessibilityBus() {
            connectAccessibility(address: address)
        } else if let sessionBus {
            accessibilityStatus = .connecting
            // Asked every time the session bus greets us, until an accessibility bus is found.
            sessionBus.whenReady { [weak self, weak sessionBus] _ in
                guard let self, self.accessibility == nil else { return }
                sessionBus?.call("org.a11y.Bus", path: "/org/a11y/bus", interface: "org.a11y.Bus", member: "GetAddress") { [weak self] values in
                    guard let self, self.accessibility == nil else { return }
                    if let address = values?.first?.stringValue, !address.isEmpty {
                        self.connectAccessibility(address: address)
                    } else {
                        self.accessibilityStatus = .off("no accessibility bus (org.a11y.Bus did not answer)")
                    }
                }
            }
        } else {
            accessibilityStatus = .off("no accessibility bus (no AT_SPI_BUS on the root window, no session bus)")
        }
    }

    /// The root window's AT_SPI_BUS (a STRING), or nil.
    private func rootAccessibilityBus() -> String? {
        guard atoms.atSPIBus != 0 else { return nil }
        return connection.textProperty(atoms.atSPIBus, of: connection.root, maximumBytes: 4096)
    }

    private func connectAccessibility(address text: String) {
        let address: DBusAddress
        do {
            address = try DBusAddress(text)
        } catch {
            accessibilityStatus = .off("the accessibility bus address cannot be used (\(error))")
            warn("the accessibility bus address '\(text)' cannot be used (\(error)); screen readers will not see the toolbar")
            return
        }
        let locale = setlocale(LC_MESSAGES, nil).map { String(cString: $0) } ?? "C"
        let bridge = AccessibilityBridge(address: address, locale: locale, toolkitVersion: BadgeKitVersion.string,
                                         snapshot: { [unowned self] in self.accessibleTree() })
        accessibilityStatus = .connecting
        bridge.beforeQuery = { [unowned self] in self.updateAccessibility() }
        bridge.windowOrigin = { [unowned self] in self.windowOriginOnScreen() }
        bridge.onAction = { [unowned self] index, action in
            guard index < self.toolbar.buttons.count else { return }
            self.change(self.toolbar.buttons[index], cause: .accessibility) { action.apply(to: $0) }
        }
        bridge.onFocus = { [unowned self] index in
            guard index < self.toolbar.buttons.count else { return }
            self.toolbar.focus(self.toolbar.buttons[index])
        }
        bridge.onRegistration = { [weak self, weak bridge] registered in
            guard let self else { return }
            if registered, let name = bridge?.busName {
                self.accessibilityStatus = .registered(busName: name)
            } else if !registered {
                self.accessibilityStatus = .waiting(bridge?.bus.status ?? "the accessibility bus went away")
            }
        }
        if case .waiting = bridge.bus.phase { accessibilityStatus = .waiting(bridge.bus.status) }
        accessibility = bridge
        accessibilitySource = bridge.source
        if let source = accessibilitySource { attachedLoop?.add(source) }
    }

    /// Tells screen readers what changed since the bridge last looked, if anything can have: only
    /// input, a change or a window event can, not an animation frame.
    func updateAccessibility() {
        guard accessibilityIsStale, let accessibility else { return }
        accessibilityIsStale = false
        accessibility.update()
    }

    // MARK: The buses in the caller's own loop

    /// The descriptors besides the X connection that the host needs watched when it runs in the
    /// caller's own poll() loop: the session bus (the portal's colour scheme, finding the
    /// accessibility bus) and the accessibility bus (screen readers), each with the events to wait
    /// for now (writable too while messages wait to go out). Empty without buses. Ask again before
    /// every poll(): the accessibility bus appears after the first frame.
    ///
    /// In BadgeKit's loop (``run()``, ``attach(to:)``) they are watched already.
    public var busDescriptors: [pollfd] {
        busSources.compactMap { source in
            guard let fd = source.descriptor(), fd >= 0 else { return nil }
            let interest = source.interest()
            var events: Int16 = 0
            if interest.contains(.readable) { events |= Int16(POLLIN) }
            if interest.contains(.writable) { events |= Int16(POLLOUT) }
            return events == 0 ? nil : pollfd(fd: fd, events: events, revents: 0)
        }
    }

    /// Reads and writes what the buses allow and handles what came in (replies, signals, screen
    /// readers' calls), and acts on their deadlines (a call or a greeting that took too long, the
    /// next attempt at a bus that is away); call it after poll() returns, whichever descriptor was
    /// ready or when the timeout passed. Never blocks.
    public func serviceBuses() {
        for source in busSources {
            try? source.handle(EventLoop.Readiness(readable: true, writable: true, failed: false))
        }
        for bus in buses { bus.handleDeadlines() }
    }

    /// The loop sources of the buses the host uses now.
    var busSources: [EventLoop.Source] {
        [session.sessionBus?.source(named: "session-bus"), accessibilitySource].compactMap { $0 }
    }

    /// The buses the host uses now.
    var buses: [BusConnection] { [sessionBus, accessibility?.bus].compactMap { $0 } }

    /// The session bus's state, for `state`: nil without one, else the bus connection's status.
    public var sessionBusStatus: String? { sessionBus?.status }

    /// How many AT-SPI2 events were sent (to listeners the registry named), for tests and `state`.
    package var accessibilityEventsSent: Int { accessibility?.sentEvents ?? 0 }

    /// The tree screen readers see now.
    func accessibleTree() -> AccessibleTree {
        let title: String? = identity.map { _ in wantedWindowState?.title ?? "" }
        let window = AccessibleTree.Window(title: title, size: surface.bounds, isMapped: mapped && isAttached,
                                           isActive: hasFocus)
        return AccessibleTree(toolbar: toolbar, applicationName: accessibleApplicationName, window: window,
                              strings: accessibilityStrings)
    }

    /// The application's name for screen readers: the instance name, else the program's.
    var accessibleApplicationName: String {
        if let identity { return identity.instanceName }
        return CommandLine.arguments.first?.split(separator: "/").last.map(String.init) ?? "badgekit"
    }

    /// The window's top-left pixel on the screen, asked of the server once after each move
    /// (a window manager's frame moves it without telling the toolbar where, relative to the root).
    func windowOriginOnScreen() -> (x: Int, y: Int) {
        if let origin = knownOrigin { return origin }
        let x = connection.handle
        let cookie = xcb_translate_coordinates(x, surface.window, connection.root, 0, 0)
        guard let reply = xcb_translate_coordinates_reply(x, cookie, nil) else { return (0, 0) }
        defer { free(reply) }
        let origin = (x: Int(reply.pointee.dst_x), y: Int(reply.pointee.dst_y))
        knownOrigin = origin
        return origin
    }
}

/// BadgeKit's version, as the accessibility bridge reports it (Application.Version).
package enum BadgeKitVersion {
    /// "0.2.0" (applications may report it in their own `--version`).
    package static let string = "0.2.0"
}
