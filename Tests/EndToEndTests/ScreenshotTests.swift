import BadgeCore
import Glibc
import Testing
import XvfbHarness

/// The live window against the app's own offscreen rendering (`--screenshot`). The PNG is turned
/// into a PPM with ImageMagick's `convert` (the harness has no PNG decoder); skipped without it.
@Suite("E2E: live window equals --screenshot", .endToEnd(minutes: 1),
       .enabled(if: findOnPath("convert") != nil, "needs ImageMagick's convert to read the PNG"))
struct ScreenshotTests {
    /// Options, and the depth of the Xvfb screen: at depth 16 the app converts to RGB565 and the
    /// offscreen rendering is quantised the same way (5/6/5 bits) before comparing.
    @Test("Live pixels equal the offscreen rendering with the same options, at depth 24 and 16",
          arguments: [(["--count", "bell=4"], 24), (["--theme", "dark"], 24), (["--scale", "2", "--count", "mail=100"], 24),
                      (["--count", "bell=4"], 16), (["--scale", "2", "--theme", "dark", "--count", "mail=100"], 16)])
    func liveEqualsScreenshot(options: [String], depth: Int) throws {
        let tag = "screenshot" + options.joined().filter { $0.isLetter || $0.isNumber } + "-depth\(depth)"
        let rendered = try renderScreenshot(tag: tag, options: options)
        let offscreen = depth == 16 ? rendered.quantizedToRGB565() : rendered

        let s = try DemoSession(tag, arguments: options, depth: depth)
        let windowDepth = try s.x.geometry(ofWindow: s.window).depth
        #expect(s.x.rootDepth == depth && windowDepth == depth, "root depth \(s.x.rootDepth), window depth \(windowDepth)")
        try s.moveAwayAndSync()
        let live = try s.capture()
        #expect(live.width == offscreen.width && live.height == offscreen.height,
                "live \(live.width)x\(live.height), screenshot \(offscreen.width)x\(offscreen.height)")
        guard live.width == offscreen.width && live.height == offscreen.height else { return }
        // At depth 16 a ±1 difference before quantisation can land one 5-bit step (8 levels) away.
        let diff = live.differingPixels(from: offscreen, tolerance: depth == 16 ? 9 : 2)
        expectPixels(diff * 1000 <= live.pixels.count, "\(diff) of \(live.pixels.count) pixels differ from the --screenshot rendering",
                     images: ["live": live, "offscreen": offscreen], test: tag)
    }
}
