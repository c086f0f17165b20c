import BadgeCore
import BadgeDrawing
import CXCB
import Glibc

/// Puts a badge `Toolbar` on screen and keeps it live: it routes X input to the toolbar
/// (pointer, keys, focus, hover), draws only what changed, shows tooltips, and, in a window of its
/// own, keeps the title, icon and urgency the window manager sees up to date.
///
/// Two placements:
/// - ``Placement/topLevel(_:)``: a top-level window of its own, with the application's identity.
/// - ``Placement/child(of:x:y:identity:)``: a child window inside a window the caller already
///   has, for a toolbar that is part of a larger window. Place it with ``move(x:y:)``,
///   ``resize(width:height:)``, ``show()`` and ``hide()``; ``frame`` says where it is.
///
/// Two ways to run it:
/// - in BadgeKit's loop: ``run()``, or ``attach(to:)`` on an `EventLoop` beside the
///   application's own sources;
/// - in the caller's loop: hand each event of ``XConnection/nextEvent()`` to ``handle(_:)``, call
///   ``refresh()``, then sleep in the ``session``'s ``DesktopSession/wait(alsoWatching:timeout:)``
///   (the connection, every bus, and descriptors of yours).
///
/// Lifetime: the host's window lives as long as the host. Releasing the host destroys its window
/// (and its tooltip window) without reporting anything; ``close()`` destroys it now and reports
/// ``Event/detached``, as does a window destroyed by someone else (another client, or the
/// destruction of the window it is embedded in): a detached host draws nothing more, and keeps
/// its toolbar and counts. A host never closes its ``XConnection``.
///
/// Not Sendable: the host, its connection and its toolbar belong to the thread that runs the loop.
public final class ToolbarHost {
    /// Where the toolbar's window goes.
    public enum Placement: Hashable, Sendable {
        /// A top-level window of its own, with this identity (WM_CLASS, title, icon).
        case topLevel(ApplicationIdentity)
        /// A child window at (`x`, `y`) device pixels inside the window `parent`, which another
        /// part of the program owns (on this connection or any other). The windows the host
        /// makes besides it (the tooltip) carry `identity` (WM_CLASS); nil: the program's name.
        case child(of: UInt32, x: Int, y: Int, identity: ApplicationIdentity? = nil)
    }

    /// What the host tells its owner.
    public enum Event {
        /// The first frame is on the server (it has processed the copy), and the keyboard and
        /// tooltips are set up: input from now on is answered.
        case ready
        /// A badge's content changed, by input or through ``change(_:cause:_:)``.
        case badgeChanged(ToolbarButton, cause: ChangeCause)
        /// The tooltip was shown (with where) or hidden (nil); the server has processed it.
        case tooltipChanged(TooltipInfo?)
        /// The window started or stopped asking for attention.
        case urgencyChanged(Bool)
        /// The window manager's close button (WM_DELETE_WINDOW) was pressed.
        case closeRequested
        /// The window is gone: another client destroyed it, or the window it was embedded in.
        /// The host draws nothing more; the toolbar and its counts are unchanged.
        case detached
        /// The window manager was told a new ``WindowState`` (coalesced: a few times a second at
        /// most during a burst of changes, and within 0.1 s of the last one). A dock badge of the
        /// application's own follows this, not every change.
        case windowStateChanged(WindowState)
        /// The desktop's settings changed (XSETTINGS: `Xft/DPI`, the theme name, animations; or
        /// `Xft.dpi` in the X resources). The host applies nothing itself: the application decides
        /// what its flags override, then calls ``setScale(_:)``, sets the renderer's theme
        /// (and ``invalidate()``), or ``reducesMotion``.
        case desktopSettingsChanged(DesktopSettings)
        /// Screen readers started or stopped seeing the toolbar (AT-SPI2).
        case accessibilityChanged(AccessibilityStatus)
        /// Tab moved the keyboard focus out of the toolbar (``focusWraps`` is false): past the last
        /// button (`forward`) or, with Shift+Tab, before the first (`backward`). No button has the
        /// focus now; give it to the next (or previous) widget of your window.
        case focusLeft(FocusDirection)
        /// X's keyboard focus came to a child host's own window and gave the toolbar the focus
        /// (a click under a click-to-focus window manager, a screen reader, another client's
        /// SetInputFocus): ``hasFocus`` is true and the first button focused. Show no focus in
        /// your own widgets now. Not reported for ``focus(from:)``, which is your own call.
        case focusEntered
        /// A right press, the Menu key or Shift+F10 asks for `button`'s peek: open one with
        /// ``openPeek(for:rows:trigger:strings:)``, or leave it.
        case peekRequested(ToolbarButton, PeekTrigger)
        /// The open peek was shown, activated, dismissed or closed.
        case peek(PeekEvent)
        /// Something failed that the host carries on without (a refused request, a frame or the
        /// window icon that could not be drawn, no keyboard); one line for a log.
        case warning(String)
    }

