import BadgeCore
import BadgeDrawing
import Glibc

/// What belongs to one connection to the desktop rather than to one toolbar: the desktop's settings
/// (XSETTINGS, `Xft.dpi` in the X resources, the desktop portal's colour scheme), the session bus,
/// the screen-reader bridge (one AT-SPI2 application), the keymap and the one tooltip window.
/// Every ``ToolbarHost`` on a connection shares its connection's session, so two toolbars in one
/// window read the settings once, hear every change, and use one session-bus connection.
///
/// The session is made with the first host on a connection (``session(of:)``) and lives as long as
/// any host, or you, keep it. In your own loop, ``pollDescriptors`` and ``timeUntilNextDeadline``
/// cover the connection and every bus of every host, and ``wait(alsoWatching:timeout:)`` sleeps
/// on them for you, with BadgeKit's types only.
///
/// Not Sendable: it belongs to the thread that runs the loop, as the connection does.
public final class DesktopSession {
    /// A descriptor to wait on in a loop of your own, with what to wait for.
    public struct PollDescriptor: Hashable, Sendable {
        /// The descriptor.
        public var fileDescriptor: Int32
        /// What to wait for: readable, and writable while bytes wait to go out.
        public var interest: EventLoop.Interest

        /// A descriptor and its interest.
        public init(fileDescriptor: Int32, interest: EventLoop.Interest) {
            self.fileDescriptor = fileDescriptor
            self.interest = interest
        }
    }

    /// The connection the session belongs to.
    public let connection: XConnection
    /// The atoms every host and window on the connection uses.
    package let atoms: Atoms
    /// Follows XSETTINGS and the X resources.
    package let settingsWatcher: SettingsWatcher
    /// The session bus (with `DBUS_SESSION_BUS_ADDRESS`, once the first host's first frame is on
    /// its way): the portal, finding the accessibility bus, and what applications publish there.
    package private(set) var sessionBus: BusConnection?
    /// Follows the desktop portal's colour scheme (with a session bus).
    package private(set) var portal: PortalAppearance?
    /// Warnings for a log (an unusable bus address).
    package var onWarning: (String) -> Void = { _ in }

    private struct Member {
        weak var host: ToolbarHost?
    }

    private var members: [Member] = []
    /// True once the session bus was started (or found missing), after the first frame.
    package private(set) var busesHaveStarted = false
    /// Who waits for the buses to start (``whenBusesStarted(_:)``).
    private var busWaiters: [(BusConnection?) -> Void] = []
    /// The one tooltip window every host shows its tooltips in, once the first host set up.
    package private(set) var tooltips: TooltipController?
    private var tooltipsTried = false
    /// The keymap every host reads keys through (xkbcommon-x11), once the first host set up.
    package private(set) var keyboard: Keyboard?
    private var keyboardTried = false
    /// The last keymap event handled: each host is offered the same event; it is read once.
    private weak var lastKeyboardEvent: XEvent?
    /// The screen-reader bridge: one AT-SPI2 application for every host on the connection.
    package var accessibility: AccessibilityBridge?
    /// True once the accessibility bus was looked for.
    package var accessibilityStarted = false
    /// Where screen readers stand, told to every host (``ToolbarHost/accessibilityStatus``).
    package var accessibilityStatus: ToolbarHost.AccessibilityStatus = .off("not started (it starts after the first frame)") {
        didSet { for host in hosts { host.accessibilityStatus = accessibilityStatus } }
    }
    /// The monitors (RandR), once a host follows their scale (``sharedMonitors()``).
    package var monitors: RandRMonitors?
    package var monitorsTried = false
    /// The last window-manager event handled: each host is offered the same event; it is read once.
    private weak var lastWindowManagerEvent: XEvent?
    /// The last settings event handled: each host is offered the same event; it is read once.
    private weak var lastSettingsEvent: XEvent?
    /// The loops the session's sources were added to, with the names of those added (once each,
    /// however many hosts attach).
    private var loops: [ObjectIdentifier: Set<String>] = [:]

    /// The session of `connection`: the one its hosts share, made now if there is none.
    public static func session(of connection: XConnection) throws(X11Error) -> DesktopSession {
        if let session = connection.session { return session }
        let session = try DesktopSession(connection: connection)
        connection.session = session
        return session
    }

