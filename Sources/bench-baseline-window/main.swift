// The benchmark's baseline: the least an XCB program can do to show a toolbar-sized frame.
// It opens a window, waits until it is mapped, fills it with one PutImage, flushes and prints
// "ready". badge-bench compares badge-demo's launch-to-first-frame time with this program's.
import CXCB
import Glibc

guard let connection = xcb_connect(nil, nil), xcb_connection_has_error(connection) == 0,
      let setup = xcb_get_setup(connection), let screen = xcb_setup_roots_iterator(setup).data else {
    print("cannot open display")
    exit(1)
}
let width = 210, height = 60
let window = xcb_generate_id(connection)
let values: [UInt32] = [0, XCB_EVENT_MASK_EXPOSURE.rawValue | XCB_EVENT_MASK_STRUCTURE_NOTIFY.rawValue]
xcb_create_window(connection, screen.pointee.root_depth, window, screen.pointee.root, 0, 0, UInt16(width), UInt16(height), 0,
                  UInt16(XCB_WINDOW_CLASS_INPUT_OUTPUT.rawValue), screen.pointee.root_visual,
                  XCB_CW_BACK_PIXMAP.rawValue | XCB_CW_EVENT_MASK.rawValue, values)
let gc = xcb_generate_id(connection)
xcb_create_gc(connection, gc, window, 0, nil)
xcb_map_window(connection, window)
xcb_flush(connection)
var pixels = [UInt32](repeating: 0x00f6f5f4, count: width * height)
while let event = xcb_wait_for_event(connection) {
    let type = Int32(event.pointee.response_type & 0x7f)
    free(event)
    if type == XCB_MAP_NOTIFY {
        pixels.withUnsafeBytes { bytes in
            _ = xcb_put_image(connection, UInt8(XCB_IMAGE_FORMAT_Z_PIXMAP.rawValue), window, gc, UInt16(width), UInt16(height),
                              0, 0, 0, screen.pointee.root_depth, UInt32(bytes.count), bytes.baseAddress?.assumingMemoryBound(to: UInt8.self))
        }
        xcb_flush(connection)
        print("{\"event\":\"ready\",\"window\":\(window)}")
        fflush(nil)
    }
}
