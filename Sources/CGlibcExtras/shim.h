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

// The control socket: epoll, accept4 and the peer's credentials (SO_PEERCRED). accept4 and
// struct ucred are declared by glibc only under _GNU_SOURCE, hence these small wrappers.
#include <errno.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/types.h>

extern int accept4(int, struct sockaddr *, socklen_t *, int);

/// The credentials of a Unix socket's peer, as SO_PEERCRED reports them.
struct badgekit_peer_credentials {
    pid_t pid;
    uid_t uid;
    gid_t gid;
};

/// Accepts a connection, non-blocking and close-on-exec; -1 with errno set on failure.
static inline int badgekit_accept_nonblocking(int listener) {
    return accept4(listener, (struct sockaddr *)0, (socklen_t *)0, SOCK_NONBLOCK | SOCK_CLOEXEC);
}

/// Reads the peer's pid, uid and gid (SO_PEERCRED); 0 on success, -1 with errno set on failure.
static inline int badgekit_peer_credentials(int descriptor, struct badgekit_peer_credentials *out) {
    socklen_t length = sizeof *out;
    if (getsockopt(descriptor, SOL_SOCKET, SO_PEERCRED, out, &length) != 0) return -1;
    if (length != sizeof *out) { errno = EINVAL; return -1; }
    return 0;
}
