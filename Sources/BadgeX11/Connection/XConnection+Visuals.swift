import CXCB

extension XConnection {
    /// The number of the screen whose root window is ``root`` (for selections named by screen,
    /// such as `_NET_SYSTEM_TRAY_S0`); 0 when the setup does not list it.
    package var screenNumber: Int {
        guard let setup = xcb_get_setup(handle) else { return 0 }
        var iterator = xcb_setup_roots_iterator(setup)
        var index = 0
        while iterator.rem > 0, let screen = iterator.data {
            if screen.pointee.root == root { return index }
            xcb_screen_next(&iterator)
            index += 1
        }
        return 0
    }

    /// The visual `id` of this connection's screen, as the setup describes it; nil when the screen
    /// has no such visual (an id another client made up).
    package func visual(withID id: xcb_visualid_t) -> VisualDescription? {
        guard let setup = xcb_get_setup(handle) else { return nil }
        var screens = xcb_setup_roots_iterator(setup)
        while screens.rem > 0, let screen = screens.data {
            defer { xcb_screen_next(&screens) }
            guard screen.pointee.root == root else { continue }
            var depths = xcb_screen_allowed_depths_iterator(screen)
            while depths.rem > 0, let depth = depths.data {
                var visuals = xcb_depth_visuals_iterator(depth)
                while visuals.rem > 0, let v = visuals.data {
                    if v.pointee.visual_id == id {
                        return VisualDescription(id: id, visualClass: v.pointee._class, depth: Int(depth.pointee.depth),
                                                 redMask: v.pointee.red_mask, greenMask: v.pointee.green_mask,
                                                 blueMask: v.pointee.blue_mask)
                    }
                    xcb_visualtype_next(&visuals)
                }
                xcb_depth_next(&depths)
            }
        }
        return nil
    }
}