    /// The model the host is a view of: the one owner of the buttons and their badges. The host
    /// draws what it says and sends the user's intents to it (`ToolbarModel.change(_:cause:_:)`).
    public let model: ToolbarModel
    /// The toolbar shown: the model's (`ToolbarModel.replace(toolbar:)` swaps it).
    public var toolbar: Toolbar { model.toolbar }
    /// The host's registration with ``model``.
    private var modelObservation: ToolbarModel.Observation?
    /// The renderer that paints it (its theme can be changed; call ``invalidate()`` afterwards).
    public let renderer: ToolbarRenderer
    /// The connection the window lives on.
    public let connection: XConnection
    /// Where the window is.
    public let placement: Placement
    /// Called with everything the host reports.
    public var onEvent: ((Event) -> Void)?
    /// Called first with every badge action the pointer asks for (a click's increment, a right
    /// click's decrement, a wheel notch), with the pointer button; return true when the action was
    /// yours (a click that opens an application): the badge is then left as it is.
    public var actionHandler: ((ToolbarButton, BadgeAction, PointerButton) -> Bool)?
    /// Called first with every key press; return true when the key was yours. Keys you leave go
    /// to the standard bindings (``ToolbarKeyAction``).
    public var keyHandler: ((KeyPress) -> Bool)?
    /// Called with the events no host on the connection takes (your own windows' events) when the
    /// host reads the connection: ``dispatchEvents()``, ``synchronize(_:)`` and BadgeKit's loop.
    /// Without it, events read by ``synchronize(_:)`` in your own loop are set aside for
    /// ``XConnection/nextEvent()``, and the others are dropped.
    public var unhandledEvent: ((XEvent) -> Void)?

    let clock: any BadgeClock
    let atoms: Atoms
    let surface: WindowSurface
    /// The window as a top-level window of the application's (nil for a child window).
    let topLevel: TopLevelWindow?
    /// The properties the window manager reads (a top-level window's).
    var properties: TopLevelProperties? { topLevel?.properties }
    /// What the window manager says to a top-level window and hears from it.
    var windowManager: WindowManagerProtocols? { topLevel?.windowManager }
    /// `_NET_WM_SYNC_REQUEST` for a top-level window (nil without the SYNC extension).
    var resizeSync: ResizeSync? { topLevel?.resizeSync }
    /// The top-level window's identity (nil for a child window).
    var identity: ApplicationIdentity? { topLevel?.identity }
    var publisher: WindowStatePublisher?
    /// The keymap keys are read through: the session's, once set up.
    var keyboard: Keyboard? { session.keyboard }
    /// The connection's one tooltip window (the session's), once set up.
    var tooltips: TooltipController?
    /// Who this host is to the shared tooltip.
    var tooltipOwner: ObjectIdentifier { ObjectIdentifier(self) }
    /// The peek's window (made on the first open) and what it shows while open (ToolbarHost+Peek.swift).
    var peekWindow: PeekWindow?
    var peekState: PeekState?
    /// A primary press held on a button: when it becomes a long press (a peek).
    var longPressDue: Double?
    var mapped = false
    var bufferPainted = false
    var exposed: PixelRect?
    var pendingSyncs: [() -> Void] = []
    var reportedFailures: Set<String> = []
    var reportedErrors: Set<Int> = []
    var lastFrameTime: Double?
    /// True while the window exists.
    public internal(set) var isAttached = true
    /// True while the top-level window has the keyboard focus.
    public internal(set) var windowHasFocus = false
    /// True while the window asks for attention.
    public internal(set) var isUrgent = false
    /// The focus given by the caller, and whether Tab wraps (ToolbarHost+Focus.swift).
    var keyboardFocus = KeyboardFocus()

    /// How often a frame is drawn while something animates, per second.
    public static let frameRate = 60.0

