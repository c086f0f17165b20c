import BadgeCore
import Glibc
import Testing
import XvfbHarness

/// `_NET_WM_SYNC_REQUEST`, driven the way a compositing window manager drives it: a request with a
/// value, then the resize; the window's SYNC counter reaches the value once the new frame is drawn.
@Suite("E2E: _NET_WM_SYNC_REQUEST", .endToEnd(minutes: 1))
struct ResizeSyncTests {
    @Test("The protocol and counter are advertised, and the counter follows each resize's frame")
    func counterFollowsResizes() throws {
        let s = try DemoSession("resize-sync")
        let protocols = try s.x.cardinals(window: s.window, name: "WM_PROTOCOLS")
        #expect(protocols.contains(try s.x.atom("_NET_WM_SYNC_REQUEST")))
        #expect(try s.x.syncCounterValue(window: s.window) == 0)
        for (index, (value, width)) in [(UInt64(4242), 300), (UInt64(1) << 33 | 5, 420)].enumerated() {
            try s.x.sendSyncRequest(window: s.window, value: value)
            try s.x.resize(window: s.window, width: width, height: 80)
            try s.sync()
            #expect(try s.x.syncCounterValue(window: s.window) == value, "request \(index)")
            #expect(try s.x.geometry(ofWindow: s.window).width == width)
            // The frame for the new size is there: the toolbar's surface fills the new width.
            let image = try s.capture()
            #expect(image.width == width)
            let right = image.pixel(x: width - 2, y: 4), left = image.pixel(x: 1, y: 4)
            #expect(right.isClose(to: left, tolerance: 8), "the new area is painted: \(left) vs \(right)")
        }
    }
}
