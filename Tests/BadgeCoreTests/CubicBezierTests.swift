import BadgeCore
import Testing

@Suite struct CubicBezierTests {
    static let curves: [(CubicBezier, [Double])] = [
        (.linear, [0, 0, 1, 1]), (.ease, [0.25, 0.1, 0.25, 1]), (.easeIn, [0.42, 0, 1, 1]),
        (.easeOut, [0, 0, 0.58, 1]), (.easeInOut, [0.42, 0, 0.58, 1]), (.bounce, [0.4, 1.3, 1, 1]),
        (.easeOutBack, [0.12, 0.4, 0.29, 1.46]),
    ]

    @Test func definitions() {
        for (curve, points) in CubicBezierTests.curves {
            #expect([curve.x1, curve.y1, curve.x2, curve.y2] == points)
        }
    }

    @Test func knownCSSValues() {
        // Reference values (independently checked with 200-step bisection in referenceBezier).
        #expect(abs(CubicBezier.ease.value(at: 0.5) - 0.8024033877399112) < 1e-7)
        #expect(abs(CubicBezier.ease.value(at: 0.25) - 0.40851059) < 1e-7)
        #expect(abs(referenceBezier(0.25, 0.1, 0.25, 1, at: 0.5) - 0.8024033877399112) < 1e-7)
        #expect(abs(referenceBezier(0.25, 0.1, 0.25, 1, at: 0.25) - 0.40851059) < 1e-7)
        #expect(abs(CubicBezier.easeOut.value(at: 0.5) - 0.6846431874274606) < 1e-7)
        #expect(abs(CubicBezier.easeInOut.value(at: 0.5) - 0.5) < 1e-7)
        #expect(CubicBezier.linear.value(at: 0.3) == 0.3)
    }

    @Test(arguments: 0...100)
    func matchesReferenceSolver(step: Int) {
        let x = Double(step) / 100
        for (curve, p) in CubicBezierTests.curves {
            let expected = referenceBezier(p[0], p[1], p[2], p[3], at: x)
            #expect(abs(curve.value(at: x) - expected) < 1e-6, "\(p) at \(x)")
        }
    }

    @Test func endpointsAreExact() {
        for (curve, _) in CubicBezierTests.curves {
            #expect(curve.value(at: 0) == 0)
            #expect(curve.value(at: 1) == 1)
            #expect(curve.value(at: -3) == 0 && curve.value(at: 7) == 1)
            #expect(curve.value(at: .nan) == 0)
            #expect(curve.value(at: .infinity) == 1 && curve.value(at: -.infinity) == 0)
        }
    }

    @Test func monotoneCurvesAreMonotone() {
        for curve in [CubicBezier.linear, .ease, .easeIn, .easeOut, .easeInOut] {
            var previous = 0.0
            for step in 1...1000 {
                let value = curve.value(at: Double(step) / 1000)
                #expect(value >= previous - 1e-12)
                previous = value
            }
        }
    }

    @Test func overshootingCurvesOvershoot() {
        let bouncePeak = (0...1000).map { CubicBezier.bounce.value(at: Double($0) / 1000) }.max() ?? 0
        #expect(abs(bouncePeak - 1.02991679136504) < 1e-5)
        let backPeak = (0...1000).map { CubicBezier.easeOutBack.value(at: Double($0) / 1000) }.max() ?? 0
        #expect(abs(backPeak - 1.1135514761139178) < 1e-5)
        #expect(abs(CubicBezier.easeOutBack.value(at: 0.5) - 1.0662027192185723) < 1e-6)
    }

    @Test func badControlPoints() {
        #expect(CubicBezier(.nan, 0, 1, 1) == .linear)
        #expect(CubicBezier(0, .infinity, 1, 1) == .linear)
        let clamped = CubicBezier(-1, 0.5, 2, 0.5)
        #expect(clamped.x1 == 0 && clamped.x2 == 1)
        // Vertical tangents at both ends still solve (bisection fallback).
        let steep = CubicBezier(1, 0, 0, 1)
        // x'(0.5) = 0 here: the x-precision of 1e-7 (WebKit's) allows a larger y error at the inflection.
        #expect(abs(steep.value(at: 0.5) - referenceBezier(1, 0, 0, 1, at: 0.5)) < 1e-4)
        #expect(abs(steep.value(at: 0.01) - referenceBezier(1, 0, 0, 1, at: 0.01)) < 1e-6)
    }
}
