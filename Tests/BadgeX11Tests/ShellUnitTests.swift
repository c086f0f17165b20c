import BadgeCore
import Glibc
import Testing
@testable import BadgeX11

@Suite struct XErrorDescriptionTests {
    @Test func refusedRequestsAreNamed() {
        #expect(XErrorDescription.describe(code: 4, major: 54, minor: 0, resource: 0) == "BadPixmap (4) in FreePixmap (54), resource 0x0")
        #expect(XErrorDescription.describe(code: 3, major: 72, minor: 0, resource: 0x200001)
            == "BadWindow (3) in PutImage (72), resource 0x200001")
        #expect(XErrorDescription.describe(code: 200, major: 140, minor: 3, resource: 7) == "error 200 in extension request 140.3, resource 0x7")
        #expect(XErrorDescription.errorName(0) == "error 0" && XErrorDescription.errorName(17) == "BadImplementation (17)")
        #expect(XErrorDescription.requestName(99) == "request 99")
    }

    @Test func errorsNameNoProgram() {
        let errors: [X11Error] = [.noDisplay, .cannotOpenDisplay(":9", reason: "refused"), .connectionLost(display: ":9", reason: "gone"),
                                  .requestRefused(request: "create the window", error: "BadAlloc (11)"), .noSuchWindow(0x1234),
                                  .unavailable("keyboard input", reason: "no XKB")]
        for error in errors {
            #expect(!error.description.contains("badge-demo") && !error.description.contains("\n") && !error.description.isEmpty)
        }
        #expect(X11Error.noSuchWindow(0x1234).description.contains("0x1234"))
        #expect(X11Error.cannotOpenDisplay(":9", reason: "").description == "cannot open display \":9\"")
    }
}

@Suite struct ToolbarKeyActionTests {
    func press(_ symbol: UInt32, control: Bool = false, shift: Bool = false) -> KeyPress {
        KeyPress(symbol: symbol, text: "", control: control, shift: shift)
    }

    @Test func standardKeys() {
        #expect(ToolbarKeyAction.action(for: press(KeySymbol.tab)) == .focusNext)
        #expect(ToolbarKeyAction.action(for: press(KeySymbol.tab, shift: true)) == .focusPrevious)
        #expect(ToolbarKeyAction.action(for: press(KeySymbol.leftTab, shift: true)) == .focusPrevious)
        for symbol in [KeySymbol.space, KeySymbol.returnKey, KeySymbol.plus, KeySymbol.keypadAdd, KeySymbol.keypadEnter] {
            #expect(ToolbarKeyAction.action(for: press(symbol)) == .badge(.increment))
        }
        for symbol in [KeySymbol.minus, KeySymbol.backSpace, KeySymbol.keypadSubtract] {
            #expect(ToolbarKeyAction.action(for: press(symbol)) == .badge(.decrement))
        }
        for symbol in [KeySymbol.delete, KeySymbol.zero, KeySymbol.keypadZero, KeySymbol.keypadDelete] {
            #expect(ToolbarKeyAction.action(for: press(symbol)) == .badge(.clear))
        }
        #expect(ToolbarKeyAction.action(for: press(KeySymbol.space, control: true)) == nil)
        #expect(ToolbarKeyAction.action(for: press(KeySymbol.escape)) == nil, "quitting is the application's choice")
        // The names are xkbcommon's keysyms.
        #expect(KeySymbol.tab == 0xff09 && KeySymbol.escape == 0xff1b && KeySymbol.space == 0x20)
    }
}

@Suite struct WindowStateTests {
    final class Counter: TextMeasuring {
        func size(of text: String, font: BadgeFont) -> Size { Size(width: Double(text.count) * 7, height: 14) }
    }

    func toolbar(_ counts: [Int]) -> Toolbar {
        let clock = ManualClock()
        return Toolbar(buttons: counts.enumerated().map { index, count in
            ToolbarButton(id: "b\(index)", iconName: "bell",
                          badge: BadgeController(accessibilityLabel: "B", content: .count(count), clock: clock, measurer: Counter()))
        })
    }

