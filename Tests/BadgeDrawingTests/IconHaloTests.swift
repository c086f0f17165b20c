import BadgeDrawing
import Testing

/// The halo's arithmetic: the icon's mask grown by a round, anti-aliased brush.
struct IconHaloTests {
    @Test("One opaque pixel grown by 1: itself and its four neighbours opaque, the diagonals partly, nothing two pixels away")
    func onePixel() {
        var alpha = [UInt8](repeating: 0, count: 25)
        alpha[12] = 255
        let halo = IconHalo.coverage(around: alpha, width: 5, height: 5, radius: 1)
        #expect(halo[12] == 255)
        #expect([7, 11, 13, 17].allSatisfy { halo[$0] == 255 }, "\(halo)")
        // 1 + 1 − √2 ≈ 0.586 of 255.
        #expect([6, 8, 16, 18].allSatisfy { halo[$0] == 149 }, "\(halo)")
        #expect([2, 10, 14, 22, 0, 4, 20, 24].allSatisfy { halo[$0] == 0 }, "\(halo)")
    }

    @Test("A half-covered edge pixel reaches half a pixel less far")
    func partialCoverage() {
        let halo = IconHalo.coverage(around: [128, 0, 0], width: 3, height: 1, radius: 1)
        #expect(halo[0] == 255)
        #expect(halo[1] >= 126 && halo[1] <= 130, "\(halo)")
        #expect(halo[2] == 0)
    }

    @Test("A ring's hole is filled; a notch open to the edge is not, nor a gap a diagonal wall closes only for 8-way steps")
    func holesFilled() {
        // 5 × 5: a ring of 255 round the centre; the centre (0) is enclosed.
        var ring = [UInt8](repeating: 0, count: 25)
        for i in [6, 7, 8, 11, 13, 16, 17, 18] { ring[i] = 255 }
        #expect(IconHalo.filled(ring, width: 5, height: 5)[12] == 255)
        #expect(IconHalo.filled(ring, width: 5, height: 5)[0] == 0)
        // The same ring with its top open (7 clear): the centre is reached from the edge.
        var open = ring
        open[7] = 0
        #expect(IconHalo.filled(open, width: 5, height: 5)[12] == 0)
        // A diamond of diagonal steps round the centre still encloses it.
        var diamond = [UInt8](repeating: 0, count: 25)
        for i in [7, 11, 13, 17] { diamond[i] = 200 }
        #expect(IconHalo.filled(diamond, width: 5, height: 5)[12] == 255)
    }

    @Test("The radius follows the icon's side, never under a pixel")
    func radius() {
        #expect(IconHalo.radius(side: 16) == 1)
        #expect(IconHalo.radius(side: 22) == 1.1)
        #expect(IconHalo.radius(side: 48) == 2.4)
    }

    @Test("Mismatched sizes and a bad radius give an empty halo, no trap")
    func badInput() {
        #expect(IconHalo.coverage(around: [255], width: 2, height: 2, radius: 1) == [0, 0, 0, 0])
        #expect(IconHalo.coverage(around: [255], width: 1, height: 1, radius: .nan) == [0])
        #expect(IconHalo.coverage(around: [], width: 0, height: 3, radius: 1) == [])
    }
}
