// The D-Bus protocol's names and numbers (message types, standard error names, name-request
// flags): macros only. Nothing is linked: BadgeKit speaks the wire protocol itself (DBusWire).
#include "/usr/include/dbus-1.0/dbus/dbus-protocol.h"
