#!/usr/bin/env python3
"""Differential checks of two readers against a second, independent reader (issue 38):

  json  BadgeControl's JSON parser against Python's json module, on the JSON fuzz corpus
        (.build/fuzz/corpus/json: inputs libFuzzer derived from the seeds) and the seeds;
  dbus  BadgeIO's D-Bus message decoder against libdbus's dbus_message_demarshal (the reader
        dbus-daemon itself uses), on messages a real dbus-daemon passed (Fuzz/dbus-message/seeds,
        captured with dbus-monitor --pcap), mutated, plus the D-Bus fuzz corpus.

Our verdicts come from the fuzz targets run on the files (FUZZ_VERDICTS: one line per input).
Accept/reject and the values must agree; every disagreement is put in a documented class
(docs/reliability.md); one that fits none fails the check and is printed.

  Scripts/fuzz-differential.py json|dbus [--mutations N] [--seed S]
"""
import ctypes, json, math, os, random, re, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, ".build/fuzz/bin")


def files_in(*folders):
    out = []
    for folder in folders:
        if os.path.isdir(folder):
            out += [os.path.join(folder, n) for n in sorted(os.listdir(folder)) if not n.startswith(".")]
    return out


def our_verdicts(target, inputs):
    """Runs fuzz-TARGET on each input (bytes), in batches; returns one verdict line per input."""
    verdicts = []
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for i, data in enumerate(inputs):
            p = os.path.join(tmp, "%06d" % i)
            with open(p, "wb") as f:
                f.write(data)
            paths.append(p)
        out = os.path.join(tmp, "verdicts")
        env = dict(os.environ, FUZZ_VERDICTS=out, ASAN_OPTIONS="detect_leaks=0")
        for start in range(0, len(paths), 500):
            batch = paths[start:start + 500]
            r = subprocess.run(["nice", "-n", "19", os.path.join(BIN, "fuzz-" + target), "-detect_leaks=0"] + batch,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
            if r.returncode != 0:
                sys.exit("fuzz-%s failed on a batch:\n%s" % (target, r.stderr.decode(errors="replace")[-2000:]))
        with open(out, encoding="utf-8", errors="surrogateescape") as f:
            verdicts = f.read().split("\n")[:-1]
    if len(verdicts) != len(inputs):
        sys.exit("expected %d verdicts, got %d" % (len(inputs), len(verdicts)))
    return verdicts


# ---------------------------------------------------------------- JSON

class Duplicate(Exception):
    pass


def no_duplicates(pairs):
    keys = [k for k, _ in pairs]
    if len(set(keys)) != len(keys):
        raise Duplicate()
    return pairs  # keeps order, as ours does


def reject_constant(name):
    raise ValueError("constant " + name)


def python_json(data, strict_keys=True):
    text = data.decode("utf-8")  # UnicodeDecodeError: invalid UTF-8
    return json.loads(text, object_pairs_hook=no_duplicates if strict_keys else None, parse_constant=reject_constant)


def same(a, b):
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, tuple) and isinstance(b, tuple):
        return same(a[0], b[0]) and same(a[1], b[1])
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        if isinstance(a, int) and isinstance(b, int):
            return a == b
        return float(a) == float(b) or (math.isclose(float(a), float(b), rel_tol=1e-15))
    return type(a) == type(b) and a == b


def pairs_to_lists(v):
    if isinstance(v, list):
        if v and all(isinstance(x, tuple) and len(x) == 2 and isinstance(x[0], str) for x in v) and False:
            pass
        return [pairs_to_lists(x) for x in v]
    if isinstance(v, tuple):
        return (v[0], pairs_to_lists(v[1]))
    return v


def depth(data):
    d = m = 0
    in_string = escape = False
    for c in data:
        if in_string:
            if escape: escape = False
            elif c == 0x5C: escape = True
            elif c == 0x22: in_string = False
        elif c == 0x22: in_string = True
        elif c in (0x5B, 0x7B): d += 1; m = max(m, d)
        elif c in (0x5D, 0x7D): d -= 1
    return m


