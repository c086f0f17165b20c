import BadgeCore
import Testing

@Suite struct LayoutTests {
    let host = Rect(x: 100, y: 10, width: 32, height: 32)
    let bounds = Rect(x: 0, y: 0, width: 400, height: 300)

    func frame(_ label: BadgeLabel, style: BadgeStyle = BadgeStyle(), direction: LayoutDirection = .leftToRight,
               scale: Double = 1, host: Rect? = nil, bounds: Rect? = nil) -> Rect? {
        let text = label.text ?? ""
        return BadgeLayout.frame(for: label, textSize: Size(width: 7 * Double(text.count), height: 13),
                                 host: host ?? self.host, style: style, direction: direction, scale: scale,
                                 bounds: bounds ?? self.bounds)
    }

    @Test func hiddenHasNoFrame() {
        #expect(frame(.hidden) == nil)
    }

    @Test func oneGraphemeIsACircle() {
        #expect(frame(.text("3")) == Rect(x: 123, y: 1, width: 18, height: 18))
        // One cluster, however wide it measures, stays a circle.
        let wide = BadgeLayout.frame(for: .text("👨‍👩‍👧‍👦"), textSize: Size(width: 40, height: 13), host: host,
                                     style: BadgeStyle(), direction: .leftToRight, scale: 1, bounds: bounds)
        #expect(wide == Rect(x: 123, y: 1, width: 18, height: 18))
    }

    @Test func pillGrowsWithText() {
        #expect(frame(.text("10")) == Rect(x: 120, y: 1, width: 24, height: 18))
        #expect(frame(.text("99+")) == Rect(x: 117, y: 1, width: 31, height: 18)) // 116.5 rounds half up
        #expect(frame(.text("New")) == frame(.text("99+")))
    }

    @Test func tallTextGrowsHeight() {
        let tall = BadgeLayout.frame(for: .text("Ab"), textSize: Size(width: 14, height: 20), host: host,
                                     style: BadgeStyle(), direction: .leftToRight, scale: 1, bounds: bounds)
        // height = max(18, 20 + 4) = 24, width = max(24, 14 + 10) = 24, centred on (132, 10) → y -2, moved inside → 0.
        #expect(tall == Rect(x: 120, y: 0, width: 24, height: 24))
    }

    @Test func dotIsASquareOfDotDiameter() {
        #expect(frame(.dot) == Rect(x: 128, y: 6, width: 8, height: 8))
        var style = BadgeStyle()
        style.dotDiameter = 10
        #expect(frame(.dot, style: style) == Rect(x: 127, y: 5, width: 10, height: 10))
    }

    @Test(arguments: [1.0, 1.25, 1.5, 2.0, 3.0, 0.75])
    func snappedToDevicePixels(scale: Double) throws {
        for label in [BadgeLabel.text("3"), .text("10"), .text("99+"), .text("New message"), .dot] {
            for host in [host, Rect(x: 100.3, y: 10.7, width: 31.1, height: 29.9)] {
                let rect = try #require(frame(label, scale: scale, host: host))
                for value in [rect.minX, rect.minY, rect.width, rect.height] {
                    #expect(isOnGrid(value, scale: scale), "\(label) at \(scale): \(rect)")
                }
                if label == .text("3") || label == .dot {
                    #expect(rect.width == rect.height, "circle stays a circle at \(scale)")
                }
                #expect(rect.height >= (label == .dot ? 8 : 18))
                // Centred on the anchor to within one device pixel.
                #expect(abs(rect.midX - host.maxX) <= 0.5 / scale + 1e-9)
                #expect(abs(rect.midY - host.minY) <= 0.5 / scale + 1e-9 || rect.minY == 0)
            }
        }
    }

    @Test func exactFramesAtFractionalScales() throws {
        let at125 = try #require(frame(.text("3"), scale: 1.25))
        #expect(approx(at125, Rect(x: 154 / 1.25, y: 1 / 1.25, width: 23 / 1.25, height: 23 / 1.25)))
        let at15 = try #require(frame(.text("3"), scale: 1.5))
        #expect(approx(at15, Rect(x: 185 / 1.5, y: 2 / 1.5, width: 27 / 1.5, height: 27 / 1.5)))
        #expect(frame(.text("3"), scale: 2) == Rect(x: 123, y: 1, width: 18, height: 18))
    }

    @Test(arguments: [0.0, -1.0, .nan, .infinity, -.infinity])
    func badScaleIsOne(scale: Double) {
        #expect(frame(.text("3"), scale: scale) == frame(.text("3"), scale: 1))
    }