    /// Opens the toolbar's window on `connection` and lays `toolbar` out at `scale` (nil: the
    /// desktop's, from `Xft.dpi`, else 1), in the direction it was last laid out in, with a model
    /// of its own (``model``). The window is mapped; nothing is drawn until the first ``refresh()``.
    ///
    /// Throws ``X11Error/noSuchWindow(_:)`` when the parent of a child placement does not exist,
    /// ``X11Error/connectionLost(display:reason:)`` for a broken connection, and
    /// ``X11Error/requestRefused(request:error:)`` when the server refuses the window.
    public convenience init(toolbar: Toolbar, renderer: ToolbarRenderer, connection: XConnection, placement: Placement,
                            scale: Double? = nil, clock: any BadgeClock = SystemClock()) throws(X11Error) {
        try self.init(model: ToolbarModel(toolbar: toolbar), renderer: renderer, connection: connection, placement: placement,
                      scale: scale, clock: clock)
    }

    /// Opens a window that shows `model` (a model your other parts share: sources, a bus service,
    /// a command line change it, and the window follows), laid out at `scale` (nil: the desktop's,
    /// from `Xft.dpi`, else 1). Throws as ``init(toolbar:renderer:connection:placement:scale:clock:)``.
    public init(model: ToolbarModel, renderer: ToolbarRenderer, connection: XConnection, placement: Placement,
                scale: Double? = nil, clock: any BadgeClock = SystemClock()) throws(X11Error) {
        if let failure = connection.failure { throw failure }
        let toolbar = model.toolbar
        self.model = model
        self.renderer = renderer
        self.connection = connection
        self.placement = placement
        self.clock = clock
        let session = try DesktopSession.session(of: connection)
        self.session = session
        let atoms = session.atoms
        self.atoms = atoms
        let scale = scale.flatMap { $0.isFinite && $0 > 0 ? $0 : nil } ?? session.settings.scale ?? 1
        // The window's size needs no text: it is mapped before anything is measured or drawn.
        let size = toolbar.preferredSize.pixels(scale: scale)
        switch placement {
        case .topLevel(let identity):
            surface = try WindowSurface(connection: connection, width: size.width, height: size.height, what: "the window")
            topLevel = TopLevelWindow(connection: connection, atoms: atoms, window: surface.window, identity: identity, size: size,
                                      minimum: toolbar.metrics.preferredSize(buttonCount: 1).pixels(scale: scale),
                                      title: identity.titleShowsTotal ? toolbar.title(base: identity.title) : identity.title,
                                      synchronizingResizes: true, takingStartupNotification: true)
        case .child(let parent, let x, let y, _):
            surface = try WindowSurface(connection: connection, parent: parent, x: x, y: y,
                                        width: size.width, height: size.height, what: "the toolbar window")
            topLevel = nil
        }
        tooltips = nil
        if let properties, let identity {
            publisher = makePublisher(properties: properties, identity: identity)
        }
        surface.map()
        try connection.flush()
        // Text is measured (Pango is loaded, fontconfig reads its cache) while the server maps the window.
        do {
            try renderer.text.load()
        } catch {
            throw .unavailable("text", reason: error.message)
        }
        toolbar.layout(size: toolbar.preferredSize, scale: scale, direction: toolbar.direction)
        // A top-level host's first button has the focus, as a new GTK or Qt window's first widget
        // does; a child host's buttons have none until the toolbar gets the focus.
        if properties != nil { toolbar.focusFirstButton() } else { toolbar.resignFocus() }
        connection.router.register(self)
        session.register(self)
        modelObservation = model.observe { [weak self] change in self?.follow(change) }
    }

    deinit { modelObservation?.cancel() }

    /// What the view does when the model changes: a count that rises while the top-level window is
    /// unfocused makes it ask for attention, and the change is reported
    /// (``Event/badgeChanged(_:cause:)``); new buttons are laid out and the window resized.
    private func follow(_ change: ToolbarModel.Change) {
        switch change {
        case .badge(let button, let cause, let countRose):
            if countRose, !windowHasFocus, properties != nil { setUrgent(true) }
            onEvent?(.badgeChanged(button, cause: cause))
        case .replaced(let previous):
            show(model.toolbar, replacing: previous)
        }
    }