def classify_json(data, ours):
    """The class of a disagreement, or None when the two agree."""
    accepted = ours.startswith("A ")
    try:
        theirs = python_json(data)
        py_error = None
    except Duplicate:
        theirs, py_error = None, "duplicate"
    except UnicodeDecodeError:
        theirs, py_error = None, "utf8"
    except RecursionError:
        theirs, py_error = None, "recursion"
    except ValueError as e:
        theirs, py_error = None, str(e)
    if accepted and py_error is None:
        mine = json.loads(ours[2:], object_pairs_hook=lambda p: p)
        if same(pairs_to_lists(mine), pairs_to_lists(theirs)):
            return None
        # Python keeps integers of any size exactly; ours makes those beyond Int a Double.
        if not same(pairs_to_lists(mine), pairs_to_lists(theirs)) and b"e" not in data.lower() and any(len(t) > 18 for t in data.replace(b"-", b" ").replace(b",", b" ").replace(b"]", b" ").replace(b"[", b" ").split()):
            return "a whole number beyond Int: a Double here, an exact int in Python"
        return "VALUES DIFFER: ours %r, Python %r" % (ours[2:200], json.dumps(theirs)[:200])
    if not accepted and py_error is not None:
        return None
    if not accepted:  # Python accepted
        reason = ours[2:]
        if "nested more than 64" in reason:
            return "nesting deeper than 64 levels: refused here, read by Python"
        if "out of range" in reason:
            return "a number beyond Double (1e400): refused here, infinity in Python"
        if "surrogate" in reason or "\\u" in reason:
            return "a lone UTF-16 surrogate escape: refused here, kept by Python"
        return "REFUSED HERE ONLY: %s" % reason[:200]
    # Ours accepted, Python refused.
    if py_error == "duplicate":
        return "DUPLICATE KEY ACCEPTED"
    if py_error == "utf8":
        return "invalid UTF-8 inside a string: read as U+FFFD here, refused by Python"
    if py_error == "recursion":
        return "deep nesting: Python's recursion limit"
    return "ACCEPTED HERE ONLY (Python: %s)" % py_error[:120]


def run_json(args):
    inputs = [open(p, "rb").read() for p in files_in(os.path.join(ROOT, ".build/fuzz/corpus/json"), os.path.join(ROOT, "Fuzz/json/seeds"),
                                                       os.path.join(ROOT, "Fuzz/json/regressions"))]
    rng = random.Random(args.seed)
    extra = [b'{"a":1,"a":2}', b"[" * 65 + b"]" * 65, b"[" * 64 + b"]" * 64, b"1e400", b"-1e400", b'"\\ud800"', b'"\\udc00\\ud800"',
             b"NaN", b"Infinity", b"[1,]", b"01", b"\xef\xbb\xbf{}", b'"\xff"', b'"\xc0\xaf"', b"12345678901234567890", b"-0", b"0e0",
             b" \t\r\n[]\n", b"\x0c[]", b'"\x1f"', b'"\x7f"', b"[1e-400]", b'{"\\u0000":1}', b'"\\u00e9\\uD83D\\uDE00"']
    inputs += extra
    # Mutations of the corpus: a byte changed, removed, inserted or a piece doubled.
    base = list(inputs)
    for _ in range(args.mutations):
        d = bytearray(rng.choice(base))
        if not d: continue
        op = rng.randrange(4); i = rng.randrange(len(d))
        if op == 0: d[i] = rng.randrange(256)
        elif op == 1: del d[i]
        elif op == 2: d.insert(i, rng.choice(b'{}[]":,\\0123456789eE.-+ ntfu\x00\x80\xff'))
        else: j = rng.randrange(i, len(d)); d[i:i] = d[i:j + 1]
        inputs.append(bytes(d))
    verdicts = our_verdicts("json", inputs)
    return report("JSON parser vs Python json", inputs, verdicts, classify_json)


# ---------------------------------------------------------------- D-Bus

class DBusError(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("message", ctypes.c_char_p), ("dummy", ctypes.c_uint), ("padding1", ctypes.c_void_p)]


def libdbus():
    lib = ctypes.CDLL("libdbus-1.so.3")
    lib.dbus_message_demarshal.restype = ctypes.c_void_p
    lib.dbus_message_demarshal.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.POINTER(DBusError)]
    for name in ["path", "interface", "member", "error_name", "destination", "sender", "signature"]:
        f = getattr(lib, "dbus_message_get_" + name)
        f.restype = ctypes.c_char_p
        f.argtypes = [ctypes.c_void_p]
    for name in ["type", "serial", "reply_serial"]:
        f = getattr(lib, "dbus_message_get_" + name)
        f.restype = ctypes.c_uint
        f.argtypes = [ctypes.c_void_p]
    lib.dbus_message_unref.argtypes = [ctypes.c_void_p]
    lib.dbus_error_init.argtypes = [ctypes.POINTER(DBusError)]
    lib.dbus_error_free.argtypes = [ctypes.POINTER(DBusError)]
    return lib


def libdbus_verdict(lib, data):
    error = DBusError()
    lib.dbus_error_init(ctypes.byref(error))
    message = lib.dbus_message_demarshal(data, len(data), ctypes.byref(error))
    if not message:
        reason = (error.message or b"").decode(errors="replace")
        lib.dbus_error_free(ctypes.byref(error))
        return None, reason
    s = lambda b: (b or b"").decode("utf-8", errors="surrogateescape")
    fields = (lib.dbus_message_get_type(message), lib.dbus_message_get_serial(message), lib.dbus_message_get_reply_serial(message),
              s(lib.dbus_message_get_path(message)), s(lib.dbus_message_get_interface(message)), s(lib.dbus_message_get_member(message)),
              s(lib.dbus_message_get_error_name(message)), s(lib.dbus_message_get_destination(message)), s(lib.dbus_message_get_sender(message)),
              s(lib.dbus_message_get_signature(message)))
    lib.dbus_message_unref(message)
    return fields, None


