import BadgeCore
import Testing
import XvfbHarness

/// The device scale comes from --scale, else Xft.dpi in the X resource database, else 1.
@Suite("E2E: device scale", .endToEnd(minutes: 1))
struct DeviceScaleTests {
    @Test("Xft.dpi: 192 in RESOURCE_MANAGER makes a 2× window; --scale overrides it; none gives 1×",
          arguments: [(192 as Int?, [] as [String], 2.0), (144, [], 1.5), (192, ["--scale", "1"], 1.0), (nil, [], 1.0)])
    func scaleFromXResources(dpi: Int?, arguments: [String], expected: Double) throws {
        let s = try DemoSession("xft-dpi", arguments: arguments, beforeLaunch: { _, x in
            if let dpi {
                try x.setStringProperty(window: x.root, name: "RESOURCE_MANAGER", value: "Xft.antialias:\t1\nXft.dpi:\t\(dpi)\n")
            }
        })
        let state = try s.state()
        let bell = try state.button("bell")
        // Buttons are 44 logical pixels square.
        #expect(bell.button.width == Int((44 * expected).rounded()), "bell button \(bell.button) at scale \(expected)")
        #expect(s.size.height == Int((60 * expected).rounded()), "window height \(s.size.height) at scale \(expected)")
    }
}
