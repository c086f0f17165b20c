import BadgeCore
import Glibc
import XvfbHarness

/// badge-demo next to the same two-button badge toolbar written with other toolkits
/// (Benchmarks/peers): time from launch until the badges' red is on the screen, found the same way
/// for every program by reading the screen back (GetImage), and resident memory at that moment.
enum PeerBenchmark {
    /// One program drawing the toolbar.
    struct Peer {
        let name: String
        let executable: String
        var arguments: [String] = []
        var environment: [String: String] = [:]
    }

    /// A program's medians over `launches` runs.
    struct Result {
        let firstBadge: Double
        let resident: Double
    }

    /// The badge red every program paints (BadgeStyle's default background).
    static let badgeRed = RGB(r: 229, g: 57, b: 53)

    /// Launches `peer` `launches` times on `display`, alone on the screen each time.
    static func measure(_ peer: Peer, display: String, x: XTestClient, launches: Int = 15) throws -> Result {
        var times: [Double] = [], resident: [Double] = []
        // The windows appear at the top-left corner (no window manager); look only there.
        let region = PixelRect(x: 0, y: 0, width: min(320, x.screenWidth), height: min(120, x.screenHeight))
        func badgeShown() throws -> Bool {
            // A badge is more than a few stray pixels of red: wait for most of one.
            try x.capture(window: x.root, rect: region).count(near: badgeRed, tolerance: 40) >= 120
        }
        for _ in 0..<launches {
            // The server removes a killed program's window when it sees the connection close, which
            // can be after the process is gone: start only once the previous badges have left the screen.
            let cleared = Deadline(seconds: 5)
            while try badgeShown() {
                guard !cleared.hasPassed else { throw HarnessError("\(peer.name): badges of an earlier run stay on the screen") }
            }
            var variables = peer.environment
            variables["DISPLAY"] = display
            let start = ContinuousClock.now
            let child = try ChildProcess(executable: peer.executable, arguments: peer.arguments,
                                         environment: .inherited(adding: variables), stdin: .null, stdout: .null)
            defer { child.kill(SIGKILL); _ = child.waitForExit(timeout: 5) }
            let deadline = Deadline(seconds: 10)
            var shown = false
            while !shown {
                guard !deadline.hasPassed else {
                    throw HarnessError("\(peer.name): no badge on the screen 10 s after launch; stderr: \(child.stderrText)")
                }
                if child.waitForExit(timeout: 0) != nil {
                    throw HarnessError("\(peer.name) exited before drawing; stderr: \(child.stderrText)")
                }
                shown = try badgeShown()
            }
            times.append(Statistics.seconds(since: start))
            resident.append(Double(try child.residentKilobytes()) / 1024)
        }
        return Result(firstBadge: Statistics.median(times), resident: Statistics.median(resident))
    }
}
