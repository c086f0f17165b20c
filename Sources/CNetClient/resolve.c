#define _GNU_SOURCE
#include "CNetClient.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

struct badge_resolve_job {
    char *host;
    char *port;
    int descriptor;
};

static void badge_put32(unsigned char *at, int32_t value) { memcpy(at, &value, 4); }

static void *badge_resolve_thread(void *argument) {
    struct badge_resolve_job *job = argument;
    struct addrinfo hints;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_ADDRCONFIG;
    struct addrinfo *found = NULL;
    int status = getaddrinfo(job->host, job->port, &hints, &found);
    // At most 16 addresses of at most sizeof(struct sockaddr_storage) each: one send.
    unsigned char answer[8 + 16 * (4 + sizeof(struct sockaddr_storage))];
    size_t used = 8;
    int32_t count = 0;
    if (status == 0) {
        for (struct addrinfo *at = found; at && count < 16; at = at->ai_next) {
            if (at->ai_addrlen > sizeof(struct sockaddr_storage)) continue;
            badge_put32(answer + used, (int32_t)at->ai_addrlen);
            memcpy(answer + used + 4, at->ai_addr, at->ai_addrlen);
            used += 4 + at->ai_addrlen;
            count += 1;
        }
        freeaddrinfo(found);
    }
    badge_put32(answer, status == EAI_SYSTEM ? -errno - 1000 : status);
    badge_put32(answer + 4, count);
    // The loop may have given up (closed its end): EPIPE, never a signal.
    ssize_t sent = send(job->descriptor, answer, used, MSG_NOSIGNAL);
    (void)sent;
    close(job->descriptor);
    free(job->host);
    free(job->port);
    free(job);
    return NULL;
}

int badge_resolve_start(const char *host, const char *port) {
    int pair[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) return -errno;
    struct badge_resolve_job *job = calloc(1, sizeof *job);
    if (job) {
        job->host = strdup(host);
        job->port = strdup(port);
        job->descriptor = pair[1];
    }
    if (!job || !job->host || !job->port) {
        if (job) { free(job->host); free(job->port); free(job); }
        close(pair[0]);
        close(pair[1]);
        return -ENOMEM;
    }
    pthread_attr_t attributes;
    pthread_attr_init(&attributes);
    pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attributes, 256 * 1024);
    // The thread takes no signal meant for the loop (SIGTERM, SIGINT, SIGHUP, SIGCHLD).
    sigset_t all, before;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &before);
    pthread_t thread;
    int failed = pthread_create(&thread, &attributes, badge_resolve_thread, job);
    pthread_sigmask(SIG_SETMASK, &before, NULL);
    pthread_attr_destroy(&attributes);
    if (failed) {
        free(job->host); free(job->port); free(job);
        close(pair[0]);
        close(pair[1]);
        return -failed;
    }
    int flags = fcntl(pair[0], F_GETFL);
    if (flags >= 0) fcntl(pair[0], F_SETFL, flags | O_NONBLOCK);
    return pair[0];
}

const char *badge_resolve_error(int status) {
    if (status <= -1000) return strerror(-(status + 1000));
    return gai_strerror(status);
}

int badge_net_connect(const void *address, unsigned length, unsigned userTimeoutMilliseconds) {
    const struct sockaddr *target = address;
    int descriptor = socket(target->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_TCP);
    if (descriptor < 0) return -errno;
    int on = 1, idle = 60, interval = 10, probes = 3;
    setsockopt(descriptor, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof on);
    setsockopt(descriptor, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof idle);
    setsockopt(descriptor, IPPROTO_TCP, TCP_KEEPINTVL, &interval, sizeof interval);
    setsockopt(descriptor, IPPROTO_TCP, TCP_KEEPCNT, &probes, sizeof probes);
    setsockopt(descriptor, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
    setsockopt(descriptor, IPPROTO_TCP, TCP_USER_TIMEOUT, &userTimeoutMilliseconds, sizeof userTimeoutMilliseconds);
    int started;
    do { started = connect(descriptor, target, length); } while (started != 0 && errno == EINTR);
    if (started != 0 && errno != EINPROGRESS) {
        int error = errno;
        close(descriptor);
        return -error;
    }
    return descriptor;
}

int badge_net_connect_error(int descriptor) {
    int error = 0;
    socklen_t size = sizeof error;
    if (getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &error, &size) != 0) return errno;
    return error;
}

void badge_net_address_text(const void *address, unsigned length, char *text, size_t size) {
    const struct sockaddr *target = address;
    char host[INET6_ADDRSTRLEN] = "?";
    unsigned port = 0;
    if (target->sa_family == AF_INET && length >= sizeof(struct sockaddr_in)) {
        const struct sockaddr_in *v4 = address;
        inet_ntop(AF_INET, &v4->sin_addr, host, sizeof host);
        port = ntohs(v4->sin_port);
        snprintf(text, size, "%s:%u", host, port);
    } else if (target->sa_family == AF_INET6 && length >= sizeof(struct sockaddr_in6)) {
        const struct sockaddr_in6 *v6 = address;
        inet_ntop(AF_INET6, &v6->sin6_addr, host, sizeof host);
        port = ntohs(v6->sin6_port);
        snprintf(text, size, "[%s]:%u", host, port);
    } else {
        snprintf(text, size, "(address family %d)", target->sa_family);
    }
}

long badge_net_send(int descriptor, const void *bytes, size_t count) {
    ssize_t sent;
    do { sent = send(descriptor, bytes, count, MSG_NOSIGNAL | MSG_DONTWAIT); } while (sent < 0 && errno == EINTR);
    return sent < 0 ? -errno : (long)sent;
}

long badge_net_receive(int descriptor, void *bytes, size_t count) {
    ssize_t got;
    do { got = recv(descriptor, bytes, count, MSG_DONTWAIT); } while (got < 0 && errno == EINTR);
    return got < 0 ? -errno : (long)got;
}
