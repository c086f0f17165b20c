#!/usr/bin/python3
"""A screen reader's view of an application, for the end-to-end tests: pyatspi (Orca's library)
under the test's own session and accessibility buses. Reads one JSON command per line on stdin and
answers each with one JSON line on stdout. Events it listens for are kept until asked for.

Commands:
  {"op": "find", "name": N, "timeout": S}   wait until an application named N is on the desktop
  {"op": "tree"}                              the application's whole tree
  {"op": "action", "path": [i, j, ...], "name": A}   do the action named A on the object at path
  {"op": "focus", "path": [...]}              Component.grabFocus
  {"op": "at", "x": X, "y": Y}                the deepest object at a screen point
  {"op": "listen", "events": [...]}           register for events
  {"op": "events", "count": N, "timeout": S}  the events received, once N came or S seconds passed
  {"op": "raw", ...}                          a D-Bus call of our own (bad input), see raw()
  {"op": "flood", "count": N, ...}            N calls at once without waiting, then count the answers
"""
import json
import sys

import gi
gi.require_version("Atspi", "2.0")
from gi.repository import Atspi, GLib  # noqa: E402
import pyatspi  # noqa: E402
import dbus  # noqa: E402
from dbus.mainloop.glib import DBusGMainLoop  # noqa: E402

app = None
received = []


def write(value):
    sys.stdout.write(json.dumps(value) + "\n")
    sys.stdout.flush()


def states(obj):
    return sorted(pyatspi.stateToString(s) for s in obj.getState().getStates())


def describe(obj, index_path):
    node = {
        "path": index_path,
        "role": obj.getRoleName(),
        "name": obj.name,
        "description": obj.description,
        "states": states(obj),
        "index": obj.getIndexInParent(),
        "childCount": obj.childCount,
        "interfaces": sorted(obj.get_interfaces()),
    }
    try:
        component = obj.queryComponent()
        for kind, coords in (("screen", pyatspi.DESKTOP_COORDS), ("window", pyatspi.WINDOW_COORDS)):
            e = component.getExtents(coords)
            node[kind] = [e.x, e.y, e.width, e.height]
    except NotImplementedError:
        pass
    try:
        action = obj.queryAction()
        node["actions"] = [{"name": action.getName(i), "description": action.getDescription(i),
                            "key": action.getKeyBinding(i)} for i in range(action.nActions)]
    except NotImplementedError:
        pass
    node["children"] = [describe(obj.getChildAtIndex(i), index_path + [i]) for i in range(obj.childCount)]
    return node


def resolve(index_path):
    obj = app
    for i in index_path:
        obj = obj.getChildAtIndex(i)
    return obj


def find(name, timeout):
    global app
    deadline = GLib.get_monotonic_time() + int(timeout * 1e6)
    context = GLib.MainContext.default()
    while GLib.get_monotonic_time() < deadline:
        try:
            desktop = pyatspi.Registry.getDesktop(0)
            # Ask the registry, not libatspi's list (a registry that restarted has a new one).
            desktop.clear_cache()
            for i in range(desktop.childCount):
                child = desktop.getChildAtIndex(i)
                if child is not None and child.name == name:
                    app = child
                    return True
        except Exception:  # the registry is starting: ask again
            pass
        # Let libatspi take what arrived (the registry's children-changed signals) while waiting.
        wait_until = GLib.get_monotonic_time() + 20000
        while GLib.get_monotonic_time() < wait_until:
            if not context.iteration(False):
                GLib.usleep(2000)
    return False


def on_event(event):
    source = event.source
    data = event.any_data
    if not isinstance(data, (str, int, float, bool, type(None))):
        data = getattr(data, "name", str(data))
    try:
        source_name, source_role = source.name, source.getRoleName()
    except Exception:
        source_name, source_role = None, None
    received.append({"event": str(event.type), "source": source_name, "role": source_role,
                     "detail1": event.detail1, "detail2": event.detail2, "data": data})


def wait_for_events(count, timeout):
    """Runs the main loop until `count` events came (or `timeout` seconds passed); returns them all.
    libatspi defers events that arrive during a call, so they are only seen from the loop."""
    context = GLib.MainContext.default()
    deadline = GLib.get_monotonic_time() + int(timeout * 1e6)
    while len(received) < count and GLib.get_monotonic_time() < deadline:
        if not context.iteration(False):
            GLib.usleep(5000)
    events = list(received)
    received.clear()
    return events