    @Test func titleAndIconFollowTheIdentity() {
        let identity = ApplicationIdentity(instanceName: "mail-client", title: "Inbox")
        #expect(identity.className == "Mail-client" && identity.desktopFileID == "mail-client")
        #expect(identity.wmClassBytes == Array("mail-client\0Mail-client\0".utf8))
        #expect(WindowState(toolbar: toolbar([3, 12]), identity: identity, urgent: false).title == "(15) Inbox")
        #expect(WindowState(toolbar: toolbar([0]), identity: identity, urgent: false).title == "Inbox")
        var plain = identity
        plain.titleShowsTotal = false
        #expect(WindowState(toolbar: toolbar([3]), identity: plain, urgent: false).title == "Inbox")
        #expect(WindowState.iconBadge(total: 0) == "" && WindowState.iconBadge(total: 7) == "7" && WindowState.iconBadge(total: 100) == "99+")
    }

    @Test func pushesOnlyWhatChanged() {
        var titles: [String] = [], icons: [String] = [], urgency: [Bool] = []
        let clock = ManualClock(now: 10)
        let publisher = WindowStatePublisher(clock: clock, title: { titles.append($0) }, iconBadge: { icons.append($0) },
                                             urgent: { urgency.append($0) })
        publisher.request(WindowState(title: "(1) A", iconBadge: "1", urgent: false))
        #expect(titles == ["(1) A"] && icons == ["1"] && urgency == [false])
        clock.advance(by: 1)
        let none = publisher.request(WindowState(title: "(1) A", iconBadge: "1", urgent: false))
        #expect(none.isEmpty && titles.count == 1 && icons.count == 1 && urgency.count == 1)
        for (state, wait) in [(WindowState(title: "(2) A", iconBadge: "2", urgent: true), 1.0),
                              (WindowState(title: "(100) A", iconBadge: "99+", urgent: true), 1.0),
                              (WindowState(title: "(101) A", iconBadge: "99+", urgent: true), 1.0)] {
            publisher.request(state)
            clock.advance(by: WindowStatePublisher.lead)
            publisher.fireIfDue()
            clock.advance(by: wait)
        }
        #expect(titles == ["(1) A", "(2) A", "(100) A", "(101) A"])
        #expect(icons == ["1", "2", "99+"], "the icon is redrawn only when its text changes")
        #expect(urgency == [false, true])
        #expect(publisher.pushed == WindowState(title: "(101) A", iconBadge: "99+", urgent: true))
    }

    @Test func aBurstIsCoalescedAndEndsInTheFinalState() {
        var titles: [String] = []
        let clock = ManualClock(now: 100)
        let publisher = WindowStatePublisher(clock: clock, title: { titles.append($0) }, iconBadge: { _ in }, urgent: { _ in })
        // 200 changes 5 ms apart (a second), the loop refreshing after each one and at the deadline.
        var pushTimes: [Double] = []
        var count = 0
        for _ in 0..<200 {
            count += 1
            if !publisher.request(WindowState(title: "(\(count)) A", iconBadge: "", urgent: false)).isEmpty { pushTimes.append(clock.now) }
            let next = clock.now + 0.005
            if let due = publisher.dueTime, due < next {
                clock.now = due
                if !publisher.fireIfDue().isEmpty { pushTimes.append(clock.now) }
            }
            clock.now = next
        }
        let lastChange = clock.now - 0.005
        while let due = publisher.dueTime {
            clock.now = due
            if !publisher.fireIfDue().isEmpty { pushTimes.append(clock.now) }
        }
        #expect(titles.last == "(200) A", "the final state is pushed")
        #expect(pushTimes.count <= 5, "at most a few pushes a second, not 200: \(pushTimes.count)")
        #expect((pushTimes.last ?? .infinity) - lastChange <= WindowStatePublisher.settle + 1e-9)
        // During the burst pushes are an interval apart; only the final one may come sooner (it
        // waits at most `settle` after the last change).
        let duringBurst = Array(pushTimes.dropLast())
        for (a, b) in zip(duringBurst, duringBurst.dropFirst()) { #expect(b - a >= WindowStatePublisher.interval - 1e-9) }
        // A change after a quiet spell is pushed one frame later (the frame goes first).
        clock.advance(by: 5)
        #expect(publisher.request(WindowState(title: "(201) A", iconBadge: "", urgent: false)).isEmpty)
        #expect(publisher.dueTime == clock.now + WindowStatePublisher.lead)
        clock.advance(by: WindowStatePublisher.lead)
        #expect(publisher.fireIfDue().title)
        #expect(titles.last == "(201) A")
        // A sync pushes at once too, even within the interval.
        clock.advance(by: 0.01)
        #expect(publisher.request(WindowState(title: "(202) A", iconBadge: "", urgent: false), immediately: true).title)
    }
}

@Suite struct EventLoopTests {
    @Test func timeoutsRoundUpAndNeverGoNegative() {
        #expect(EventLoop.timeoutMilliseconds(after: nil) == -1)
        #expect(EventLoop.timeoutMilliseconds(after: .infinity) == -1)
        #expect(EventLoop.timeoutMilliseconds(after: .nan) == -1)
        #expect(EventLoop.timeoutMilliseconds(after: -5) == 0, "a deadline in the past is due now")
        #expect(EventLoop.timeoutMilliseconds(after: 0) == 0)
        #expect(EventLoop.timeoutMilliseconds(after: 1.0 / 60) == 17)
        #expect(EventLoop.timeoutMilliseconds(after: 0.0001) == 1)
        #expect(EventLoop.timeoutMilliseconds(after: 1e12) == 3_600_000)
    }

