// libdbus, loaded on demand with dlopen: the demo only talks D-Bus when a session bus is configured,
// so a toolbar without one never maps libdbus and what it pulls in (libsystemd, libgcrypt...).
// The declarations mirror <dbus/dbus.h> (libdbus-1.so.3, a stable ABI).
#include <dlfcn.h>
#include <stdint.h>
/* The protocol's names and numbers (message types, standard error names): macros only, no link. */
#include "/usr/include/dbus-1.0/dbus/dbus-protocol.h"

typedef uint32_t badge_dbus_bool_t;
typedef struct BadgeDBusConnection BadgeDBusConnection;
typedef struct BadgeDBusMessage BadgeDBusMessage;
typedef struct BadgeDBusPendingCall BadgeDBusPendingCall;

/// struct DBusError.
typedef struct BadgeDBusError {
    const char *name;
    const char *message;
    unsigned int dummy1 : 1, dummy2 : 1, dummy3 : 1, dummy4 : 1, dummy5 : 1;
    void *padding1;
} BadgeDBusError;

/// struct DBusMessageIter.
typedef struct BadgeDBusMessageIter {
    void *dummy1;
    void *dummy2;
    uint32_t dummy3;
    int dummy4, dummy5, dummy6, dummy7, dummy8, dummy9, dummy10, dummy11;
    int pad1;
    void *pad2;
    void *pad3;
} BadgeDBusMessageIter;

/// DBUS_BUS_SESSION in enum DBusBusType.
#define BADGE_DBUS_BUS_SESSION 0

typedef struct BadgeDBus {
    void (*error_init)(BadgeDBusError *error);
    void (*error_free)(BadgeDBusError *error);
    BadgeDBusConnection *(*bus_get_private)(int type, BadgeDBusError *error);
    void (*connection_set_exit_on_disconnect)(BadgeDBusConnection *connection, badge_dbus_bool_t exit);
    void (*connection_close)(BadgeDBusConnection *connection);
    void (*connection_unref)(BadgeDBusConnection *connection);
    badge_dbus_bool_t (*connection_get_unix_fd)(BadgeDBusConnection *connection, int *fd);
    badge_dbus_bool_t (*connection_get_is_connected)(BadgeDBusConnection *connection);
    badge_dbus_bool_t (*connection_send)(BadgeDBusConnection *connection, BadgeDBusMessage *message, uint32_t *serial);
    badge_dbus_bool_t (*connection_read_write)(BadgeDBusConnection *connection, int timeout);
    BadgeDBusMessage *(*connection_pop_message)(BadgeDBusConnection *connection);
    badge_dbus_bool_t (*connection_has_messages_to_send)(BadgeDBusConnection *connection);
    BadgeDBusMessage *(*message_new_signal)(const char *path, const char *interface, const char *name);
    void (*message_unref)(BadgeDBusMessage *message);
    void (*message_iter_init_append)(BadgeDBusMessage *message, BadgeDBusMessageIter *iter);
    badge_dbus_bool_t (*message_iter_open_container)(BadgeDBusMessageIter *iter, int type, const char *signature,
                                                     BadgeDBusMessageIter *sub);
    badge_dbus_bool_t (*message_iter_close_container)(BadgeDBusMessageIter *iter, BadgeDBusMessageIter *sub);
    badge_dbus_bool_t (*message_iter_append_basic)(BadgeDBusMessageIter *iter, int type, const void *value);
    BadgeDBusMessage *(*message_new_method_call)(const char *destination, const char *path, const char *interface,
                                                 const char *method);
    void (*bus_add_match)(BadgeDBusConnection *connection, const char *rule, BadgeDBusError *error);
    int (*message_get_type)(BadgeDBusMessage *message);
    uint32_t (*message_get_reply_serial)(BadgeDBusMessage *message);
    badge_dbus_bool_t (*message_is_signal)(BadgeDBusMessage *message, const char *interface, const char *name);
    badge_dbus_bool_t (*message_iter_init)(BadgeDBusMessage *message, BadgeDBusMessageIter *iter);
    int (*message_iter_get_arg_type)(BadgeDBusMessageIter *iter);
    void (*message_iter_recurse)(BadgeDBusMessageIter *iter, BadgeDBusMessageIter *sub);
    void (*message_iter_get_basic)(BadgeDBusMessageIter *iter, void *value);
    badge_dbus_bool_t (*message_iter_next)(BadgeDBusMessageIter *iter);
    BadgeDBusConnection *(*connection_open_private)(const char *address, BadgeDBusError *error);
    BadgeDBusMessage *(*message_new_method_return)(BadgeDBusMessage *call);
    BadgeDBusMessage *(*message_new_error)(BadgeDBusMessage *call, const char *name, const char *text);
    const char *(*message_get_path)(BadgeDBusMessage *message);
    const char *(*message_get_interface)(BadgeDBusMessage *message);
    const char *(*message_get_member)(BadgeDBusMessage *message);
    const char *(*message_get_signature)(BadgeDBusMessage *message);
    badge_dbus_bool_t (*message_get_no_reply)(BadgeDBusMessage *message);
    long (*connection_get_outgoing_size)(BadgeDBusConnection *connection);
} BadgeDBus;

