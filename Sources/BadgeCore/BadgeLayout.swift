/// Badge geometry: size from the label, position on the host's anchor corner, device-pixel snapping.
///
/// Rules for unusual input: a non-finite or <= 0 `scale` is 1; NaN/infinite or negative text sizes count as 0;
/// non-finite host coordinates count as 0; `bounds` with any non-finite edge or empty size is ignored
/// (the badge is then not moved). The style is sanitised first (`BadgeStyle.sanitized()`).
public enum BadgeLayout {
    /// The badge frame: circle while `label` is one grapheme, pill (width >= height) when longer, dot square for .dot, nil for .hidden.
    /// Centred on the anchor corner of `host` (mirrored for RTL) plus the offset, snapped to device pixels at `scale`,
    /// and moved (never clipped) inside `bounds`. `textSize` is the measured size of the label text in logical units.
    ///
    /// Sizes are rounded UP to whole device pixels (so the text always fits), the centre is rounded to the
    /// nearest device pixel, so `origin * scale` and `size * scale` are whole numbers. A badge larger than
    /// `bounds` is aligned to the bounds' minimum edge.
    ///
    /// `lane`, when given, is the horizontal extent the badge's body may cover (its host's share of a
    /// row, see ``Toolbar``): the width is capped at the lane's width (its edges snapped inward to
    /// whole device pixels; never narrower than a circle) and the badge is moved (never clipped) inside the lane, then inside
    /// `bounds`, which win. Only the lane's x extent is used; text that is too wide should be cut first
    /// (``BadgeTextTruncation``), as ``BadgeController`` does, so that it is not clipped.
    public static func frame(for label: BadgeLabel, textSize: Size, host: Rect, style: BadgeStyle,
                             direction: LayoutDirection, scale: Double, bounds: Rect, lane: Rect? = nil) -> Rect? {
        frame(for: label, textSize: textSize, host: host, sanitizedStyle: style.sanitized(), direction: direction,
              scale: scale, bounds: bounds, lane: lane)
    }

    /// `frame(for:textSize:host:style:direction:scale:bounds:)` for a style that is already sanitised
    /// (sanitising is idempotent, so this only skips repeating it).
    static func frame(for label: BadgeLabel, textSize: Size, host: Rect, sanitizedStyle style: BadgeStyle,
                      direction: LayoutDirection, scale: Double, bounds: Rect, lane: Rect? = nil) -> Rect? {
        let scale = DeviceGrid.sanitizedScale(scale)
        guard var size = deviceSize(for: label, textSize: textSize, style: style, scale: scale) else { return nil }
        let lane = lane.flatMap(usableLane)
        if let lane {
            let widest = Swift.max(DeviceGrid.floor(lane.maxX * scale) - DeviceGrid.ceil(lane.minX * scale), size.height)
            size.width = Swift.min(size.width, widest)
        }
        let center = anchorPoint(host: host, style: style, direction: direction)
        var left = DeviceGrid.round(center.x * scale - size.width / 2)
        var top = DeviceGrid.round(center.y * scale - size.height / 2)
        if let lane {
            left = keep(left, length: size.width, min: lane.minX * scale, max: lane.maxX * scale)
        }
        if let bounds = usableBounds(bounds) {
            left = keep(left, length: size.width, min: bounds.minX * scale, max: bounds.maxX * scale)
            top = keep(top, length: size.height, min: bounds.minY * scale, max: bounds.maxY * scale)
        }
        return Rect(x: left / scale, y: top / scale, width: size.width / scale, height: size.height / scale)
    }

    /// The point the badge is centred on: the (direction-resolved) anchor corner of `host` plus the offset,
    /// whose x is mirrored in right-to-left layouts. Expects a sanitised style.
    public static func anchorPoint(host: Rect, style: BadgeStyle, direction: LayoutDirection) -> Point {
        let host = sanitizedHost(host)
        let trailingIsRight = direction == .leftToRight
        let atTrailing: Bool, atTop: Bool
        switch style.anchor {
        case .topLeading: (atTrailing, atTop) = (false, true)
        case .topTrailing: (atTrailing, atTop) = (true, true)
        case .bottomLeading: (atTrailing, atTop) = (false, false)
        case .bottomTrailing: (atTrailing, atTop) = (true, false)
        }
        let atRight = atTrailing == trailingIsRight
        let x = (atRight ? host.maxX : host.minX) + (trailingIsRight ? style.offset.x : -style.offset.x)
        let y = (atTop ? host.minY : host.maxY) + style.offset.y
        return Point(x: x, y: y)
    }

    /// The badge size in whole DEVICE pixels, nil for `.hidden`. Expects a sanitised style and scale.
    static func deviceSize(for label: BadgeLabel, textSize: Size, style: BadgeStyle, scale: Double) -> Size? {
        switch label {
        case .hidden:
            return nil
        case .dot:
            let side = Swift.max(DeviceGrid.ceil(style.dotDiameter * scale), 1)
            return Size(width: side, height: side)
        case .text(let text):
            let textWidth = nonNegative(textSize.width), textHeight = nonNegative(textSize.height)
            let height = Swift.max(style.minimumSize, textHeight + 2 * style.verticalPadding)
            let deviceHeight = Swift.max(DeviceGrid.ceil(height * scale), 1)
            if text.count <= 1 { return Size(width: deviceHeight, height: deviceHeight) }
            let width = textWidth + 2 * style.horizontalPadding
            let deviceWidth = Swift.max(DeviceGrid.ceil(Swift.min(width, 1e12) * scale), deviceHeight)
            return Size(width: deviceWidth, height: deviceHeight)
        }
    }

    /// Moves a device-space segment [start, start+length) inside [min, max] snapped inward; min edge wins.
    private static func keep(_ start: Double, length: Double, min: Double, max: Double) -> Double {
        let low = DeviceGrid.ceil(min), high = DeviceGrid.floor(max)
        var result = Swift.min(start, high - length)
        result = Swift.max(result, low)
        return result
    }

    private static func usableBounds(_ bounds: Rect) -> Rect? {
        guard bounds.minX.isFinite, bounds.minY.isFinite, bounds.width.isFinite, bounds.height.isFinite,
              !bounds.isEmpty else { return nil }
        guard bounds.maxX.isFinite, bounds.maxY.isFinite else { return nil }
        return bounds
    }

    /// A lane with finite x edges and a positive width, else nil (no lane).
    private static func usableLane(_ lane: Rect) -> Rect? {
        guard lane.minX.isFinite, lane.width.isFinite, lane.maxX.isFinite, lane.width > 0 else { return nil }
        return lane
    }

    private static func sanitizedHost(_ host: Rect) -> Rect {
        func fix(_ value: Double) -> Double { value.isFinite ? value : 0 }
        return Rect(x: fix(host.minX), y: fix(host.minY), width: fix(host.width), height: fix(host.height))
    }

    private static func nonNegative(_ value: Double) -> Double {
        value.isFinite && value > 0 ? value : 0
    }
}
