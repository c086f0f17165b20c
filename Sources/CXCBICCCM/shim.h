// xcb-icccm's WM_HINTS and WM_SIZE_HINTS layouts and flag names. Only the header is used (its
// structs and constants): nothing is linked, so it adds nothing to the process.
#include <xcb/xcb_icccm.h>
