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
