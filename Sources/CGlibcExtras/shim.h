// The glibc and Linux interfaces Swift's Glibc module does not expose: timers and signals as
// descriptors (timerfd, signalfd), file watches (inotify), locale and message catalogues (langinfo,
// gettext), and handing freed heap memory back to the system (malloc_trim).
#include <sys/timerfd.h>
#include <sys/signalfd.h>
#include <signal.h>
#include <unistd.h>
#include <malloc.h>
#include <locale.h>
#include <langinfo.h>
#include <libintl.h>
#include <sys/inotify.h>

// The control socket's epoll (not in Swift's Glibc module). Never <sys/socket.h> here: declared
// through this module, its names would no longer be found through Glibc.
#include <sys/epoll.h>

// Child processes for BadgeSources' commands: pipe2 with close-on-exec, pidfd_open, and
// posix_spawn's closefrom, which Swift's Glibc module does not expose (GNU extensions).
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <sys/types.h>

/// pipe2(fds, O_CLOEXEC): both ends close-on-exec, atomically (no other thread's spawn inherits them).
static inline int glibcextras_pipe_cloexec(int fds[2]) {
    return (int)syscall(SYS_pipe2, fds, O_CLOEXEC);
}

/// pidfd_open(pid, 0) with close-on-exec: readable once the process has ended; -1 (errno ENOSYS)
/// on kernels before 5.3.
static inline int glibcextras_pidfd_open(pid_t pid) {
#ifdef SYS_pidfd_open
    int fd = (int)syscall(SYS_pidfd_open, pid, 0);
    if (fd >= 0) (void)fcntl(fd, F_SETFD, FD_CLOEXEC);
    return fd;
#else
    errno = ENOSYS;
    return -1;
#endif
}

/// posix_spawn_file_actions_addclosefrom_np (glibc 2.34+): the child closes every descriptor >= from.
extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *, int);
static inline int glibcextras_spawn_addclosefrom(posix_spawn_file_actions_t *actions, int from) {
    return posix_spawn_file_actions_addclosefrom_np(actions, from);
}

/// posix_spawn_file_actions_addchdir_np (glibc 2.29+): the child changes to `path` before exec.
extern int posix_spawn_file_actions_addchdir_np(posix_spawn_file_actions_t *, const char *);
static inline int glibcextras_spawn_addchdir(posix_spawn_file_actions_t *actions, const char *path) {
    return posix_spawn_file_actions_addchdir_np(actions, path);
}

/// POSIX_SPAWN_SETSID (glibc 2.26+): the child starts a session of its own (a launched program).
/// spawn.h defines it only under _GNU_SOURCE, which Swift's importer does not set: glibc's value then.
#ifdef POSIX_SPAWN_SETSID
static const short glibcextras_spawn_setsid = POSIX_SPAWN_SETSID;
#else
static const short glibcextras_spawn_setsid = 0x80;
#endif
