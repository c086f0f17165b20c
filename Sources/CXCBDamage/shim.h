// DAMAGE (with the XFIXES regions it uses): the benchmark watches the whole screen for updates.
#include <xcb/xcb.h>
#include <xcb/damage.h>
#include <xcb/xfixes.h>
