#!/usr/bin/python3
# A stand-in for xdg-desktop-portal's Settings interface on a test's private session bus:
# org.freedesktop.portal.Desktop at /org/freedesktop/portal/desktop answers Read for
# org.freedesktop.appearance color-scheme (a variant in a variant, as the real portal answers) and
# emits SettingChanged for each number read on standard input. Prints "ready" once it owns its name.
import sys

import dbus
import dbus.exceptions
import dbus.mainloop.glib
import dbus.service
from gi.repository import GLib

dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
bus = dbus.SessionBus()
name = dbus.service.BusName("org.freedesktop.portal.Desktop", bus)
INTERFACE = "org.freedesktop.portal.Settings"


class Settings(dbus.service.Object):
    def __init__(self, scheme):
        super().__init__(bus, "/org/freedesktop/portal/desktop")
        self.scheme = scheme

    @dbus.service.method(INTERFACE, in_signature="ss", out_signature="v")
    def Read(self, namespace, key):
        if namespace == "org.freedesktop.appearance" and key == "color-scheme":
            return dbus.UInt32(self.scheme, variant_level=1)
        raise dbus.exceptions.DBusException("no such setting", name="org.freedesktop.portal.Error.NotFound")

    @dbus.service.signal(INTERFACE, signature="ssv")
    def SettingChanged(self, namespace, key, value):
        pass


settings = Settings(int(sys.argv[1]))
loop = GLib.MainLoop()


def on_input(source, condition):
    line = sys.stdin.readline()
    if not line:
        loop.quit()
        return False
    settings.scheme = int(line)
    settings.SettingChanged("org.freedesktop.appearance", "color-scheme", dbus.UInt32(settings.scheme, variant_level=1))
    print("sent", settings.scheme, flush=True)
    return True


GLib.io_add_watch(sys.stdin, GLib.IO_IN | GLib.IO_HUP, on_input)
print("ready", flush=True)
loop.run()