    private init(connection: XConnection) throws(X11Error) {
        if let failure = connection.failure { throw failure }
        self.connection = connection
        atoms = try Atoms(connection: connection)
        settingsWatcher = SettingsWatcher(connection: connection, atoms: atoms)
    }

    /// The hosts on the connection now.
    public var hosts: [ToolbarHost] { members.compactMap(\.host) }

    /// What the desktop's settings say now. The portal's `color-scheme`, where it states a
    /// preference, wins over the XSETTINGS theme, as GTK 4 does.
    public var settings: DesktopSettings {
        var settings = settingsWatcher.settings
        if let scheme = portal?.colorScheme, scheme == 1 || scheme == 2 { settings.prefersDark = scheme == 1 }
        return settings
    }

    /// Adds `host` to the hosts told about settings changes.
    package func register(_ host: ToolbarHost) {
        members.removeAll { $0.host == nil || $0.host === host }
        members.append(Member(host: host))
    }

    /// Reads `event` if it concerns the desktop's settings (once, however many hosts are offered
    /// it) and tells every host when they changed. True when it concerned them.
    package func handleSettingsEvent(_ event: XEvent) -> Bool {
        guard settingsWatcher.concerns(event) else { return false }
        guard event !== lastSettingsEvent else { return true }
        lastSettingsEvent = event
        if settingsWatcher.handle(event) { settingsChanged() }
        return true
    }

    /// Reads `event` if it says another window manager took over (the root's
    /// `_NET_SUPPORTING_WM_CHECK` changed, or a `MANAGER` message for `WM_S0`), once however many
    /// hosts are offered it, and has every host ask the new one again for the states its window
    /// holds. True when it was such an event (it is everyone's: the caller is given it too).
    package func handleWindowManagerEvent(_ event: XEvent) -> Bool {
        guard WindowManagerProtocols.announcesWindowManager(event, root: connection.root, atoms: atoms) else { return false }
        guard event !== lastWindowManagerEvent else { return true }
        lastWindowManagerEvent = event
        for host in hosts { host.askWindowManagerAgain() }
        return true
    }

    /// The session's tooltip window, made on first use with `identity` (the first host's), `text`
    /// and `clock`; it tells the host that owns a tooltip when it shows or hides. Nil (after the
    /// error is thrown once) when the window cannot be made.
    package func sharedTooltips(identity: ApplicationIdentity, text: TextLayouts, clock: any BadgeClock) throws(X11Error) -> TooltipController? {
        if tooltipsTried { return tooltips }
        tooltipsTried = true
        let controller = try TooltipController(connection: connection, atoms: atoms, identity: identity, text: text, clock: clock)
        controller.onChange = { [weak self] owner, info in
            self?.hosts.first { ObjectIdentifier($0) == owner }?.onEvent?(.tooltipChanged(info))
        }
        controller.onWarning = { [weak self] message in self?.onWarning(message) }
        tooltips = controller
        return controller
    }

    /// The session's keymap, read on first use (after the first frame: it costs a few round trips);
    /// nil when the server's keyboard cannot be used, with the reason thrown once.
    package func sharedKeyboard() throws(X11Error) -> Keyboard? {
        if keyboardTried { return keyboard }
        keyboardTried = true
        keyboard = try Keyboard(connection: connection)
        return keyboard
    }

    /// Reads `event` if it is the keymap's (an XKB event), once however many hosts are offered it.
    package func handleKeyboardEvent(_ event: XEvent) -> Bool {
        guard let keyboard, event.code == keyboard.firstEvent else { return false }
        guard event !== lastKeyboardEvent else { return true }
        lastKeyboardEvent = event
        _ = keyboard.handleXKBEvent(UnsafeMutableRawPointer(event.raw))
        return true
    }

    private func settingsChanged() {
        let settings = self.settings
        for host in hosts { host.onEvent?(.desktopSettingsChanged(settings)) }
    }

    // MARK: Buses

    /// Connects to the session bus, once (after the first frame of the first host: connecting and
    /// the portal's answer never delay it), and asks the portal for its colour scheme.
    package func startBuses() {
        guard !busesHaveStarted else { return }
        busesHaveStarted = true
        defer {
            let waiters = busWaiters
            busWaiters = []
            for waiter in waiters { waiter(sessionBus) }
        }
        guard let text = Environment.value("DBUS_SESSION_BUS_ADDRESS") else { return }
        let address: DBusAddress
        do {
            address = try DBusAddress(text)
        } catch {
            onWarning("DBUS_SESSION_BUS_ADDRESS cannot be used (\(error)); carrying on without the session bus")
            return
        }
        let bus = BusConnection(address: address, label: "the session bus")
        sessionBus = bus
        let portal = PortalAppearance(bus: bus)
        portal.onChange = { [weak self] in self?.settingsChanged() }
        self.portal = portal
        for host in hosts { host.attachedLoop.map(add(to:)) }
    }

