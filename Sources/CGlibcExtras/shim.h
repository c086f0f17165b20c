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
