// MIT-SHM: window updates through a shared-memory segment instead of the socket. libxcb-shm is
// mapped already (cairo links it), so using it adds nothing to the process.
#include <xcb/xcb.h>
#include <xcb/shm.h>
#include <sys/ipc.h>
#include <sys/shm.h>