def a11y_bus():
    session = dbus.SessionBus(mainloop=DBusGMainLoop())
    address = session.get_object("org.a11y.Bus", "/org/a11y/bus").GetAddress(dbus_interface="org.a11y.Bus")
    return dbus.bus.BusConnection(address, mainloop=DBusGMainLoop())


RAW_BUS = None


def raw(command):
    """A call with exactly the given signature and arguments; answers the reply or the error name."""
    global RAW_BUS
    if RAW_BUS is None:
        RAW_BUS = a11y_bus()
    proxy = RAW_BUS.get_object(command["bus"], command["path"], introspect=False)
    method = proxy.get_dbus_method(command["member"], command.get("interface") or None)
    try:
        reply = method(*command.get("args", []), signature=command.get("signature", ""), timeout=10)
        return {"reply": json.loads(json.dumps(reply, default=str))}
    except dbus.exceptions.DBusException as error:
        return {"error": error.get_dbus_name(), "message": error.get_dbus_message()}


def flood(command):
    """`count` calls sent at once, answered asynchronously; counts replies and errors by name."""
    global RAW_BUS
    if RAW_BUS is None:
        RAW_BUS = a11y_bus()
    proxy = RAW_BUS.get_object(command["bus"], command["path"], introspect=False)
    results = {"replies": 0, "errors": {}}
    pending = [command["count"]]
    calls = command["calls"]

    def done():
        pending[0] -= 1
        if pending[0] == 0:
            flood_loop.quit()

    def reply(*_):
        results["replies"] += 1
        done()

    def error(e):
        name = e.get_dbus_name()
        results["errors"][name] = results["errors"].get(name, 0) + 1
        done()

    for i in range(command["count"]):
        call = calls[i % len(calls)]
        method = proxy.get_dbus_method(call["member"], call.get("interface") or None)
        method(*call.get("args", []), signature=call.get("signature", ""), reply_handler=reply, error_handler=error,
               timeout=60)
    flood_loop = GLib.MainLoop()
    flood_loop.run()
    return results


def handle(command):
    op = command.get("op")
    if op == "find":
        return {"found": find(command["name"], command.get("timeout", 10))}
    if op == "tree":
        # What the application says now: libatspi's cache is kept by events, sent only to listeners.
        app.set_cache_mask(Atspi.Cache.NONE)
        app.clear_cache()
        return {"tree": describe(app, [])}
    if op == "action":
        obj = resolve(command["path"])
        action = obj.queryAction()
        for i in range(action.nActions):
            if action.getName(i) == command["name"]:
                return {"done": bool(action.doAction(i))}
        return {"done": False, "reason": "no such action"}
    if op == "focus":
        return {"done": bool(resolve(command["path"]).queryComponent().grabFocus())}
    if op == "at":
        app.clear_cache()
        obj = app.getChildAtIndex(0)  # the frame (the application has no extents)
        while True:
            try:
                child = obj.queryComponent().getAccessibleAtPoint(command["x"], command["y"], pyatspi.DESKTOP_COORDS)
            except NotImplementedError:
                child = None
            if child is None:
                break
            obj = child
        return {"role": obj.getRoleName(), "name": obj.name}
    if op == "listen":
        pyatspi.Registry.registerEventListener(on_event, *command["events"])
        return {"listening": command["events"]}
    if op == "events":
        return {"events": wait_for_events(command.get("count", 0), command.get("timeout", 0.2))}
    if op == "raw":
        return raw(command)
    if op == "flood":
        return flood(command)
    if op == "quit":
        pyatspi.Registry.stop()
        return {"bye": True}
    return {"error": "unknown op"}


def on_input(source, condition):
    line = sys.stdin.readline()
    if not line:
        pyatspi.Registry.stop()
        return False
    try:
        answer = handle(json.loads(line))
    except Exception as error:  # a failed command is an answer too
        answer = {"exception": type(error).__name__, "message": str(error)}
    write(answer)
    return True


GLib.io_add_watch(sys.stdin, GLib.PRIORITY_DEFAULT, GLib.IO_IN | GLib.IO_HUP, on_input)
write({"ready": True})
# Atspi's own main loop: events are dispatched (and libatspi's cache kept) only inside it.
pyatspi.Registry.start()
