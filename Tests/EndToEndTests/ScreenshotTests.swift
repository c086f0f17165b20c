import Glibc
import Testing
import XvfbHarness

/// The live window against the app's own offscreen rendering (`--screenshot`). The PNG is turned
/// into a PPM with ImageMagick's `convert` (the harness has no PNG decoder); skipped without it.
@Suite("E2E: live window equals --screenshot", .timeLimit(.minutes(1)),
       .enabled(if: findOnPath("convert") != nil, "needs ImageMagick's convert to read the PNG"))
struct ScreenshotTests {
    @Test("Live pixels equal the offscreen rendering with the same options",
          arguments: [["--count", "bell=4"], ["--theme", "dark"], ["--scale", "2", "--count", "mail=100"]])
    func liveEqualsScreenshot(options: [String]) throws {
        let tag = "screenshot" + options.joined().filter { $0.isLetter || $0.isNumber }
        let png = try Artifacts.path(for: "\(tag)-\(getpid()).png"), ppm = png + ".ppm"
        defer { unlink(png); unlink(ppm) }
        let exe = try BuiltProducts.executable(named: "badge-demo")
        let render = try ChildProcess(executable: exe, arguments: ["--screenshot", png, "--reduce-motion"] + options,
                                      environment: .inherited(removing: ["DISPLAY"]), stdin: .null)
        #expect(render.waitForExit(timeout: 20) == .exited(0), "stderr: \(render.stderrText)")
        let convert = try ChildProcess(executable: "convert", arguments: [png, "-alpha", "off", ppm], stdin: .null)
        #expect(convert.waitForExit(timeout: 20) == .exited(0), "convert: \(convert.stderrText)")
        let offscreen = try CapturedImage(ppmFile: ppm)

        let s = try DemoSession(tag, arguments: options)
        try s.moveAwayAndSync()
        let live = try s.capture()
        #expect(live.width == offscreen.width && live.height == offscreen.height,
                "live \(live.width)x\(live.height), screenshot \(offscreen.width)x\(offscreen.height)")
        guard live.width == offscreen.width && live.height == offscreen.height else { return }
        let diff = live.differingPixels(from: offscreen, tolerance: 2)
        expectPixels(diff * 1000 <= live.pixels.count, "\(diff) of \(live.pixels.count) pixels differ from the --screenshot rendering",
                     images: ["live": live, "offscreen": offscreen], test: tag)
    }
}
