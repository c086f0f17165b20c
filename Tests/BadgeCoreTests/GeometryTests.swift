import BadgeCore
import Testing

@Suite struct GeometryTests {
    @Test func edgesAndCentre() {
        let rect = Rect(x: 10, y: 20, width: 30, height: 40)
        #expect(rect.minX == 10 && rect.minY == 20 && rect.maxX == 40 && rect.maxY == 60)
        #expect(rect.midX == 25 && rect.midY == 40 && rect.width == 30 && rect.height == 40)
        #expect(rect.center == Point(x: 25, y: 40))
        #expect(!rect.isEmpty)
        #expect(Rect.zero.isEmpty)
        #expect(Rect(x: 0, y: 0, width: -1, height: 5).isEmpty)
        #expect(Rect(x: 0, y: 0, width: .nan, height: 5).isEmpty)
        #expect(Point.zero == Point(x: 0, y: 0) && Size.zero == Size(width: 0, height: 0))
    }

    @Test func containsIsHalfOpen() {
        let rect = Rect(x: 0, y: 0, width: 10, height: 10)
        #expect(rect.contains(Point(x: 0, y: 0)))
        #expect(rect.contains(Point(x: 9.999, y: 9.999)))
        #expect(!rect.contains(Point(x: 10, y: 5)))
        #expect(!rect.contains(Point(x: 5, y: 10)))
        #expect(!rect.contains(Point(x: .nan, y: 5)))
    }

    @Test func unionIgnoresEmpty() {
        let a = Rect(x: 0, y: 0, width: 10, height: 10)
        let b = Rect(x: 20, y: 5, width: 5, height: 20)
        #expect(a.union(b) == Rect(x: 0, y: 0, width: 25, height: 25))
        #expect(a.union(.zero) == a)
        #expect(Rect(x: 100, y: 100, width: 0, height: 0).union(a) == a)
        #expect(Rect.zero.union(.zero) == .zero)
    }

    @Test func intersection() {
        let a = Rect(x: 0, y: 0, width: 10, height: 10)
        #expect(a.intersection(Rect(x: 5, y: 5, width: 10, height: 10)) == Rect(x: 5, y: 5, width: 5, height: 5))
        #expect(a.intersection(Rect(x: 10, y: 0, width: 5, height: 5)) == nil)
        #expect(a.intersection(Rect(x: 20, y: 20, width: 5, height: 5)) == nil)
        #expect(a.intersection(.zero) == nil)
    }

    @Test func insetOffsetScale() {
        let a = Rect(x: 10, y: 10, width: 20, height: 10)
        #expect(a.insetBy(dx: 2, dy: 1) == Rect(x: 12, y: 11, width: 16, height: 8))
        #expect(a.insetBy(dx: -2, dy: -1) == Rect(x: 8, y: 9, width: 24, height: 12))
        #expect(a.offsetBy(dx: 5, dy: -5) == Rect(x: 15, y: 5, width: 20, height: 10))
        #expect(a.scaled(by: 2, about: a.center) == Rect(x: 0, y: 5, width: 40, height: 20))
        #expect(a.scaled(by: 0, about: a.center) == Rect(x: 20, y: 15, width: 0, height: 0))
    }

    @Test(arguments: [1.0, 1.25, 1.5, 2.0])
    func snappedOutContainsAndIsOnGrid(scale: Double) {
        let rect = Rect(x: 10.3, y: 7.77, width: 13.01, height: 5.5)
        let snapped = rect.snappedOut(toScale: scale)
        #expect(snapped.minX <= rect.minX && snapped.minY <= rect.minY)
        #expect(snapped.maxX >= rect.maxX && snapped.maxY >= rect.maxY)
        #expect(snapped.maxX - rect.maxX < 1 / scale && rect.minX - snapped.minX < 1 / scale)
        for value in [snapped.minX, snapped.minY, snapped.width, snapped.height] {
            #expect(isOnGrid(value, scale: scale))
        }
    }

    @Test func snappedOutExactValuesAndBadScale() {
        #expect(Rect(x: 0.2, y: 0.6, width: 1, height: 1).snappedOut(toScale: 1) == Rect(x: 0, y: 0, width: 2, height: 2))
        #expect(Rect(x: 0.2, y: 0.6, width: 1, height: 1).snappedOut(toScale: 2) == Rect(x: 0, y: 0.5, width: 1.5, height: 1.5))
        let onGrid = Rect(x: 1, y: 2, width: 3, height: 4)
        #expect(onGrid.snappedOut(toScale: 1) == onGrid)
        for bad in [0.0, -2.0, .nan, .infinity] {
            #expect(Rect(x: 0.2, y: 0.6, width: 1, height: 1).snappedOut(toScale: bad) == Rect(x: 0, y: 0, width: 2, height: 2))
        }
    }
}
