import BadgeCore
import Glibc
import Testing
import XvfbHarness

/// The window on screens of every depth: the same pixels as on a depth-24 screen, within what the
/// screen's channels can hold, or a clear exit where no visual can be drawn in.
@Suite("E2E: visuals at depths 8, 15, 16, 24 and 30", .endToEnd(minutes: 2))
struct VisualDepthTests {
    /// A screen to try: its depth, more Xvfb arguments, the depth the window should get, and the
    /// fewest bits a channel has there.
    struct Screen: Sendable, CustomTestStringConvertible {
        let depth: Int
        let serverArguments: [String]
        let windowDepth: Int
        let channelBits: Int
        var testDescription: String { "depth \(depth)" + (serverArguments.isEmpty ? "" : " " + serverArguments.joined(separator: " ")) }

        /// The largest per-channel difference from the depth-24 rendering: a channel cut to `bits`
        /// bits (the upload keeps the top bits) lands up to one step of 2^(8 - bits) away, and is
        /// read back exactly for 8 bits or more (10-bit channels repeat the top bits below).
        var tolerance: Int { channelBits >= 8 ? 1 : 1 << (8 - channelBits) }
    }

    static let screens: [Screen] = [
        Screen(depth: 15, serverArguments: [], windowDepth: 15, channelBits: 5),  // 5:5:5, converted
        Screen(depth: 16, serverArguments: [], windowDepth: 16, channelBits: 5),  // 5:6:5, converted
        Screen(depth: 24, serverArguments: [], windowDepth: 24, channelBits: 8),  // copied as cairo draws it
        // A DirectColor default visual: the app takes a 24-bit TrueColor visual and a colormap of its own.
        Screen(depth: 24, serverArguments: ["-cc", "5"], windowDepth: 24, channelBits: 8),
        Screen(depth: 30, serverArguments: [], windowDepth: 30, channelBits: 10),  // 10:10:10, converted
        // DirectColor default at depth 30: its TrueColor sibling, with a colormap, converted.
        Screen(depth: 30, serverArguments: ["-cc", "5"], windowDepth: 30, channelBits: 10),
    ]

    /// The most frequent colour of `rect` (a flat fill: the background, a badge's body).
    static func dominantColour(of image: CapturedImage, in rect: PixelRect? = nil) -> RGB {
        var counts: [RGB: Int] = [:]
        image.forEachPixel(in: rect) { _, _, p in counts[p, default: 0] += 1 }
        return counts.max { $0.value < $1.value || ($0.value == $1.value && $0.key.description < $1.key.description) }?.key
            ?? RGB(r: 0, g: 0, b: 0)
    }

    @Test("The background and the badge red match a depth-24 screen within the channel's quantization",
          arguments: screens)
    func coloursMatchDepth24(screen: Screen) throws {
        let options = ["--count", "bell=4"]
        let reference = try DemoSession("visual-reference", arguments: options)
        try reference.moveAwayAndSync()
        let expected = try reference.capture()
        let badges = try reference.state().buttons.compactMap(\.badge)
        let background = Self.dominantColour(of: expected)
        #expect(!badges.isEmpty, "the reference shows no badge")
        #expect(!isBadgeRed(background) && background.distance(to: RGB(r: 0, g: 0, b: 0)) > 64,
                "the reference background \(background) is red or black")

