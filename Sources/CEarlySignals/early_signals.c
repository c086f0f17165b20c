// badge-demo ends cleanly (status 0) on SIGTERM, SIGINT or SIGHUP at any moment, also in the
// milliseconds before its Swift code runs: the three signals are blocked from the executable's
// pre-initializer on, which the dynamic loader calls after relocation and before the initializers
// of every shared library (libswiftCore, libxcb, ...). A signal that arrives then stays pending
// until the app's signalfd (SignalWatcher) reads it on the event loop's first turn.
//
// What stays unprotected is the dynamic loader's own work before that point (mapping and
// relocating the libraries): nothing of ours can run earlier in a dynamically linked program.
//
// The app starts no programs (its D-Bus client refuses unixexec: and autolaunch: addresses); a
// child started later must be given an empty mask explicitly (posix_spawnattr_setsigmask).
#include "CEarlySignals.h"

#include <signal.h>
#include <stddef.h>

// SwiftPM compiles an executable module's top-level code as `BadgeApp_main` and, in the program
// itself, makes `main` an alias of it. The test runner links the same object files with a `main`
// of its own: there the signals are left alone (Ctrl+C must still stop a test run).
extern int main(int, char **);
extern int BadgeApp_main(int, char **) __attribute__((weak));

static int blocked;

static int is_badge_demo(void) {
    return BadgeApp_main == NULL || (void *)BadgeApp_main == (void *)main;
}

static void block_termination_signals(int argc, char **argv, char **envp) {
    (void)argc; (void)argv; (void)envp;
    if (!is_badge_demo()) return;
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGHUP);
    // One thread exists now; every thread created later inherits the mask.
    if (sigprocmask(SIG_BLOCK, &set, NULL) == 0) blocked = 1;
}

// Executables only: run before any shared library's initializer.
__attribute__((section(".preinit_array"), used))
static void (*const badge_early_signals_preinit)(int, char **, char **) = block_termination_signals;

int badge_early_signals_blocked(void) { return blocked; }
