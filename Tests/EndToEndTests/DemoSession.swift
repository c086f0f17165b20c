import BadgeCore
import Glibc
import Testing
import XvfbHarness
import BadgeControl

/// One toolbar button as reported by the app's `state` event.
struct ButtonState: Sendable {
    let id: String
    let contentKind: String
    let count: Int?
    let text: String
    let description: String
    let button: PixelRect
    let badge: PixelRect?
    let json: JSONValue
}

/// The app's `state` event, decoded.
struct AppState: Sendable {
    let buttons: [ButtonState]
    let title: String
    let animating: Bool

    init(_ event: JSONValue) throws {
        guard let list = event["buttons"]?.array else { throw HarnessError("state without a buttons array: \(event)") }
        buttons = try list.map { b in
            guard let id = b["id"]?.string, let kind = b["content"]?["kind"]?.string, let text = b["text"]?.string,
                  let rect = PixelRect(json: b["button"]) else {
                throw HarnessError("state: malformed button \(b)")
            }
            let badge = PixelRect(json: b["badge"])
            guard badge != nil || b["badge"]?.isNull == true else { throw HarnessError("state: malformed badge in \(b)") }
            return ButtonState(id: id, contentKind: kind, count: b["content"]?["count"]?.int, text: text,
                               description: b["description"]?.string ?? "", button: rect, badge: badge, json: b)
        }
        guard let title = event["title"]?.string, let animating = event["animating"]?.bool else {
            throw HarnessError("state without title/animating: \(event)")
        }
        self.title = title
        self.animating = animating
    }

    func button(_ id: String) throws -> ButtonState {
        guard let b = buttons.first(where: { $0.id == id }) else {
            throw HarnessError("no button \"\(id)\" in state; buttons: \(buttons.map(\.id))")
        }
        return b
    }
}

/// X button numbers.
enum MouseButton {
    static let left: UInt8 = 1, middle: UInt8 = 2, right: UInt8 = 3, wheelUp: UInt8 = 4, wheelDown: UInt8 = 5
}

/// The badge colour family (#E53935 and close relatives, anti-aliasing aside).
func isBadgeRed(_ p: RGB) -> Bool {
    p.r >= 170 && p.g <= 120 && p.b <= 120 && Int(p.r) - Int(p.g) >= 90
}

/// Near-white, as the badge text.
func isWhite(_ p: RGB) -> Bool { p.r >= 225 && p.g >= 225 && p.b >= 225 }

/// The part of a badge rectangle that is surely inside the badge body (a circle or a pill): inset by
/// 20 % of the height on every side, away from the anti-aliased edge, a border ring and the corners.
func badgeInterior(_ r: PixelRect) -> PixelRect {
    let inset = max(1, (r.height * 20 + 99) / 100)
    return r.insetBy(dx: inset, dy: inset)
}

/// Records an issue, saving the given captures under .build/test-artifacts, when `condition` is false.
func expectPixels(_ condition: Bool, _ message: String, images: [String: CapturedImage], test: String,
                  sourceLocation: SourceLocation = #_sourceLocation) {
    guard !condition else { return }
    let paths = images.sorted(by: { $0.key < $1.key }).map { $0.value.saveArtifact(named: "\(test)-\($0.key)") }
    Issue.record(Comment(rawValue: "\(message); captures saved: \(paths.joined(separator: ", "))"), sourceLocation: sourceLocation)
}

/// A private Xvfb, the real `badge-demo --control` on it, and an XTEST connection.
///
/// Launch waits for the "ready" event (10 s deadline). Rectangles come from `state`; input goes
/// through XTEST; `sync()` waits for the app's answer, after which its pixels are final.
final class DemoSession {
    let name: String
    let server: XvfbServer
    let x: XTestClient
    let app: ChildProcess
    let window: UInt32
    let size: (width: Int, height: Int)
    private var syncCounter = 0

