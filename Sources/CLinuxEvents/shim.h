// Linux interfaces the Swift Glibc module does not expose: timers and signals as descriptors, and
// handing freed heap memory back to the system.
#include <sys/timerfd.h>
#include <sys/signalfd.h>
#include <signal.h>
#include <unistd.h>
#include <malloc.h>
#include <locale.h>
#include <langinfo.h>
#include <libintl.h>
#include <sys/inotify.h>
