import BadgeCore
import BadgeDrawing
import Glibc
import BadgeResources
import TestSupport
import Testing

@Suite(.drawsWithCairo) struct TextAndIconTests {
    let font = BadgeFont()

    @Test(arguments: ["99+", "一个信息", "🔥", "👨‍👩‍👧‍👦", "جديد", "New"])
    func everyScriptHasAFont(text: String) throws {
        // fonts-dejavu-core, fonts-wqy-microhei and fonts-noto-color-emoji (installed by make test).
        let layouts = try TextLayouts()
        #expect(layouts.missingGlyphCount(in: text, font: font) == 0)
        #expect(layouts.size(of: text, font: font).width > 0)
    }

    @Test func textIsShapedOnceAndCached() throws {
        let layouts = try TextLayouts()
        _ = layouts.size(of: "12", font: font)
        _ = layouts.extents(of: "12", font: font)
        _ = layouts.size(of: "12", font: font)
        #expect(layouts.cachedCount == 1)
    }

    @Test("Pango is handed the capped text: 100,000 combining marks shape as their first bytes do")
    func longTextIsCappedBeforeShaping() throws {
        let layouts = try TextLayouts()
        let marks = "a" + String(repeating: "\u{301}", count: 100_000)
        let capped = TextBounds.shapedText(marks)
        #expect(capped.utf8.count <= TextBounds.maximumShapedBytes)
        let size = layouts.size(of: marks, font: font)
        #expect(layouts.size(of: capped, font: font) == size)
        #expect(layouts.cachedCount == 1, "the long text and its capped form should be one shaped entry")
        let plain = String(repeating: "ab", count: 50_000)
        #expect(layouts.extents(of: plain, font: font) == layouts.extents(of: TextBounds.shapedText(plain), font: font))
        #expect(layouts.cachedCount == 2)
    }

    @Test func digitsAreCentredByInk() throws {
        let layouts = try TextLayouts()
        let one = layouts.extents(of: "1", font: font)
        // The ink of "1" is narrower than its advance and not centred in it: that is why badges
        // centre text by ink bounds, not by the logical box.
        #expect(one.ink.width < one.logical.width)
    }

    @Test func missingIconFileIsNamedInTheError() throws {
        let icons = try IconLibrary()
        let path = "/nonexistent/dir/bell.svg"
        #expect {
            try icons.loadIcon(named: "bell", fromFile: path)
        } throws: { error in
            "\(error)".contains(path)
        }
    }

    @Test func brokenSVGIsNamedInTheError() throws {
        let path = try temporarySVG(named: "broken", "<svg xmlns='http://www.w3.org/2000/svg'><path d='M0 0 L")
        defer { unlink(path) }
        let icons = try IconLibrary()
        #expect {
            try icons.loadIcon(named: "mail", fromFile: path)
        } throws: { error in
            "\(error)".contains(path)
        }
    }

    @Test func aFIFOOrDeviceAsAnIconIsRefusedWithoutBlocking() throws {
        let path = "/tmp/badgekit-icon-fifo-\(getpid()).svg"
        unlink(path)
        #expect(mkfifo(path, 0o600) == 0)
        defer { unlink(path) }
        let icons = try IconLibrary()
        for file in [path, "/dev/zero"] {
            #expect {
                try icons.loadIcon(named: "bell", fromFile: file)
            } throws: { error in
                "\(error)".contains(file) && "\(error)".contains("not a regular file")
            }
        }
    }

    @Test func anSVGDeclaringAnAbsurdSizeIsRefused() throws {
        let icons = try IconLibrary()
        let huge = Array("<svg xmlns='http://www.w3.org/2000/svg' width='100000' height='24'><rect width='24' height='24'/></svg>".utf8)
        #expect {
            try icons.loadIcon(named: "bell", svg: huge, source: "huge.svg")
        } throws: { error in
            "\(error)".contains("huge.svg") && "\(error)".contains("100000×24 pixels")
        }
        // At the cap it is fine, and drawn.
        let large = Array("<svg xmlns='http://www.w3.org/2000/svg' width='4096' height='4096'><rect width='4096' height='4096'/></svg>".utf8)
        try icons.loadIcon(named: "bell", svg: large, source: "large.svg")
        let image = try ImageSurface(width: 24, height: 24)
        try image.draw { context in
            #expect(icons.draw("bell", in: Rect(x: 0, y: 0, width: 24, height: 24), color: .black, scale: 1, context: context))
        }
        #expect(image.pixel(x: 12, y: 12).alpha == 255)
    }

    @Test func aLoadedSVGIsDrawnAgainAtANewSizeFromItsBytes() throws {
        // The parsed document is dropped after the first drawing: a second size parses the bytes again.
        let icons = try IconLibrary()
        let square = Array("<svg xmlns='http://www.w3.org/2000/svg' width='24' height='24'><rect x='6' y='6' width='12' height='12'/></svg>".utf8)
        try icons.loadIcon(named: "mail", svg: square, source: "square.svg")
        for pixels in [24, 48, 24] {
            let image = try ImageSurface(width: pixels, height: pixels)
            try image.draw { context in
                let side = Double(pixels)
                #expect(icons.draw("mail", in: Rect(x: 0, y: 0, width: side, height: side), color: .black, scale: 1, context: context))
            }
            #expect(image.pixel(x: pixels / 2, y: pixels / 2).alpha == 255 && image.pixel(x: 1, y: 1).alpha == 0, "at \(pixels) px")
        }
    }

    @Test func anSVGFileReplacesABundledIcon() throws {
        let path = try temporarySVG(named: "square",
                                    "<svg xmlns='http://www.w3.org/2000/svg' width='24' height='24'><rect width='24' height='24'/></svg>")
        defer { unlink(path) }
        let icons = try IconLibrary()
        try icons.loadIcon(named: "bell", fromFile: path)
        let image = try ImageSurface(width: 24, height: 24)
        try image.draw { context in
            #expect(icons.draw("bell", in: Rect(x: 0, y: 0, width: 24, height: 24), color: .black, scale: 1, context: context))
        }
        // A filled square covers the centre, which the bundled outline bell leaves empty.
        #expect(image.pixel(x: 12, y: 12).alpha == 255)
        #expect(image.pixel(x: 1, y: 1).alpha == 255)
    }
}