    /// - Parameters:
    ///   - name: used for artifact file names.
    ///   - arguments: extra arguments after `--control`.
    ///   - reduceMotion: sets BADGE_REDUCE_MOTION=1 (deterministic pixels) or removes it.
    ///   - depth: the Xvfb screen's depth.
    ///   - screenWidth: the Xvfb screen's width (two 640-pixel monitors side by side need 1280).
    ///   - screenHeight: the Xvfb screen's height.
    ///   - serverArguments: more Xvfb arguments (e.g. `-cc 5`: a DirectColor default visual).
    ///   - environment: extra variables for the app (e.g. DBUS_SESSION_BUS_ADDRESS).
    ///   - beforeLaunch: runs after the server starts and before the app does (e.g. starts a window manager).
    ///   - prepare: like `beforeLaunch`, and returns more variables for the app (e.g. an accessibility
    ///     stack started on the new display).
    init(_ name: String, arguments: [String] = [], reduceMotion: Bool = true, depth: Int = 24, screenWidth: Int = 640,
         screenHeight: Int = 480, serverArguments: [String] = [],
         environment: [String: String] = [:], beforeLaunch: ((XvfbServer, XTestClient) throws -> Void)? = nil,
         prepare: ((XvfbServer, XTestClient) throws -> [String: String])? = nil) throws {
        self.name = name
        server = try XvfbServer.start(width: screenWidth, height: screenHeight, depth: depth, extraArguments: serverArguments)
        x = try XTestClient(display: server.display)
        // Park the pointer away from where the window will appear (top-left without a WM).
        try x.movePointerToCorner()
        try beforeLaunch?(server, x)
        let prepared = try prepare?(server, x) ?? [:]
        let executable = try BuiltProducts.executable(named: "badge-demo")
        var variables = environment.merging(prepared) { $1 }
        variables["DISPLAY"] = server.display
        if reduceMotion { variables["BADGE_REDUCE_MOTION"] = "1" }
        app = try ChildProcess(executable: executable, arguments: ["--control"] + arguments,
                               environment: .inherited(adding: variables, removing: reduceMotion ? [] : ["BADGE_REDUCE_MOTION"]))
        let ready = try app.readEvent(named: "ready", timeout: 10)
        guard let id = ready["window"]?.int, id > 0, id <= Int(UInt32.max),
              let width = ready["width"]?.int, let height = ready["height"]?.int, width > 0, height > 0 else {
            throw HarnessError("malformed ready event: \(ready)")
        }
        window = UInt32(id)
        var geometry = try x.geometry(ofWindow: window)
        var shown = (width: width, height: height)
        if geometry.width != width || geometry.height != height {
            // A monitor's scale (an output's DPI read by RandR) may be applied just after the first
            // frame on a busy machine: the window has its new size then, and `state`, once every
            // input is handled, says the same.
            let deadline = Deadline(seconds: 10)
            repeat {
                try app.writeLine("state")
                let state = try app.readEvent(named: "state", timeout: 10)
                shown = (state["size"]?["width"]?.int ?? 0, state["size"]?["height"]?.int ?? 0)
                geometry = try x.geometry(ofWindow: window)
            } while (geometry.width != shown.width || geometry.height != shown.height) && !deadline.hasPassed
        }
        size = shown
        guard geometry.width == shown.width, geometry.height == shown.height else {
            throw HarnessError("ready says \(width)x\(height), state \(shown.width)x\(shown.height), but the window is \(geometry.width)x\(geometry.height)")
        }
        guard width < x.screenWidth - 1 || height < x.screenHeight - 1 else {
            throw HarnessError("window \(width)x\(height) covers the whole screen: the pointer cannot be parked outside it")
        }
    }

    deinit {
        app.kill(SIGKILL)
        app.waitForExit(timeout: 5)
    }

    /// The window's bounds in window coordinates.
    var bounds: PixelRect { PixelRect(x: 0, y: 0, width: size.width, height: size.height) }

    /// Sends one control line.
    func command(_ line: String) throws { try app.writeLine(line) }

    /// Sends `sync TOKEN` and waits for its answer: everything earlier is drawn and flushed.
    func sync(timeout: Double = 10) throws {
        syncCounter += 1
        let token = "\(name)-\(syncCounter)"
        try app.writeLine("sync \(token)")
        _ = try app.readEvent(named: "sync", timeout: timeout) { $0["token"]?.string == token }
    }

    /// Asks for and decodes the `state` event.
    func state() throws -> AppState {
        try app.writeLine("state")
        return try AppState(app.readEvent(named: "state", timeout: 10))
    }

    /// Root coordinates of the centre of a rectangle given in window pixels.
    func rootCenter(of rect: PixelRect) throws -> (x: Int, y: Int) {
        let c = rect.center
        return try x.rootPoint(inWindow: window, x: c.x, y: c.y)
    }

    /// Clicks `button` on the centre of toolbar button `id` (rectangle from `state`).
    func click(_ button: UInt8, on id: String) throws {
        let target = try state().button(id)
        try x.click(button: button, atRoot: rootCenter(of: target.button))
    }

    /// Moves the pointer off the window (no hover), then syncs with the app.
    func moveAwayAndSync() throws {
        try x.movePointerToCorner()
        try sync()
    }

    /// Captures the window (or a rectangle of it).
    func capture(_ rect: PixelRect? = nil) throws -> CapturedImage {
        try x.capture(window: window, rect: rect)
    }

    /// Waits for the next `change` event.
    func nextChange(timeout: Double = 10) throws -> JSONValue {
        try app.readEvent(named: "change", timeout: timeout)
    }

    /// `change` events read but not consumed (e.g. seen while waiting for a sync answer).
    func unconsumedChanges() -> [JSONValue] { app.takePendingEvents(named: "change") }
}
