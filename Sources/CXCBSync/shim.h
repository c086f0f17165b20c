// The X SYNC extension's counters, for _NET_WM_SYNC_REQUEST: the window manager waits for the
// counter before it shows a resized frame, so a resize never shows a half-drawn window.
#include <xcb/xcb.h>
#include <xcb/sync.h>
