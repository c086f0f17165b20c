import BadgeCore
import BadgeX11
import CXCB
import CXvfbHarness
import Glibc

/// Reading pixels back: GetImage of a window (or part of it) in the screen's visual, as RGB.
extension XTestClient {

    /// Reads the window's pixels (or `rect` of it, in window coordinates) with GetImage in ZPixmap
    /// format and decodes them with the window visual's masks and the server's byte order. Supports
    /// 32, 24 and 16 bits per pixel (depth 24 B,G,R,x little-endian; depth 16 RGB565).
    public func capture(window: UInt32, rect: PixelRect? = nil) throws -> CapturedImage {
        let area: PixelRect
        if let rect {
            area = rect
        } else {
            let g = try geometry(ofWindow: window)
            area = PixelRect(x: 0, y: 0, width: g.width, height: g.height)
        }
        guard area.width > 0, area.height > 0 else { throw HarnessError("capture: empty rectangle \(area)") }
        let r = try reply("GetImage(0x\(String(window, radix: 16)), \(area)) — the window must be mapped, unobscured and the rectangle inside it") {
            xcb_get_image_reply($0, xcb_get_image($0, UInt8(XCB_IMAGE_FORMAT_Z_PIXMAP.rawValue), window,
                                                  Int16(clamping: area.x), Int16(clamping: area.y),
                                                  UInt16(clamping: area.width), UInt16(clamping: area.height), UInt32.max), $1)
        }
        defer { free(r) }
        let depth = r.pointee.depth
        let visualID = r.pointee.visual
        let length = Int(xcb_get_image_data_length(r))
        guard let data = xcb_get_image_data(r) else { throw HarnessError("GetImage returned no data") }
        let bytes = UnsafeBufferPointer(start: data, count: length)

        guard let setup = xcb_get_setup(connection) else { throw HarnessError("no setup") }
        // Pixmap format for this depth: bits per pixel and scanline padding.
        var format: (bpp: Int, pad: Int)?
        var formats = xcb_setup_pixmap_formats_iterator(setup)
        while formats.rem > 0 {
            if let f = formats.data, f.pointee.depth == depth { format = (Int(f.pointee.bits_per_pixel), Int(f.pointee.scanline_pad)) }
            xcb_format_next(&formats)
        }
        guard let format else { throw HarnessError("no pixmap format for depth \(depth)") }
        guard let masks = visualMasks(setup: setup, visual: visualID) else {
            throw HarnessError("visual 0x\(String(visualID, radix: 16)) of depth \(depth) is not TrueColor/DirectColor (cannot decode)")
        }
        guard [16, 24, 32].contains(format.bpp), format.pad > 0, format.pad % 8 == 0 else {
            throw HarnessError("unsupported pixmap format: \(format.bpp) bits per pixel, scanline pad \(format.pad) (depth \(depth))")
        }
        let bytesPerPixel = format.bpp / 8
        let stride = ((area.width * format.bpp + format.pad - 1) / format.pad) * format.pad / 8
        guard length >= stride * (area.height - 1) + area.width * bytesPerPixel else {
            throw HarnessError("GetImage data too short: \(length) bytes for \(area) at \(format.bpp) bpp")
        }
        let msbFirst = setup.pointee.image_byte_order == UInt8(XCB_IMAGE_ORDER_MSB_FIRST.rawValue)
        let channels = [masks.red, masks.green, masks.blue].map { mask -> (mask: UInt32, shift: UInt32, max: UInt32) in
            let shift = UInt32(mask.trailingZeroBitCount)
            return (mask, shift, mask >> shift)
        }
        var pixels: [RGB] = []
        pixels.reserveCapacity(area.area)
        for y in 0..<area.height {
            var offset = y * stride
            for _ in 0..<area.width {
                var value: UInt32 = 0
                for i in 0..<bytesPerPixel {
                    let byte = UInt32(bytes[offset + i])
                    value |= msbFirst ? byte << UInt32(8 * (bytesPerPixel - 1 - i)) : byte << UInt32(8 * i)
                }
                offset += bytesPerPixel
                func channel(_ c: (mask: UInt32, shift: UInt32, max: UInt32)) -> UInt8 {
                    guard c.max > 0 else { return 0 }
                    let v = (value & c.mask) >> c.shift
                    return UInt8((v * 255 + c.max / 2) / c.max)
                }
                pixels.append(RGB(r: channel(channels[0]), g: channel(channels[1]), b: channel(channels[2])))
            }
        }
        return CapturedImage(width: area.width, height: area.height, origin: (area.x, area.y), pixels: pixels)
    }

    private func visualMasks(setup: UnsafePointer<xcb_setup_t>, visual: xcb_visualid_t) -> (red: UInt32, green: UInt32, blue: UInt32)? {
        var screens = xcb_setup_roots_iterator(setup)
        while screens.rem > 0 {
            if let screen = screens.data {
                var depths = xcb_screen_allowed_depths_iterator(screen)
                while depths.rem > 0 {
                    if let d = depths.data {
                        var visuals = xcb_depth_visuals_iterator(d)
                        while visuals.rem > 0 {
                            if let v = visuals.data, v.pointee.visual_id == visual {
                                let c = v.pointee._class
                                guard c == UInt8(XCB_VISUAL_CLASS_TRUE_COLOR.rawValue) || c == UInt8(XCB_VISUAL_CLASS_DIRECT_COLOR.rawValue) else { return nil }
                                return (v.pointee.red_mask, v.pointee.green_mask, v.pointee.blue_mask)
                            }
                            xcb_visualtype_next(&visuals)
                        }
                    }
                    xcb_depth_next(&depths)
                }
            }
            xcb_screen_next(&screens)
        }
        return nil
    }

    /// The pixel value for `colour` in the root visual (for test windows of our own).
    func pixelValue(for colour: RGB) throws -> UInt32 {
        guard let setup = xcb_get_setup(connection) else { throw HarnessError("no setup") }
        guard let screen = xcb_setup_roots_iterator(setup).data else { throw HarnessError("no screen") }
        guard let masks = visualMasks(setup: setup, visual: screen.pointee.root_visual) else {
            throw HarnessError("root visual is not TrueColor")
        }
        func place(_ v: UInt8, _ mask: UInt32) -> UInt32 {
            let shift = UInt32(mask.trailingZeroBitCount), maxValue = mask >> shift
            return ((UInt32(v) * maxValue + 127) / 255) << shift
        }
        return place(colour.r, masks.red) | place(colour.g, masks.green) | place(colour.b, masks.blue)
    }
}