/// Writes `contents` to a new file /tmp/badgekit-NAME-PID.svg and returns its path (the caller unlinks it).
private func temporarySVG(named name: String, _ contents: String) throws -> String {
    let path = "/tmp/badgekit-\(name)-\(getpid()).svg"
    let file = try #require(fopen(path, "we"))
    defer { fclose(file) }
    guard fputs(contents, file) >= 0 else { throw DrawingError("cannot write \(path)") }
    return path
}

@Suite(.drawsWithCairo) struct PrerenderedIconMaskTests {
    /// The masks in Resources/IconMasks must be exactly what librsvg makes of the SVGs beside them;
    /// after editing an icon, `make icon-masks` regenerates them.
    @Test(arguments: ["bell", "mail", "chat", "updates"])
    func shippedMasksEqualLibrsvgRendering(name: String) throws {
        let icons = try IconLibrary()
        for pixels in BundledIcons.maskSizes {
            let shipped = try #require(BundledIcons.mask(name: name, pixels: pixels))
            let fresh = try icons.renderMaskWithLibrsvg(name, pixels: pixels)
            #expect(shipped == fresh, "\(name)-\(pixels).a8 is stale: run make icon-masks")
            // Below 24 px the 1.6-unit strokes are thinner than a pixel and never reach full coverage.
            let solid: UInt8 = pixels >= 24 ? 200 : 80
            #expect(fresh.contains { $0 > solid }, "\(name) at \(pixels) px draws nothing")
        }
    }
}

@Suite(.drawsWithCairo) struct BadgeScaleEdgeTests {
    /// The last frames of a shrink have scales that quantise to 0. Drawing one must paint nothing
    /// and leave the context usable for the rest of the frame (a zero scale would make cairo's
    /// matrix singular and fail every later drawing call).
    @Test(arguments: [0.01, 1.0 / 70, -0.01])
    func aBadgeShrunkToNothingPaintsNothingAndKeepsTheFrame(scale: Double) throws {
        let renderer = BadgeRenderer(text: try TextLayouts())
        let style = BadgeStyle()
        let image = try ImageSurface(width: 40, height: 20)
        try image.draw { context in
            let shrunk = BadgePresentation(label: .text("3"), frame: Rect(x: 0, y: 0, width: 18, height: 18),
                                           scale: scale, opacity: 1, runs: [])
            renderer.cutOutRing(shrunk, style: style, in: context)
            renderer.draw(shrunk, style: style, surface: .white, in: context)
            let shown = BadgePresentation(label: .dot, frame: Rect(x: 22, y: 0, width: 18, height: 18),
                                          scale: 1, opacity: 1, runs: [])
            renderer.draw(shown, style: style, surface: .white, in: context)
        }
        #expect(image.pixel(x: 9, y: 9).alpha == 0, "the shrunk badge painted")
        #expect(image.pixel(x: 31, y: 9).alpha == 255, "the badge drawn after it is missing")
    }
}
