// OpenSSL 3, loaded on demand with dlopen: only an IMAP source needs TLS, so a toolbar without one
// never maps libssl or libcrypto. The declarations come from libssl-dev's headers (types and
// constants only; nothing here is linked). The session runs on memory BIOs: the source moves the
// bytes between them and its socket itself (send with MSG_NOSIGNAL, no SIGPIPE, its own deadlines).
// OpenSSL's function-like macros, which Swift cannot call, are the badge_tls_* helpers below.
#include <dlfcn.h>
#include <stddef.h>
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>

typedef struct BadgeOpenSSL {
    const SSL_METHOD *(*client_method)(void);
    SSL_CTX *(*context_new)(const SSL_METHOD *method);
    void (*context_free)(SSL_CTX *context);
    int (*context_set_default_verify_paths)(SSL_CTX *context);
    int (*context_load_verify_locations)(SSL_CTX *context, const char *file, const char *path);
    void (*context_set_verify)(SSL_CTX *context, int mode, SSL_verify_cb callback);
    long (*context_ctrl)(SSL_CTX *context, int command, long larg, void *parg);
    SSL *(*new_session)(SSL_CTX *context);
    void (*free_session)(SSL *session);
    long (*session_ctrl)(SSL *session, int command, long larg, void *parg);
    int (*set1_host)(SSL *session, const char *host);
    void (*set_bio)(SSL *session, BIO *read, BIO *write);
    int (*connect)(SSL *session);
    int (*read)(SSL *session, void *bytes, int count);
    int (*write)(SSL *session, const void *bytes, int count);
    int (*get_error)(const SSL *session, int result);
    long (*get_verify_result)(const SSL *session);
    const char *(*get_version)(const SSL *session);
    int (*shutdown)(SSL *session);
    const BIO_METHOD *(*bio_memory)(void);
    BIO *(*bio_new)(const BIO_METHOD *method);
    int (*bio_read)(BIO *bio, void *bytes, int count);
    int (*bio_write)(BIO *bio, const void *bytes, int count);
    size_t (*bio_pending)(BIO *bio);
    const char *(*verify_error_string)(long code);
    unsigned long (*error_get)(void);
    void (*error_string)(unsigned long code, char *text, size_t size);
    void (*error_clear)(void);
} BadgeOpenSSL;

/// Loads libssl.so.3 (and libcrypto through it) and the entry points; 0 (see dlerror) when any is missing.
static inline int badge_openssl_load(BadgeOpenSSL *l) {
    void *handle = dlopen("libssl.so.3", RTLD_NOW | RTLD_LOCAL);
    if (!handle) return 0;
    l->client_method = (const SSL_METHOD *(*)(void))dlsym(handle, "TLS_client_method");
    l->context_new = (SSL_CTX *(*)(const SSL_METHOD *))dlsym(handle, "SSL_CTX_new");
    l->context_free = (void (*)(SSL_CTX *))dlsym(handle, "SSL_CTX_free");
    l->context_set_default_verify_paths = (int (*)(SSL_CTX *))dlsym(handle, "SSL_CTX_set_default_verify_paths");
    l->context_load_verify_locations = (int (*)(SSL_CTX *, const char *, const char *))dlsym(handle, "SSL_CTX_load_verify_locations");
    l->context_set_verify = (void (*)(SSL_CTX *, int, SSL_verify_cb))dlsym(handle, "SSL_CTX_set_verify");
    l->context_ctrl = (long (*)(SSL_CTX *, int, long, void *))dlsym(handle, "SSL_CTX_ctrl");
    l->new_session = (SSL *(*)(SSL_CTX *))dlsym(handle, "SSL_new");
    l->free_session = (void (*)(SSL *))dlsym(handle, "SSL_free");
    l->session_ctrl = (long (*)(SSL *, int, long, void *))dlsym(handle, "SSL_ctrl");
    l->set1_host = (int (*)(SSL *, const char *))dlsym(handle, "SSL_set1_host");
    l->set_bio = (void (*)(SSL *, BIO *, BIO *))dlsym(handle, "SSL_set_bio");
    l->connect = (int (*)(SSL *))dlsym(handle, "SSL_connect");
    l->read = (int (*)(SSL *, void *, int))dlsym(handle, "SSL_read");
    l->write = (int (*)(SSL *, const void *, int))dlsym(handle, "SSL_write");
    l->get_error = (int (*)(const SSL *, int))dlsym(handle, "SSL_get_error");
    l->get_verify_result = (long (*)(const SSL *))dlsym(handle, "SSL_get_verify_result");
    l->get_version = (const char *(*)(const SSL *))dlsym(handle, "SSL_get_version");
    l->shutdown = (int (*)(SSL *))dlsym(handle, "SSL_shutdown");
    l->bio_memory = (const BIO_METHOD *(*)(void))dlsym(handle, "BIO_s_mem");
    l->bio_new = (BIO *(*)(const BIO_METHOD *))dlsym(handle, "BIO_new");
    l->bio_read = (int (*)(BIO *, void *, int))dlsym(handle, "BIO_read");
    l->bio_write = (int (*)(BIO *, const void *, int))dlsym(handle, "BIO_write");
    l->bio_pending = (size_t (*)(BIO *))dlsym(handle, "BIO_ctrl_pending");
    l->verify_error_string = (const char *(*)(long))dlsym(handle, "X509_verify_cert_error_string");
    l->error_get = (unsigned long (*)(void))dlsym(handle, "ERR_get_error");
    l->error_string = (void (*)(unsigned long, char *, size_t))dlsym(handle, "ERR_error_string_n");
    l->error_clear = (void (*)(void))dlsym(handle, "ERR_clear_error");
    return l->client_method && l->context_new && l->context_free && l->context_set_default_verify_paths
        && l->context_load_verify_locations && l->context_set_verify && l->context_ctrl && l->new_session
        && l->free_session && l->session_ctrl && l->set1_host && l->set_bio && l->connect && l->read
        && l->write && l->get_error && l->get_verify_result && l->get_version && l->shutdown && l->bio_memory
        && l->bio_new && l->bio_read && l->bio_write && l->bio_pending && l->verify_error_string
        && l->error_get && l->error_string && l->error_clear;
}

/// SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION); 1 on success.
static inline long badge_tls_require_tls12(const BadgeOpenSSL *l, SSL_CTX *context) {
    return l->context_ctrl(context, SSL_CTRL_SET_MIN_PROTO_VERSION, TLS1_2_VERSION, NULL);
}

/// SSL_CTX_set_mode(context, partial writes and a moving write buffer: the source keeps its own queue).
static inline long badge_tls_set_modes(const BadgeOpenSSL *l, SSL_CTX *context) {
    return l->context_ctrl(context, SSL_CTRL_MODE, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER, NULL);
}

/// SSL_set_tlsext_host_name(session, host): the SNI; 1 on success.
static inline long badge_tls_set_server_name(const BadgeOpenSSL *l, SSL *session, const char *host) {
    return l->session_ctrl(session, SSL_CTRL_SET_TLSEXT_HOSTNAME, TLSEXT_NAMETYPE_host_name, (void *)host);
}

/// The constants Swift sees only through these (some are macros of expressions).
static inline int badge_tls_verify_peer(void) { return SSL_VERIFY_PEER; }
static inline int badge_tls_want_read(void) { return SSL_ERROR_WANT_READ; }
static inline int badge_tls_want_write(void) { return SSL_ERROR_WANT_WRITE; }
static inline int badge_tls_zero_return(void) { return SSL_ERROR_ZERO_RETURN; }
static inline long badge_tls_verify_ok(void) { return X509_V_OK; }