    /// What the first frame does not need: the keymap, the tooltip window (and, through the first
    /// window-state push after the frame, the window icon). Set up once the first frame is on its
    /// way, so the window shows its badges sooner.
    func completeStartup() {
        guard !startupPhase.isSetUp else { return }
        startupPhase = .setUp
        topLevel?.startup?.complete(from: surface.window, connection: connection, atoms: atoms)
        topLevel?.startup = nil
        do {
            _ = try session.sharedKeyboard()
        } catch {
            warn("\(error); carrying on without keyboard input")
        }
        do {
            tooltips = try session.sharedTooltips(identity: identityOfCreatedWindows, text: renderer.text, clock: clock)
        } catch {
            warn("\(error); carrying on without tooltips")
        }
        startSessionBus()
        startAccessibility()
    }

    /// Connects the session's buses (after the first frame: connecting and the portal's answer never
    /// delay it). Nothing waits on a bus: one that refuses, stalls or goes away is tried again.
    func startSessionBus() {
        session.onWarning = { [weak self] in self?.warn($0) }
        session.startBuses()
    }

    /// The session this host shares with every other host on its connection: the desktop's
    /// settings, the session bus, and the screen-reader bridge (one AT-SPI2 application).
    public let session: DesktopSession
    /// The session bus (with `DBUS_SESSION_BUS_ADDRESS`, from the first frame on), the session's.
    package var sessionBus: BusConnection? { session.sessionBus }
    /// Whether screen readers see the toolbar (AT-SPI2, serviced by the loop the host is attached to).
    public internal(set) var accessibilityStatus: AccessibilityStatus = .off("not started (it starts after the first frame)") {
        didSet { if accessibilityStatus != oldValue { onEvent?(.accessibilityChanged(accessibilityStatus)) } }
    }
    /// The words screen readers hear for the buttons' actions (English unless set, as from
    /// BadgeDesktop's `DesktopLocale.accessibilityStrings`).
    public var accessibilityStrings: AccessibilityStrings = .english
    /// What the bridge last saw of this host's part of the tree (nil: not yet).
    private var accessibilitySeen: AccessibilitySignature?

    /// Whether the bridge must look again, noting what it will see: the part's signature (the
    /// window, the layout, the focus, each badge's revision, the words) differs from the one it
    /// last saw. Nothing sets a flag: whatever changes one of those is seen, whoever changed it.
    func takeAccessibilityChange() -> Bool {
        let now = accessibilitySignature
        guard now != accessibilitySeen else { return false }
        accessibilitySeen = now
        return true
    }
    /// The loop the host is attached to (the bridge's source joins it when the bridge starts).
    weak var attachedLoop: EventLoop?
    /// The window's top-left pixel on the screen, until the window moves.
    var knownOrigin: (x: Int, y: Int)?
    /// Where the host is in starting up.
    var startupPhase = StartupPhase.firstFrame

    /// What gives the window the scale of the monitor it is on, when one was started.
    public internal(set) var monitorScaleFollower: MonitorScaleFollower?

    /// A sync waits: push the window state at the next refresh instead of coalescing it.
    var windowStateIsDueNow = false

    /// The window's id.
    public var window: UInt32 { surface.window }
    /// The window's size in device pixels.
    public var size: PixelRect { surface.bounds }
    /// How frames reach the window: "shm" (MIT-SHM shared memory) or "putimage" (over the socket:
    /// a remote server, a 16-bit screen, or `BADGEKIT_SHM=0`).
    public var uploadMethod: String { surface.uploadMethod }
    /// The device scale the toolbar is laid out at.
    public var scale: Double { toolbar.scale }
    /// The tooltip shown now, or nil.
    public var tooltip: TooltipInfo? { tooltips?.shown(for: tooltipOwner) }
    /// What the window manager was last told (top-level windows; nil for a child window).
    public var windowState: WindowState? { publisher?.pushed }
    /// What the window manager will be told at the next refresh (nil for a child window).
    public var wantedWindowState: WindowState? {
        identity.map { WindowState(toolbar: toolbar, identity: $0, urgent: isUrgent) }
    }

    /// True while badge changes apply at once, without animation (for every badge).
    public var reducesMotion: Bool {
        get { toolbar.buttons.first?.badge.reducesMotion ?? false }
        set { for button in toolbar.buttons { button.badge.reducesMotion = newValue } }
    }

    /// Changes a badge the way input does, through the model's funnel
    /// (`ToolbarModel.change(_:cause:_:)`): the change is reported
    /// (``Event/badgeChanged(_:cause:)``), a screen reader hears the new description, and a count
    /// that rises while the top-level window is unfocused makes it ask for attention.
    public func change(_ button: ToolbarButton, cause: ChangeCause, _ body: (BadgeController) -> Void) {
        model.change(button, cause: cause, body)
    }

