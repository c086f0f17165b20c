import CXCB

/// One visual a screen offers, as the connection setup lists it.
package struct VisualDescription: Equatable, Sendable {
    /// The visual's id.
    package let id: xcb_visualid_t
    /// Its class (`XCB_VISUAL_CLASS_TRUE_COLOR`, …).
    package let visualClass: UInt8
    /// Its depth.
    package let depth: Int
    /// Where red sits in a pixel value (TrueColor and DirectColor).
    package let redMask: UInt32
    /// Where green sits in a pixel value.
    package let greenMask: UInt32
    /// Where blue sits in a pixel value.
    package let blueMask: UInt32

    /// A visual from the setup's fields.
    package init(id: xcb_visualid_t, visualClass: UInt8, depth: Int, redMask: UInt32, greenMask: UInt32, blueMask: UInt32) {
        self.id = id
        self.visualClass = visualClass
        self.depth = depth
        self.redMask = redMask
        self.greenMask = greenMask
        self.blueMask = blueMask
    }

    /// The class by its protocol name, for messages ("PseudoColor").
    package var className: String {
        switch UInt32(visualClass) {
        case XCB_VISUAL_CLASS_STATIC_GRAY.rawValue: return "StaticGray"
        case XCB_VISUAL_CLASS_GRAY_SCALE.rawValue: return "GrayScale"
        case XCB_VISUAL_CLASS_STATIC_COLOR.rawValue: return "StaticColor"
        case XCB_VISUAL_CLASS_PSEUDO_COLOR.rawValue: return "PseudoColor"
        case XCB_VISUAL_CLASS_TRUE_COLOR.rawValue: return "TrueColor"
        case XCB_VISUAL_CLASS_DIRECT_COLOR.rawValue: return "DirectColor"
        default: return "visual class \(visualClass)"
        }
    }
}

/// The visual every window of the shell is created with, and how pixels reach it.
///
/// The policy (``choose(rootVisual:visuals:pixmapFormats:leastSignificantByteFirst:)``), in order:
/// 1. the screen's default visual when it is 24-bit TrueColor in cairo's layout: pixels are copied
///    unchanged, over MIT-SHM where available;
/// 2. otherwise a 24-bit TrueColor visual in cairo's layout if the screen offers one, with a
///    colormap of its own (exact colours, no conversion);
/// 3. otherwise the default visual when it is TrueColor of depth 15 or more (15-bit 5:5:5, 16-bit
///    5:6:5, 30-bit 10:10:10, packed 24-bit): each upload converts cairo's pixels to its masks;
/// 4. otherwise any other TrueColor visual of depth 15 or more, deepest first, converted likewise;
/// 5. otherwise none: ``X11Error/unavailable(_:reason:)`` naming what the screen offers.
///
/// Visuals with bits beyond red, green and blue (32-bit ARGB visuals) are never used: a compositor
/// would blend such a window with what lies below it.
package struct WindowVisual: Equatable, Sendable {
    /// The visual's id.
    package let id: xcb_visualid_t
    /// Its depth, for CreateWindow and PutImage.
    package let depth: UInt8
    /// False for the screen's default visual; true for another one, whose windows need a colormap
    /// of that visual and a border pixel (they cannot copy the root's).
    package let needsColormap: Bool
    /// How its pixels are laid out.
    package let format: PixelFormat

    /// The smallest depth the shell draws in: 5 bits a channel.
    package static let minimumDepth = 15
    /// The depth whose TrueColor visuals take cairo's pixels unchanged.
    package static let preferredDepth = 24

    /// Picks the visual by the policy above, from the screen's visuals and the setup's pixmap
    /// formats (depth, bits per pixel, scanline pad).
    package static func choose(rootVisual: xcb_visualid_t, visuals: [VisualDescription],
                               pixmapFormats: [(depth: Int, bitsPerPixel: Int, scanlinePad: Int)],
                               leastSignificantByteFirst: Bool) -> Result<WindowVisual, X11Error> {
        func candidate(_ v: VisualDescription) -> WindowVisual? {
            guard v.visualClass == UInt8(XCB_VISUAL_CLASS_TRUE_COLOR.rawValue), v.depth >= minimumDepth,
                  let pixmap = pixmapFormats.first(where: { $0.depth == v.depth }),
                  let format = PixelFormat(depth: v.depth, bitsPerPixel: pixmap.bitsPerPixel, scanlinePad: pixmap.scanlinePad,
                                           redMask: v.redMask, greenMask: v.greenMask, blueMask: v.blueMask,
                                           leastSignificantByteFirst: leastSignificantByteFirst) else { return nil }
            return WindowVisual(id: v.id, depth: UInt8(v.depth), needsColormap: v.id != rootVisual, format: format)
        }
        let usable = visuals.compactMap(candidate)
        let root = usable.first { !$0.needsColormap }
        if let root, root.format.matchesCairo { return .success(root) }
        if let exact = usable.first(where: { Int($0.depth) == preferredDepth && $0.format.matchesCairo }) { return .success(exact) }
        if let root { return .success(root) }
        if let deepest = usable.max(by: { $0.depth < $1.depth }) { return .success(deepest) }

        var offered: [String] = []
        for v in visuals {
            let name = "\(v.className) at depth \(v.depth)\(v.id == rootVisual ? " (default)" : "")"
            if !offered.contains(name) { offered.append(name) }
        }
        let list = offered.isEmpty ? "no visuals" : offered.joined(separator: ", ")
        return .failure(.unavailable("a TrueColor visual of depth \(minimumDepth) or more",
                                     reason: "the screen offers only \(list); run the X server at depth 24 "
                                         + "(for Xvfb: -screen 0 1280x1024x24)"))
    }
}
