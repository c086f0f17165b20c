import BadgeCore
import CXCB

/// Placing the window: moving it, hiding it, destroying it at once, and what the server says
/// about where it is.
extension WindowSurface {
    /// The coordinates a window can have (the protocol's INT16).
    static func clampedCoordinate(_ value: Int) -> Int { max(Int(Int16.min), min(value, Int(Int16.max))) }

    /// Asks the server to move the window to (`x`, `y`) in its parent's coordinates (a top-level
    /// window asks its window manager, which may place it elsewhere).
    package func move(x newX: Int, y newY: Int) {
        guard exists else { return }
        let left = Self.clampedCoordinate(newX), top = Self.clampedCoordinate(newY)
        let values: [UInt32] = [UInt32(bitPattern: Int32(left)), UInt32(bitPattern: Int32(top))]
        xcb_configure_window(x.handle, window, UInt16(XCB_CONFIG_WINDOW_X.rawValue | XCB_CONFIG_WINDOW_Y.rawValue), values)
        frame.x = left
        frame.y = top
    }

    /// Records where the server says the window is (a ConfigureNotify): its size always, its
    /// position when `position` is given (see ``ToolbarHost/frame`` for when it is).
    package func recordConfigured(position: (x: Int, y: Int)?, width: Int, height: Int) {
        if let position {
            frame.x = position.x
            frame.y = position.y
        }
        frame.width = max(width, 1)
        frame.height = max(height, 1)
    }

    /// Unmaps the window.
    package func unmap() {
        guard exists else { return }
        xcb_unmap_window(x.handle, window)
    }

    /// Destroys the window now, selecting no more events on it first (its UnmapNotify and
    /// DestroyNotify would otherwise reach the caller as events of a window nobody knows).
    package func destroy() {
        guard exists else { return }
        let none: [UInt32] = [0]
        xcb_change_window_attributes(x.handle, window, XCB_CW_EVENT_MASK.rawValue, none)
        xcb_destroy_window(x.handle, window)
        exists = false
    }
}
