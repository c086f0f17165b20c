#!/usr/bin/python3
# A StatusNotifierWatcher stand-in for the tray tests: owns the watcher name given (org.kde. or
# org.freedesktop.StatusNotifierWatcher) on the bus at the address given, prints one JSON line per
# registration, and answers commands on stdin with one JSON line each:
#   icon      IconPixmap decoded: the sizes, and per size the opaque red pixels
#   pixmaps   IconPixmap as read: per pixmap its width, height and bytes in hex
#   status    the Status property
#   tooltip   the ToolTip property's title and text
#   activate  calls Activate(0, 0)
#   menu      calls ContextMenu(300, 200), as a panel does on a right click
#   quit      releases the name and exits
import json, sys
import dbus, dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

DBusGMainLoop(set_as_default=True)
bus = dbus.bus.BusConnection(sys.argv[1])
watcher_name = sys.argv[2]
items = []

def say(value):
    print(json.dumps(value), flush=True)

class Watcher(dbus.service.Object):
    @dbus.service.method(watcher_name, in_signature="s", out_signature="", sender_keyword="sender")
    def RegisterStatusNotifierItem(self, service, sender=None):
        items.append((str(service), str(sender)))
        say({"registered": str(service), "sender": str(sender)})

    @dbus.service.method(watcher_name, in_signature="s", out_signature="")
    def RegisterStatusNotifierHost(self, service):
        pass

name = dbus.service.BusName(watcher_name, bus, do_not_queue=True)
watcher = Watcher(bus, "/StatusNotifierWatcher")
say({"ready": watcher_name})

def item():
    service, sender = items[-1]
    return bus.get_object(service, "/StatusNotifierItem")

def get(prop):
    return item().Get("org.kde.StatusNotifierItem", prop, dbus_interface="org.freedesktop.DBus.Properties")

def command(source, condition):
    line = sys.stdin.readline()
    if not line:
        GLib.MainLoop().quit()
        sys.exit(0)
    word = line.strip()
    try:
        if word == "icon":
            pixmaps = get("IconPixmap")
            sizes, red, sane = [], {}, True
            for (w, h, data) in pixmaps:
                data = bytes(bytearray(data))
                sizes.append([int(w), int(h)])
                sane = sane and len(data) == w * h * 4
                count = 0
                for i in range(0, len(data), 4):
                    a, r, g, b = data[i], data[i + 1], data[i + 2], data[i + 3]
                    if a > 200 and r > 170 and g < 120 and b < 120:
                        count += 1
                red[str(int(w))] = count
            say({"sizes": sizes, "red": red, "sane": sane})
        elif word == "pixmaps":
            say({"pixmaps": [[int(w), int(h), bytes(bytearray(data)).hex()] for (w, h, data) in get("IconPixmap")]})
        elif word == "status":
            say({"status": str(get("Status"))})
        elif word == "tooltip":
            tip = get("ToolTip")
            say({"title": str(tip[2]), "text": str(tip[3])})
        elif word == "activate":
            item().Activate(0, 0, dbus_interface="org.kde.StatusNotifierItem")
            say({"activated": True})
        elif word == "menu":
            item().ContextMenu(300, 200, dbus_interface="org.kde.StatusNotifierItem")
            say({"menu": True})
        elif word == "quit":
            sys.exit(0)
    except dbus.DBusException as error:
        say({"error": str(error)})
    return True

GLib.io_add_watch(sys.stdin, GLib.IO_IN | GLib.IO_HUP, command)
GLib.MainLoop().run()
