// RandR 1.5: the monitors (GetMonitors), their CRTCs and outputs, output properties (DPI) and the
// events that say they changed, for the scale of the monitor a window is on.
#include <xcb/xcb.h>
#include <xcb/randr.h>