        let tag = "visual-depth\(screen.depth)" + screen.serverArguments.joined()
        let s = try DemoSession(tag, arguments: options, depth: screen.depth, serverArguments: screen.serverArguments)
        #expect(s.x.rootDepth == screen.depth)
        #expect(try s.x.geometry(ofWindow: s.window).depth == screen.windowDepth)
        try s.moveAwayAndSync()
        let live = try s.capture()
        #expect(live.width == expected.width && live.height == expected.height,
                "live \(live.width)x\(live.height), depth-24 reference \(expected.width)x\(expected.height)")
        guard live.width == expected.width && live.height == expected.height else { return }
        let images = ["live": live, "depth24": expected]

        // Every pixel of the background colour.
        var worstBackground = 0
        expected.forEachPixel { x, y, p in
            if p == background { worstBackground = max(worstBackground, live.pixel(x: x, y: y).distance(to: p)) }
        }
        expectPixels(worstBackground <= screen.tolerance,
                     "background \(background): a pixel is \(worstBackground) off per channel (tolerance \(screen.tolerance))",
                     images: images, test: tag)
        // Every pixel of each badge's fill.
        for badge in badges {
            let interior = badgeInterior(badge)
            let red = Self.dominantColour(of: expected, in: interior)
            #expect(isBadgeRed(red), "the reference badge fill \(red) is not the badge red")
            var worst = 0
            expected.forEachPixel(in: interior) { x, y, p in
                if p == red { worst = max(worst, live.pixel(x: x, y: y).distance(to: p)) }
            }
            let shown = Self.dominantColour(of: live, in: interior)
            expectPixels(worst <= screen.tolerance,
                         "badge red \(red) shows as \(shown): a pixel is \(worst) off per channel (tolerance \(screen.tolerance))",
                         images: images, test: tag)
        }
        // And the whole window, anti-aliased edges and text included.
        let differing = live.differingPixels(from: expected, tolerance: screen.tolerance)
        expectPixels(differing * 1000 <= live.pixels.count,
                     "\(differing) of \(live.pixels.count) pixels are more than \(screen.tolerance) off the depth-24 rendering",
                     images: images, test: tag)
    }

    /// Hovers the mail button until its tooltip shows, and captures the tooltip window.
    static func tooltip(of s: DemoSession) throws -> CapturedImage {
        try s.moveAwayAndSync()
        try s.x.move(toRoot: s.rootCenter(of: s.state().button("mail").button))
        let event = try s.app.readEvent(named: "tooltip", timeout: 5) { $0["visible"]?.bool == true }
        let window = UInt32(try #require(event["tooltip"]?["window"]?.int))
        try s.sync()
        #expect(try s.x.geometry(ofWindow: window).depth == s.x.geometry(ofWindow: s.window).depth)
        return try s.x.capture(window: window)
    }

    @Test("The tooltip window matches a depth-24 screen's within the channel's quantization", arguments: screens)
    func tooltipMatchesDepth24(screen: Screen) throws {
        let expected = try Self.tooltip(of: DemoSession("visual-tooltip-reference"))
        let tag = "visual-tooltip-depth\(screen.depth)" + screen.serverArguments.joined()
        let live = try Self.tooltip(of: DemoSession(tag, depth: screen.depth, serverArguments: screen.serverArguments))
        #expect(live.width == expected.width && live.height == expected.height)
        guard live.width == expected.width && live.height == expected.height else { return }
        let differing = live.differingPixels(from: expected, tolerance: screen.tolerance)
        expectPixels(differing * 1000 <= live.pixels.count,
                     "\(differing) of \(live.pixels.count) tooltip pixels are more than \(screen.tolerance) off the depth-24 rendering",
                     images: ["live": live, "depth24": expected], test: tag)
    }

    @Test("A depth-8 screen (no TrueColor visual of depth 15 or more): exit 4 with one line saying so, no window")
    func depth8ExitsClearly() throws {
        let server = try XvfbServer.start(depth: 8)
        let x = try XTestClient(display: server.display)
        #expect(x.rootDepth == 8)
        let app = try ChildProcess(executable: try BuiltProducts.executable(named: "badge-demo"), arguments: ["--control"],
                                   environment: .inherited(adding: ["DISPLAY": server.display]))
        let status = app.waitForExit(timeout: 10)
        #expect(status == .exited(4), "status: \(status?.description ?? "still running after 10 s"); stderr: \(app.stderrText)")
        let lines = app.stderrText.split(separator: "\n", omittingEmptySubsequences: true)
        #expect(lines.count == 1, "stderr should be one line: \(lines)")
        let line = lines.first.map(String.init) ?? ""
        #expect(line.hasPrefix("badge-demo: a TrueColor visual of depth 15 or more is not available"), "stderr: \(line)")
        #expect(line.contains("PseudoColor at depth 8 (default)") && line.contains("depth 24"), "stderr: \(line)")
        var output: [String] = []
        while let line = try app.readLine(timeout: 2) { output.append(line) }
        #expect(!output.contains { $0.contains("\"ready\"") }, "the app reported a window: \(output)")
    }
}