#define BADGE_DBUS_LOAD(field, symbol) \
    if (!(*(void **)(&library->field) = dlsym(handle, symbol))) return 0;

/// Loads libdbus-1.so.3 and its entry points; returns 0 when the library or any function is missing.
static inline int badge_dbus_load(BadgeDBus *library) {
    void *handle = dlopen("libdbus-1.so.3", RTLD_NOW | RTLD_LOCAL);
    if (!handle) return 0;
    BADGE_DBUS_LOAD(error_init, "dbus_error_init")
    BADGE_DBUS_LOAD(error_free, "dbus_error_free")
    BADGE_DBUS_LOAD(bus_get_private, "dbus_bus_get_private")
    BADGE_DBUS_LOAD(connection_set_exit_on_disconnect, "dbus_connection_set_exit_on_disconnect")
    BADGE_DBUS_LOAD(connection_close, "dbus_connection_close")
    BADGE_DBUS_LOAD(connection_unref, "dbus_connection_unref")
    BADGE_DBUS_LOAD(connection_get_unix_fd, "dbus_connection_get_unix_fd")
    BADGE_DBUS_LOAD(connection_get_is_connected, "dbus_connection_get_is_connected")
    BADGE_DBUS_LOAD(connection_send, "dbus_connection_send")
    BADGE_DBUS_LOAD(connection_read_write, "dbus_connection_read_write")
    BADGE_DBUS_LOAD(connection_pop_message, "dbus_connection_pop_message")
    BADGE_DBUS_LOAD(connection_has_messages_to_send, "dbus_connection_has_messages_to_send")
    BADGE_DBUS_LOAD(message_new_signal, "dbus_message_new_signal")
    BADGE_DBUS_LOAD(message_unref, "dbus_message_unref")
    BADGE_DBUS_LOAD(message_iter_init_append, "dbus_message_iter_init_append")
    BADGE_DBUS_LOAD(message_iter_open_container, "dbus_message_iter_open_container")
    BADGE_DBUS_LOAD(message_iter_close_container, "dbus_message_iter_close_container")
    BADGE_DBUS_LOAD(message_iter_append_basic, "dbus_message_iter_append_basic")
    BADGE_DBUS_LOAD(message_new_method_call, "dbus_message_new_method_call")
    BADGE_DBUS_LOAD(bus_add_match, "dbus_bus_add_match")
    BADGE_DBUS_LOAD(message_get_type, "dbus_message_get_type")
    BADGE_DBUS_LOAD(message_get_reply_serial, "dbus_message_get_reply_serial")
    BADGE_DBUS_LOAD(message_is_signal, "dbus_message_is_signal")
    BADGE_DBUS_LOAD(message_iter_init, "dbus_message_iter_init")
    BADGE_DBUS_LOAD(message_iter_get_arg_type, "dbus_message_iter_get_arg_type")
    BADGE_DBUS_LOAD(message_iter_recurse, "dbus_message_iter_recurse")
    BADGE_DBUS_LOAD(message_iter_get_basic, "dbus_message_iter_get_basic")
    BADGE_DBUS_LOAD(message_iter_next, "dbus_message_iter_next")
    BADGE_DBUS_LOAD(connection_open_private, "dbus_connection_open_private")
    BADGE_DBUS_LOAD(message_new_method_return, "dbus_message_new_method_return")
    BADGE_DBUS_LOAD(message_new_error, "dbus_message_new_error")
    BADGE_DBUS_LOAD(message_get_path, "dbus_message_get_path")
    BADGE_DBUS_LOAD(message_get_interface, "dbus_message_get_interface")
    BADGE_DBUS_LOAD(message_get_member, "dbus_message_get_member")
    BADGE_DBUS_LOAD(message_get_signature, "dbus_message_get_signature")
    BADGE_DBUS_LOAD(message_get_no_reply, "dbus_message_get_no_reply")
    BADGE_DBUS_LOAD(connection_get_outgoing_size, "dbus_connection_get_outgoing_size")
    return 1;
}
