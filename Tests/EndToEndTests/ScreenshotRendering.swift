import Glibc
import Testing
import XvfbHarness

/// `badge-demo --screenshot` with `options`, read back as an image: the app's own offscreen
/// rendering, which the live window must equal. The PNG becomes a PPM through ImageMagick's
/// `convert` (the harness has no PNG decoder).
func renderScreenshot(tag: String, options: [String]) throws -> CapturedImage {
    let png = try Artifacts.path(for: "\(tag)-\(getpid()).png"), ppm = png + ".ppm"
    defer { unlink(png); unlink(ppm) }
    let exe = try BuiltProducts.executable(named: "badge-demo")
    let render = try ChildProcess(executable: exe, arguments: ["--screenshot", png, "--reduce-motion"] + options,
                                  environment: .inherited(removing: ["DISPLAY"]), stdin: .null)
    #expect(render.waitForExit(timeout: 20) == .exited(0), "stderr: \(render.stderrText)")
    let convert = try ChildProcess(executable: "convert", arguments: [png, "-alpha", "off", ppm], stdin: .null)
    #expect(convert.waitForExit(timeout: 20) == .exited(0), "convert: \(convert.stderrText)")
    return try CapturedImage(ppmFile: ppm)
}
