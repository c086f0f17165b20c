// Blocks SIGTERM, SIGINT and SIGHUP before anything else of badge-demo runs (see early_signals.c).
#ifndef BADGE_EARLY_SIGNALS_H
#define BADGE_EARLY_SIGNALS_H

/// 1 when the signals were blocked at load time (in badge-demo), 0 when not (in a test runner that
/// links the demo's code, or when the kernel refused).
int badge_early_signals_blocked(void);

#endif
