/* The test harness's C: XTEST input, a raw X-Resource request, and process helpers (pipe2,
   pidfd_open, environ, closefrom for posix_spawn) that Swift's Glibc module does not expose. */
#include <xcb/xcb.h>
#include <xcb/xtest.h>

/* Helpers for the XvfbHarness test-support target (Linux-only calls that the
   Swift Glibc module does not expose without _GNU_SOURCE). */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/types.h>

/* pipe2(fds, O_CLOEXEC): both ends close-on-exec, atomically. */
static inline int xvfbharness_pipe_cloexec(int fds[2]) {
    return (int)syscall(SYS_pipe2, fds, O_CLOEXEC);
}

/* pidfd_open(pid, 0): a descriptor that polls readable when the process exits; -1 if unsupported. */
static inline int xvfbharness_pidfd_open(pid_t pid) {
#ifdef SYS_pidfd_open
    return (int)syscall(SYS_pidfd_open, pid, 0);
#else
    errno = ENOSYS;
    return -1;
#endif
}

/* The process environment (the C global `environ`, flagged by Swift 6 strict concurrency). */
static inline char *const *xvfbharness_environ(void) {
    extern char **environ;
    return environ;
}

/* posix_spawn_file_actions_addclosefrom_np (glibc >= 2.34, a GNU extension hidden from Swift):
   close every descriptor >= from in the child, so nothing the test process holds (X sockets of
   other tests, runner pipes) leaks into it. */
#include <spawn.h>
extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *, int);
static inline int xvfbharness_spawn_addclosefrom(posix_spawn_file_actions_t *actions, int from) {
    return posix_spawn_file_actions_addclosefrom_np(actions, from);
}

/* X-Resource QueryClientResources (minor opcode 2) sent as a raw request, so the harness needs no
   libxcb-res: `major` is the extension's major opcode (QueryExtension "X-Resource"), `xid` any
   resource of the client. Returns the sequence number for xcb_wait_for_reply; the reply is
   {type, pad, sequence, length, num_types, pad[20]} followed by num_types {type atom, count} pairs. */
#include <xcb/xcbext.h>
#include <sys/uio.h>
static inline unsigned int xvfbharness_xres_query_client_resources(xcb_connection_t *c, uint8_t major, uint32_t xid) {
    struct { uint8_t major; uint8_t minor; uint16_t length; uint32_t xid; } request = { major, 2, 2, xid };
    struct iovec parts[3];  /* xcb_send_request needs two spare iovecs before the data */
    parts[2].iov_base = &request;
    parts[2].iov_len = sizeof request;
    xcb_protocol_request_t info = { 1, NULL, major, 0 };
    return xcb_send_request(c, XCB_REQUEST_CHECKED, parts + 2, &info);
}
