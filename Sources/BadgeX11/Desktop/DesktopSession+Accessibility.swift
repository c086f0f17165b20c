import BadgeCore
import Glibc

/// Screen readers: every host on the connection is one AT-SPI2 application (as GTK keeps one
/// accessibility root per display), started once the first host's first frame is on its way, only
/// when an accessibility bus is there.
extension DesktopSession {
    /// The session's accessibility bus, looked for the standard ways in order: `NO_AT_BRIDGE=1`
    /// turns the bridge off (as GTK and Qt do); `AT_SPI_BUS_ADDRESS`; the root window's
    /// `AT_SPI_BUS`; then `org.a11y.Bus.GetAddress` on the session bus, answered without waiting.
    /// Once per session.
    package func startAccessibility() {
        guard !accessibilityStarted else { return }
        accessibilityStarted = true
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
            onWarning("the accessibility bus address '\(text)' cannot be used (\(error)); screen readers will not see the toolbar")
            return
        }
        let locale = setlocale(LC_MESSAGES, nil).map { String(cString: $0) } ?? "C"
        let bridge = AccessibilityBridge(address: address, locale: locale, toolkitVersion: BadgeKitVersion.string,
                                         snapshot: { [unowned self] in self.accessibleTree() })
        accessibilityStatus = .connecting
        bridge.beforeQuery = { [unowned self] in self.updateAccessibility() }
        bridge.windowOrigins = { [unowned self] in
            Dictionary(uniqueKeysWithValues: self.hosts.enumerated().map { ($0.offset, $0.element.windowOriginOnScreen()) })
        }
        bridge.onAction = { [unowned self] part, index, action in
            let hosts = self.hosts
            guard part < hosts.count, index < hosts[part].toolbar.buttons.count else { return }
            let host = hosts[part]
            host.change(host.toolbar.buttons[index], cause: .accessibility) { action.apply(to: $0) }
        }
        bridge.onPeekActivate = { [unowned self] part, row, secondary in
            let hosts = self.hosts
            guard part < hosts.count else { return }
            if secondary { hosts[part].secondaryPeekRow(row) } else { hosts[part].activatePeekRow(row) }
        }
        bridge.onFocus = { [unowned self] part, index in
            let hosts = self.hosts
            guard part < hosts.count, index < hosts[part].toolbar.buttons.count else { return }
            hosts[part].toolbar.focus(hosts[part].toolbar.buttons[index])
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
        for host in hosts { if let loop = host.attachedLoop { add(to: loop) } }
    }

    /// Tells screen readers what changed since the bridge last looked, if anything can have: when a
    /// host's ``ToolbarHost/accessibilitySignature`` (its window, layout, focus and each badge's
    /// revision) differs from the one the bridge last saw, however the change came; not an
    /// animation frame.
    package func updateAccessibility() {
        guard let accessibility else { return }
        // Every host notes what the bridge will see (one signature each per turn).
        var changed = false
        for host in hosts where host.takeAccessibilityChange() { changed = true }
        guard changed else { return }
        accessibility.update()
    }

    /// The tree screen readers see now: one part per host.
    package func accessibleTree() -> AccessibleTree {
        let hosts = self.hosts
        return AccessibleTree(parts: hosts.map { $0.accessiblePart() }, applicationName: accessibleApplicationName,
                              strings: hosts.first?.accessibilityStrings ?? .english)
    }

    /// The application's name for screen readers: the first identity's instance name, else the program's.
    package var accessibleApplicationName: String {
        if let identity = hosts.lazy.compactMap(\.applicationIdentity).first { return identity.instanceName }
        return CommandLine.arguments.first?.split(separator: "/").last.map(String.init) ?? "badgekit"
    }
}