def classify_dbus(lib):
    def classify(data, ours):
        theirs, reason = libdbus_verdict(lib, data)
        if ours.startswith("A "):
            kind, serial, reply, path, interface, member, error_name, destination, sender, signature, body_error = json.loads(ours[2:])
            if theirs is None:
                if body_error:
                    return "body unreadable: the header kept here (bodyError set, the call refused), the whole message refused by libdbus"
                checks = {"Alignment padding not null": "padding", "Header field has wrong type": "a field's type", "Header field code": "a field's code",
                          "Header field appears twice": "a repeated field (the last one read here)"}
                for words in ["Bad sender", "Bad path", "Bad interface", "Bad member", "Bad destination", "Bad error name", "Bad signature"]:
                    checks[words] = "a name's syntax"
                for words in ["Missing path", "Missing interface", "Missing member", "Missing error name", "Missing reply serial", "Bad serial"]:
                    checks[words] = "a required field"
                for words, what in checks.items():
                    if words in reason:
                        return "libdbus refuses %s (%s); read here as given: the daemon checks that before a message reaches us" % (what, words)
                return "ACCEPTED HERE ONLY (libdbus: %s)" % reason[:160]
            mine = (kind, serial, reply, path, interface, member, error_name, destination, sender, signature)
            if mine == theirs:
                return None
            return "FIELDS DIFFER: ours %r, libdbus %r" % (mine, theirs)
        if theirs is None:
            return None
        why = ours[2:]
        for words, label in [("the unknown message type", "an unknown message type: refused here, kept by libdbus (the daemon sends none)"),
                             ("required field", "a header field libdbus does not require for the kind: refused here"),
                             ("nested", "nesting: refused here at a lower depth than libdbus"),
                             ("not supported", "a type this decoder does not read (h, unix fds): refused here")]:
            if words in why:
                return label
        return "REFUSED HERE ONLY: %s" % why[:200]
    return classify


def mutate_dbus(rng, m):
    d = bytearray(m)
    op = rng.randrange(6)
    i = rng.randrange(len(d))
    if op == 0: d[i] ^= 1 << rng.randrange(8)
    elif op == 1: d[i] = rng.randrange(256)
    elif op == 2: d[i] = rng.choice([0, 0xFF, 0x7F, 0x80, ord("s"), ord("a"), ord("("), ord("{"), ord("v"), ord("/"), ord(".")])
    elif op == 3 and len(d) > 16: d[4:8] = rng.randrange(1 << 32).to_bytes(4, "little")  # the body length
    elif op == 4 and len(d) > 16: d[12:16] = rng.randrange(1 << 32).to_bytes(4, "little")  # the header fields' length
    else:
        for _ in range(rng.randrange(1, 4)):
            j = rng.randrange(len(d)); d[j] = rng.randrange(256)
    return bytes(d)


def run_dbus(args):
    seeds = [open(p, "rb").read() for p in files_in(os.path.join(ROOT, "Fuzz/dbus-message/seeds"))]
    rng = random.Random(args.seed)
    inputs = list(seeds)
    inputs += [open(p, "rb").read() for p in files_in(os.path.join(ROOT, ".build/fuzz/corpus/dbus-message"))]
    for _ in range(args.mutations):
        inputs.append(mutate_dbus(rng, rng.choice(seeds)))
    verdicts = our_verdicts("dbus-message", inputs)
    return report("D-Bus decoder vs libdbus dbus_message_demarshal", inputs, verdicts, classify_dbus(libdbus()))


def report(title, inputs, verdicts, classify):
    classes, examples = {}, {}
    accepted = 0
    for data, ours in zip(inputs, verdicts):
        accepted += ours.startswith("A ")
        c = classify(data, ours)
        if c is None:
            c = "agree"
        elif c.split(":")[0].isupper():
            c = re.sub(r"\d+", "N", c.split(" e.g.")[0])[:160]  # one class for every number
        classes[c] = classes.get(c, 0) + 1
        examples.setdefault(c, data)
    print("%s: %d inputs, %d accepted here" % (title, len(inputs), accepted))
    failed = False
    for c, n in sorted(classes.items(), key=lambda kv: -kv[1]):
        unexplained = c.isupper() or c.split(":")[0].isupper()
        failed |= unexplained
        print("  %7d  %s%s" % (n, c, "" if c == "agree" else "   e.g. %r" % examples[c][:80]))
    return 1 if failed else 0


def main():
    import argparse
    p = argparse.ArgumentParser()
    p.add_argument("reader", choices=["json", "dbus"])
    p.add_argument("--mutations", type=int, default=20000)
    p.add_argument("--seed", type=int, default=38)
    args = p.parse_args()
    sys.exit(run_json(args) if args.reader == "json" else run_dbus(args))


if __name__ == "__main__":
    main()
