// Network calls for BadgeSources' IMAP source that Swift's Glibc module does not expose, or that
// must not block the event loop: a host name resolved on a thread of its own (getaddrinfo, so NSS
// with mdns, myhostname and /etc/hosts is honoured), and a non-blocking TCP connect with the
// keepalive and user timeout that let a dead peer be noticed.
#ifndef CNETCLIENT_H
#define CNETCLIENT_H

#include <stddef.h>

/// Starts resolving `host` for `port` (TCP) on a detached thread of its own. Returns the read end
/// of a close-on-exec socket pair (readable when the answer is there, then at its end of file), or
/// -errno. The answer is: a 32-bit getaddrinfo status, a 32-bit count, then per address a 32-bit
/// length and that many bytes of sockaddr. Closing the descriptor abandons the lookup: the thread
/// then finishes alone and frees what it holds, and nothing it does can reach another descriptor.
int badge_resolve_start(const char *host, const char *port);

/// getaddrinfo's words for a status of the answer.
const char *badge_resolve_error(int status);

/// A non-blocking, close-on-exec TCP socket for `address`, its connect started (EINPROGRESS
/// counts as started), with TCP keepalive (60 s idle, 10 s apart, 3 probes), TCP_USER_TIMEOUT
/// `userTimeoutMilliseconds` and TCP_NODELAY. Returns the descriptor or -errno.
int badge_net_connect(const void *address, unsigned length, unsigned userTimeoutMilliseconds);

/// The outcome of a connect once the socket is writable: 0, or the errno (SO_ERROR).
int badge_net_connect_error(int descriptor);

/// `address` as text ("127.0.0.1:993", "[::1]:993") into `text` (at least 64 bytes).
void badge_net_address_text(const void *address, unsigned length, char *text, size_t size);

/// send(2) with MSG_NOSIGNAL | MSG_DONTWAIT: bytes sent, or -errno.
long badge_net_send(int descriptor, const void *bytes, size_t count);

/// recv(2) with MSG_DONTWAIT: bytes read (0 at the end), or -errno.
long badge_net_receive(int descriptor, void *bytes, size_t count);

#endif