    @Test func namedSourcesRunInOrderAndStop() throws {
        let loop = EventLoop()
        var order: [String] = []
        var fds: [Int32] = [-1, -1]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        loop.add(EventLoop.Source(name: "pipe", descriptor: { fds[0] }, interest: { .readable }, handle: { readiness in
            var byte: UInt8 = 0
            _ = read(fds[0], &byte, 1)
            order.append("pipe:\(byte)")
            if byte == 2 { loop.stop() }
        }))
        var preparations = 0
        loop.addPreparation(named: "prepare") {
            preparations += 1
            order.append("prepare")
            return false
        }
        loop.addDeadline(named: "never") { nil }
        #expect(loop.names.sources == ["pipe"] && loop.names.preparations == ["prepare"] && loop.names.deadlines == ["never"])
        // A limit in the past: one turn that does not sleep.
        try loop.runOnce(until: -1)
        #expect(order == ["prepare"])
        var one: UInt8 = 1, two: UInt8 = 2
        _ = write(fds[1], &one, 1)
        try loop.runOnce(until: 5)
        #expect(order == ["prepare", "prepare", "pipe:1"])
        _ = write(fds[1], &two, 1)
        try loop.run()
        #expect(order.last == "pipe:2" && loop.isStopped)
    }

    @Test func aPreparationWithMoreWorkRunsAgainBeforeSleeping() throws {
        let loop = EventLoop()
        var left = 3
        loop.addPreparation(named: "queued") {
            left -= 1
            return left > 0
        }
        // Nothing to wait for and an hour's limit: returns only because no work is left and the
        // deadline below is due.
        loop.addDeadline(named: "due") { 0 }
        try loop.runOnce(until: 3600)
        #expect(left == 0)
    }
}

@Suite struct BadgeBusServiceNameTests {
    @Test("A profile's bus name: the name itself without one, else .p_ and the profile, each character a bus name refuses as _")
    func profileBusName() {
        #expect(BadgeBusService.busName("io.x.App", profile: nil) == "io.x.App")
        #expect(BadgeBusService.busName("io.x.App", profile: "") == "io.x.App")
        #expect(BadgeBusService.busName("io.x.App", profile: "work-2") == "io.x.App.p_work_2")
        #expect(BadgeBusService.busName("io.x.App", profile: "1 é.x") == "io.x.App.p_1___x")
        #expect(DBusIntrospection.isValidBusName(BadgeBusService.busName("io.x.App", profile: String(repeating: "z", count: 400))))
    }
}

@Suite struct XSettingsDecodingTests {
    /// XSETTINGS data as a daemon writes it, in either byte order.
    static func encode(_ settings: [(String, XSetting)], bigEndian: Bool = false, count: UInt32? = nil) -> [UInt8] {
        func card32(_ v: UInt32) -> [UInt8] {
            bigEndian ? [UInt8(v >> 24), UInt8(v >> 16 & 0xff), UInt8(v >> 8 & 0xff), UInt8(v & 0xff)]
                : [UInt8(v & 0xff), UInt8(v >> 8 & 0xff), UInt8(v >> 16 & 0xff), UInt8(v >> 24)]
        }
        func card16(_ v: UInt16) -> [UInt8] { bigEndian ? [UInt8(v >> 8), UInt8(v & 0xff)] : [UInt8(v & 0xff), UInt8(v >> 8)] }
        func padded(_ bytes: [UInt8]) -> [UInt8] { bytes + [UInt8](repeating: 0, count: (4 - bytes.count % 4) % 4) }
        var out: [UInt8] = [bigEndian ? 1 : 0, 0, 0, 0] + card32(7) + card32(count ?? UInt32(settings.count))
        for (name, value) in settings {
            let type: UInt8
            var body: [UInt8]
            switch value {
            case .integer(let v): type = 0; body = card32(UInt32(bitPattern: v))
            case .string(let s): type = 1; body = card32(UInt32(s.utf8.count)) + padded(Array(s.utf8))
            case .color(let r, let g, let b, let a): type = 2; body = card16(r) + card16(g) + card16(b) + card16(a)
            }
            out += [type, 0] + card16(UInt16(name.utf8.count)) + padded(Array(name.utf8)) + card32(3) + body
        }
        return out
    }