    @Test func anchorsAndOffsetLTR() {
        var style = BadgeStyle()
        style.offset = Point(x: 4, y: 2)
        let expected: [BadgeAnchor: Rect] = [
            .topTrailing: Rect(x: 127, y: 3, width: 18, height: 18),
            .topLeading: Rect(x: 95, y: 3, width: 18, height: 18),
            .bottomTrailing: Rect(x: 127, y: 35, width: 18, height: 18),
            .bottomLeading: Rect(x: 95, y: 35, width: 18, height: 18),
        ]
        for anchor in BadgeAnchor.allCases {
            style.anchor = anchor
            #expect(frame(.text("3"), style: style) == expected[anchor], "\(anchor)")
        }
    }

    @Test func rightToLeftMirrorsAnchorAndOffset() {
        var style = BadgeStyle()
        style.offset = Point(x: 4, y: 2)
        let expected: [BadgeAnchor: Rect] = [
            .topTrailing: Rect(x: 87, y: 3, width: 18, height: 18),      // top-LEFT, offset.x mirrored
            .topLeading: Rect(x: 119, y: 3, width: 18, height: 18),      // top-RIGHT
            .bottomTrailing: Rect(x: 87, y: 35, width: 18, height: 18),
            .bottomLeading: Rect(x: 119, y: 35, width: 18, height: 18),
        ]
        for anchor in BadgeAnchor.allCases {
            style.anchor = anchor
            #expect(frame(.text("3"), style: style, direction: .rightToLeft) == expected[anchor], "\(anchor)")
        }
        let anchor = BadgeLayout.anchorPoint(host: host, style: BadgeStyle(), direction: .rightToLeft)
        #expect(anchor == Point(x: 100, y: 10))
    }

    @Test func movedInsideBoundsNeverClipped() {
        let corner = Rect(x: 0, y: 0, width: 32, height: 32)
        // Top edge: centred at y 0 would stick out; moved down to 0.
        #expect(frame(.text("3"), host: corner) == Rect(x: 23, y: 0, width: 18, height: 18))
        // Right edge of a 40-wide window.
        #expect(frame(.text("3"), host: corner, bounds: Rect(x: 0, y: 0, width: 40, height: 40))
            == Rect(x: 22, y: 0, width: 18, height: 18))
        // RTL at the left window edge.
        #expect(frame(.text("3"), direction: .rightToLeft, host: corner) == Rect(x: 0, y: 0, width: 18, height: 18))
        // Larger than the bounds: aligned to the bounds' min edges, full size kept.
        #expect(frame(.text("New message"), host: corner, bounds: Rect(x: 5, y: 6, width: 10, height: 10))
            == Rect(x: 5, y: 6, width: 87, height: 18))
        // Bounds off the device grid at 2x: moved to the first whole device pixel inside.
        #expect(frame(.text("3"), scale: 2, host: corner, bounds: Rect(x: 0, y: 0.3, width: 40.2, height: 40))
            == Rect(x: 22, y: 0.5, width: 18, height: 18))
    }

    @Test func badBoundsAndHostAreDefined() {
        let infinite = Rect(x: -.infinity, y: -.infinity, width: .infinity, height: .infinity)
        #expect(frame(.text("3"), bounds: infinite) == Rect(x: 123, y: 1, width: 18, height: 18))
        #expect(frame(.text("3"), bounds: .zero) == Rect(x: 123, y: 1, width: 18, height: 18))
        #expect(frame(.text("3"), host: Rect(x: .nan, y: .infinity, width: .nan, height: 5), bounds: .zero)
            == Rect(x: -9, y: -9, width: 18, height: 18))
        let broken = BadgeLayout.frame(for: .text("10"), textSize: Size(width: .nan, height: -5), host: host,
                                       style: BadgeStyle(), direction: .leftToRight, scale: 1, bounds: bounds)
        #expect(broken == Rect(x: 123, y: 1, width: 18, height: 18))
    }

    @Test func zeroAndNegativeStyleSizes() {
        var style = BadgeStyle()
        style.minimumSize = 0
        style.verticalPadding = 0
        style.horizontalPadding = 0
        #expect(frame(.text("3"), style: style) == Rect(x: 126, y: 4, width: 13, height: 13))
        #expect(frame(.text("10"), style: style) == Rect(x: 125, y: 4, width: 14, height: 13))
        style.minimumSize = -100
        style.horizontalPadding = -1
        style.verticalPadding = .nan
        #expect(frame(.text("10"), style: style) == frame(.text("10")))
        let empty = BadgeLayout.frame(for: .text(""), textSize: .zero, host: host, style: style,
                                      direction: .leftToRight, scale: 1, bounds: bounds)
        #expect(empty == Rect(x: 123, y: 1, width: 18, height: 18))
    }

    @Test func hugeTextStaysFinite() throws {
        let long = String(repeating: "x", count: 10_000)
        let rect = try #require(frame(.text(long)))
        #expect(rect.width == 70_010 && rect.minX == 0)
    }
}
