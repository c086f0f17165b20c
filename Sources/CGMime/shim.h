// GMime 3, loaded on demand with dlopen: only a Maildir source that lists its messages needs it,
// to read the From, Subject, Date and Message-ID of a message's header block (RFC 2047 encoded
// words, RFC 2231, charsets through iconv, obsolete dates). The app hands it the header bytes it
// read itself (bounded); GMime never opens a file. The declarations mirror <gmime/gmime.h> 3.x and
// the few GLib calls needed to read and free what it returns.
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>

typedef struct BadgeGMime {
    void (*initialize)(void);
    void *(*stream_mem_new_with_buffer)(const char *buffer, size_t length);
    void *(*parser_new_with_stream)(void *stream);
    void *(*parser_construct_message)(void *parser, void *options);
    const char *(*message_get_subject)(void *message);
    void *(*message_get_from)(void *message);
    void *(*message_get_date)(void *message);
    const char *(*message_get_message_id)(void *message);
    int (*address_list_length)(void *list);
    void *(*address_list_get_address)(void *list, int index);
    const char *(*address_get_name)(void *address);
    char *(*address_to_string)(void *address, void *options, int encode);
    int64_t (*date_time_to_unix)(void *date);
    void (*object_unref)(void *object);
    void (*free)(void *memory);
} BadgeGMime;

/// Loads libgmime-3.0.so.0 and its entry points (and GLib's, through it); 0 (see dlerror) when any is missing.
static inline int badge_gmime_load(BadgeGMime *library) {
    void *handle = dlopen("libgmime-3.0.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!handle) return 0;
    library->initialize = (void (*)(void))dlsym(handle, "g_mime_init");
    library->stream_mem_new_with_buffer = (void *(*)(const char *, size_t))dlsym(handle, "g_mime_stream_mem_new_with_buffer");
    library->parser_new_with_stream = (void *(*)(void *))dlsym(handle, "g_mime_parser_new_with_stream");
    library->parser_construct_message = (void *(*)(void *, void *))dlsym(handle, "g_mime_parser_construct_message");
    library->message_get_subject = (const char *(*)(void *))dlsym(handle, "g_mime_message_get_subject");
    library->message_get_from = (void *(*)(void *))dlsym(handle, "g_mime_message_get_from");
    library->message_get_date = (void *(*)(void *))dlsym(handle, "g_mime_message_get_date");
    library->message_get_message_id = (const char *(*)(void *))dlsym(handle, "g_mime_message_get_message_id");
    library->address_list_length = (int (*)(void *))dlsym(handle, "internet_address_list_length");
    library->address_list_get_address = (void *(*)(void *, int))dlsym(handle, "internet_address_list_get_address");
    library->address_get_name = (const char *(*)(void *))dlsym(handle, "internet_address_get_name");
    library->address_to_string = (char *(*)(void *, void *, int))dlsym(handle, "internet_address_to_string");
    library->date_time_to_unix = (int64_t (*)(void *))dlsym(handle, "g_date_time_to_unix");
    library->object_unref = (void (*)(void *))dlsym(handle, "g_object_unref");
    library->free = (void (*)(void *))dlsym(handle, "g_free");
    return library->initialize && library->stream_mem_new_with_buffer && library->parser_new_with_stream
        && library->parser_construct_message && library->message_get_subject && library->message_get_from
        && library->message_get_date && library->message_get_message_id && library->address_list_length
        && library->address_list_get_address && library->address_get_name && library->address_to_string
        && library->date_time_to_unix && library->object_unref && library->free;
}

/// The last dlopen/dlsym error, or NULL.
static inline const char *badge_gmime_error(void) { return dlerror(); }