    /// What the desktop's settings say now (XSETTINGS and the X resources).
    /// The portal's `color-scheme`, where it states a preference, wins over the XSETTINGS theme.
    public var desktopSettings: DesktopSettings { session.settings }

    /// Lays the toolbar out at a new device scale (0.5…4; others are ignored), asks for the
    /// window's new preferred size, and repaints.
    public func setScale(_ scale: Double) {
        guard scale.isFinite, scale >= 0.5, scale <= 4, scale != toolbar.scale else { return }
        toolbar.layout(size: toolbar.preferredSize, scale: scale, direction: toolbar.direction)
        let size = toolbar.preferredSize.pixels(scale: scale)
        if isAttached { surface.requestSize(width: size.width, height: size.height) }
        bufferPainted = false
    }

    /// Shows `newToolbar` instead (after a configuration change): laid out at the current scale and
    /// its own direction, the window asked for its new preferred size, the focus on its first
    /// button while the toolbar has the focus (``hasFocus``; none otherwise), everything
    /// repainted. Badges keep whatever content the caller gave them.
    public func replace(toolbar newToolbar: Toolbar) {
        model.replace(toolbar: newToolbar)
    }

    /// Lays out `newToolbar`, which the model shows instead of `previous`.
    private func show(_ newToolbar: Toolbar, replacing previous: Toolbar) {
        tooltips?.hide(suppress: false, owner: tooltipOwner)
        let scale = previous.scale
        newToolbar.layout(size: newToolbar.preferredSize, scale: scale, direction: newToolbar.direction)
        if hasFocus || properties != nil { newToolbar.focusFirstButton() } else { newToolbar.resignFocus() }
        let size = newToolbar.preferredSize.pixels(scale: scale)
        if isAttached { surface.requestSize(width: size.width, height: size.height) }
        lastFrameTime = nil
        bufferPainted = false
    }

    /// Repaints everything at the next refresh (after a theme or style change).
    public func invalidate() {
        bufferPainted = false
    }

    /// Asks for a new size of the toolbar's window in device pixels (a child window is resized at
    /// once; a top-level one as its window manager allows). The toolbar is laid out again when the
    /// server confirms the size. The same as ``resize(width:height:)``.
    public func requestSize(width: Int, height: Int) {
        guard isAttached else { return }
        surface.requestSize(width: width, height: height)
    }

    /// Calls `completion` once every change and input so far is drawn and the server has processed
    /// it (as i3 answers I3_SYNC): events the server generated before now are handled first.
    public func synchronize(_ completion: @escaping () -> Void) {
        windowStateIsDueNow = true
        connection.roundTrip()
        readOnCallersBehalf()
        pendingSyncs.append(completion)
    }

    // MARK: Running

    /// Seconds until the host next needs ``refresh()`` (an animation frame or a due tooltip), or
    /// nil when it needs nothing until an event arrives: idle means no wakeups.
    public var timeUntilNextDeadline: Double? {
        let now = clock.now
        var wake: Double?
        if let last = lastFrameTime {
            // Frames are paced: the next one (which may also be the last, drawing the rest state).
            wake = last + 1 / Self.frameRate - now
        } else if let end = toolbar.animationEndTime, end > now {
            wake = 0
        }
        if let due = tooltips?.dueTime(for: tooltipOwner) { wake = min(wake ?? (due - now), due - now) }
        if let due = peekState?.nextGrabAttempt { wake = min(wake ?? (due - now), due - now) }
        if let due = longPressDue { wake = min(wake ?? (due - now), due - now) }
        if let due = publisher?.dueTime { wake = min(wake ?? (due - now), due - now) }
        if case .firstFrameSent(let due) = startupPhase { wake = min(wake ?? (due - now), due - now) }
        for bus in buses { if let due = bus.timeUntilDeadline { wake = min(wake ?? due, due) } }
        return wake
    }

    /// The poll() timeout in milliseconds for the caller's loop: -1 to sleep until an event, 0 when
    /// work is due now.
    /// 0 too while events read on your behalf wait for ``XConnection/nextEvent()``.
    public var pollTimeout: Int32 {
        connection.hasEventsSetAside ? 0 : EventLoop.timeoutMilliseconds(after: timeUntilNextDeadline)
    }