    /// Runs `body` with the session bus once the buses are started (after the first host's first
    /// frame; now if they are): nil when there is none (no usable `DBUS_SESSION_BUS_ADDRESS`).
    package func whenBusesStarted(_ body: @escaping (BusConnection?) -> Void) {
        if busesHaveStarted { body(sessionBus) } else { busWaiters.append(body) }
    }

    /// Adds the session's sources (the session bus, the accessibility bus) to `loop`, each once.
    package func add(to loop: EventLoop) {
        let id = ObjectIdentifier(loop)
        var added = loops[id] ?? []
        if let bus = sessionBus, added.insert("session-bus").inserted { loop.add(bus.source(named: "session-bus")) }
        if let bridge = accessibility, added.insert("accessibility").inserted { loop.add(bridge.source) }
        loops[id] = added
    }

    /// Every bus the session and its hosts use now.
    package var buses: [BusConnection] { [sessionBus, accessibility?.bus].compactMap { $0 } }

    // MARK: Your own loop

    /// The descriptors to wait on in your own loop: the X connection, and every bus of the session
    /// and its hosts, each with what to wait for now. Ask again before every wait (buses come and go).
    public var pollDescriptors: [PollDescriptor] {
        var descriptors = [PollDescriptor(fileDescriptor: connection.fileDescriptor, interest: .readable)]
        for bus in buses {
            guard let fd = bus.fileDescriptor else { continue }
            let interest = bus.interest
            if !interest.isEmpty { descriptors.append(PollDescriptor(fileDescriptor: fd, interest: interest)) }
        }
        return descriptors
    }

    /// Seconds until any host or bus needs a turn (an animation frame, a tooltip, a bus's next
    /// attempt), 0 while events wait for you, or nil when nothing is due: idle means no wakeups.
    public var timeUntilNextDeadline: Double? {
        if connection.hasEventsSetAside { return 0 }
        var wake: Double?
        for host in hosts { if let due = host.timeUntilNextDeadline { wake = min(wake ?? due, due) } }
        for bus in buses { if let due = bus.timeUntilDeadline { wake = min(wake ?? due, due) } }
        return wake
    }

    /// Reads and writes what every bus allows and acts on their deadlines; call it after each wait.
    /// Never blocks.
    public func serviceBuses() {
        for bus in buses {
            bus.service(EventLoop.Readiness(readable: true, writable: true, failed: false))
            bus.handleDeadlines()
        }
    }

    /// Sleeps until the X connection, a bus or one of `descriptors` is ready, or the next deadline
    /// (or `timeout` seconds, whichever is sooner) passes; then services the buses. Returns the
    /// descriptors of yours that are ready. Events set aside for you make it return at once.
    /// Events that a reply pulled into XCB's queue do not make the socket readable: such an event is
    /// set aside for ``XConnection/nextEvent()`` and the wait does not sleep.
    public func wait(alsoWatching descriptors: [PollDescriptor] = [], timeout: Double? = nil) -> [PollDescriptor] {
        if let queued = connection.nextQueuedEventFromServer() { connection.router.setAside(queued) }
        let own = pollDescriptors
        var set = (own + descriptors).map { descriptor -> pollfd in
            var events: Int16 = 0
            if descriptor.interest.contains(.readable) { events |= Int16(POLLIN) }
            if descriptor.interest.contains(.writable) { events |= Int16(POLLOUT) }
            return pollfd(fd: descriptor.fileDescriptor, events: events, revents: 0)
        }
        var wake = timeUntilNextDeadline
        if let timeout { wake = min(wake ?? timeout, timeout) }
        let ready = poll(&set, nfds_t(set.count), EventLoop.timeoutMilliseconds(after: wake))
        serviceBuses()
        guard ready > 0 else { return [] }
        return zip(descriptors, set[own.count...]).compactMap { descriptor, polled in polled.revents != 0 ? descriptor : nil }
    }
}