    let sample: [(String, XSetting)] = [("Xft/DPI", .integer(144 * 1024)), ("Net/ThemeName", .string("Adwaita-dark")),
                                        ("Gtk/EnableAnimations", .integer(0)), ("Gtk/CursorColor", .color(red: 1, green: 2, blue: 3, alpha: 4))]

    @Test(arguments: [false, true])
    func decodesBothByteOrders(bigEndian: Bool) {
        let decoded = XSetting.decode(Self.encode(sample, bigEndian: bigEndian))
        #expect(decoded["Xft/DPI"] == .integer(144 * 1024) && decoded["Net/ThemeName"] == .string("Adwaita-dark"))
        #expect(decoded["Gtk/CursorColor"] == .color(red: 1, green: 2, blue: 3, alpha: 4))
        let settings = DesktopSettings(xsettings: decoded, resourceScale: 2)
        #expect(settings.scale == 1.5 && settings.prefersDark == true && settings.reducesMotion == true)
    }

    @Test func malformedDataNeverTraps() {
        let whole = Self.encode(sample)
        for length in 0..<whole.count {
            let decoded = XSetting.decode(Array(whole.prefix(length)))  // every truncation
            #expect(decoded.count <= sample.count)
        }
        #expect(XSetting.decode([7, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0]).isEmpty, "a byte order that is neither 0 nor 1")
        #expect(XSetting.decode(Self.encode(sample, count: .max)).count == sample.count, "an absurd count")
        var unknown = Self.encode([("A", .integer(1))])
        unknown[12] = 9  // an unknown type
        #expect(XSetting.decode(unknown).isEmpty)
        let random = (0..<2000).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 7) }
        _ = XSetting.decode([0, 0, 0, 0] + random)
    }

    @Test(arguments: [Int32(0), Int32(-96 * 1024), Int32.max, Int32(1), Int32(20 * 1024), Int32(1000 * 1024)])
    func absurdDPIIsIgnored(dpi1024: Int32) {
        let settings = DesktopSettings(xsettings: ["Xft/DPI": .integer(dpi1024)], resourceScale: nil)
        #expect(settings.scale == nil, "\(dpi1024)")
    }

    @Test func themesAndFallbacks() {
        #expect(DesktopSettings(xsettings: ["Net/ThemeName": .string("Adwaita")], resourceScale: nil).prefersDark == false)
        #expect(DesktopSettings(xsettings: ["Net/ThemeName": .string("Adwaita"), "Gtk/ApplicationPreferDarkTheme": .integer(1)],
                                resourceScale: nil).prefersDark == true)
        #expect(DesktopSettings(xsettings: [:], resourceScale: 1.25).scale == 1.25, "Xft.dpi from the resources without XSETTINGS")
        #expect(DesktopSettings(xsettings: [:], resourceScale: nil) == DesktopSettings())
    }
}

@Suite struct XResourcesTests {
    @Test func readsXftDPI() {
        #expect(XResources.scale(fromResources: "Xft.antialias:\t1\nXft.dpi:\t192\n") == 2)
        #expect(XResources.scale(fromResources: "Xft.dpi: 144") == 1.5)
        #expect(XResources.scale(fromResources: "Xcursor.size: 24") == nil)
        #expect(XResources.scale(fromResources: "Xft.dpi: lots") == nil)
        #expect(XResources.scale(fromResources: "Xft.dpi: 100000") == nil)
    }
}