    /// Reads every event that has arrived on the connection, including those already queued inside
    /// XCB, and offers each to every host on the connection (the one whose window it names takes
    /// it). What no host takes is yours and goes to ``unhandledEvent`` (dropped without one), as do
    /// the events that were set aside for you earlier. In your own loop you can instead read
    /// ``XConnection/nextEvent()`` and offer each event to ``handle(_:)`` yourself.
    public func dispatchEvents() {
        while let event = connection.router.takeSetAside() { unhandledEvent?(event) }
        while let event = connection.nextEventFromServer() { route(event, keepingForCaller: false) }
    }

    /// Reads what arrived while BadgeKit waited for the server on the caller's behalf (a
    /// synchronize, a round trip): the hosts' events are handled, and the caller's go to
    /// ``unhandledEvent`` or, in the caller's own loop, are set aside for ``XConnection/nextEvent()``.
    func readOnCallersBehalf() {
        while let event = connection.nextEventFromServer() { route(event, keepingForCaller: attachedLoop == nil) }
    }

    /// Gives `event` to the host it belongs to, or to the caller.
    func route(_ event: XEvent, keepingForCaller: Bool) {
        guard !connection.router.offer(event) else { return }
        if let unhandledEvent {
            unhandledEvent(event)
        } else if keepingForCaller {
            connection.router.setAside(event)
        }
    }

    /// Adds the host to `loop`: its connection as the source "x11", a preparation "toolbar" that
    /// handles queued events and refreshes before the loop sleeps, and its deadline. A lost
    /// connection ends the loop with ``X11Error/connectionLost(display:reason:)``.
    public func attach(to loop: EventLoop) {
        loop.add(EventLoop.Source(
            name: "x11", descriptor: { [connection] in connection.fileDescriptor }, interest: { .readable },
            handle: { [weak self] readiness in
                guard let self else { return }
                self.dispatchEvents()
                if let failure = self.connection.failure { throw self.lost(failure) }
                if readiness.failed, !readiness.readable { throw self.lost(nil) }
            }))
        loop.addPreparation(named: "toolbar") { [weak self] () throws -> Bool in
            guard let self else { return false }
            self.dispatchEvents()
            try self.refresh()
            // Events pulled into XCB's queue by a reply or a flush do not make the socket readable.
            if let queued = self.connection.nextQueuedEventFromServer() {
                self.route(queued, keepingForCaller: false)
                return true
            }
            return false
        }
        loop.addDeadline(named: "toolbar") { [weak self] in self?.timeUntilNextDeadline }
        attachedLoop = loop
        session.add(to: loop)
    }

    /// Runs the host in a loop of its own until the window is closed (``Event/closeRequested``, or
    /// `EventLoop/stop()` on the loop passed to `onStart`) or detached. Throws when the
    /// connection is lost.
    public func run() throws(X11Error) {
        let loop = EventLoop()
        attach(to: loop)
        let previous = onEvent
        onEvent = { event in
            previous?(event)
            switch event {
            case .closeRequested, .detached: loop.stop()
            default: break
            }
        }
        defer { onEvent = previous }
        do {
            try loop.run()
        } catch let error as X11Error {
            throw error
        } catch {
            throw .unavailable("the event loop", reason: "\(error)")
        }
    }

    /// The error for a lost connection, with the reason users see for a server that went away.
    func lost(_ failure: X11Error?) -> X11Error {
        let status = connection.errorStatus
        let reason = status == 0 || status == XCB_CONN_ERROR
            ? "the server closed the connection: it exited, or a client such as xkill closed ours"
            : XConnection.describe(connectionError: status)
        return .connectionLost(display: connection.displayName, reason: reason)
    }

    /// Reports `message` once per distinct text (a failing frame repeats at the frame rate).
    func warn(_ message: String, once: Bool = false) {
        if once, !reportedFailures.insert(message).inserted { return }
        onEvent?(.warning(message))
    }

    private func makePublisher(properties: TopLevelProperties, identity: ApplicationIdentity) -> WindowStatePublisher {
        WindowStatePublisher(
            clock: clock,
            title: { properties.setTitle($0) },
            iconBadge: { [weak self] badge in
                guard let self else { return }
                do {
                    properties.setIcon(try WindowIcon.cardinals(badge: badge, icons: self.renderer.icons, text: self.renderer.text,
                                                                iconName: identity.iconName))
                } catch {
                    self.warn("cannot draw the window icon (\(error)); taskbars keep the previous one")
                }
            },
            urgent: { [weak self] in self?.pushUrgency($0) })
    }
}
