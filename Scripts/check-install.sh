#!/bin/sh
# Checks a tree installed by `make install-files DESTDIR=ROOT PREFIX=PREFIX` (install.mk):
# every file present with its mode, the desktop file (desktop-file-validate), the AppStream
# metainfo (appstreamcli validate --no-net, and validate-tree for the file name and the desktop
# file it launches), the man page (man -l renders it, groff has no warnings), the PNG icons (PNG
# files of the right size), the .mo catalogues, the session files (the autostart entry with
# desktop-file-validate, the systemd user unit with systemd-analyze verify when systemd is
# installed, the D-Bus service file; both Exec lines naming PREFIX/bin/badge-demo), and the
# installed binary (--version).
# After `make uninstall DESTDIR=ROOT`, `--empty ROOT` checks that nothing at all is left in ROOT.
# Stops at the first failure with a message and status 1; prints "install tree OK" at the end.
#
# Usage: Scripts/check-install.sh ROOT PREFIX
#        Scripts/check-install.sh --empty ROOT
# Needs: desktop-file-utils, appstream, man-db, groff-base (apt-get install them).
set -u

fail() { echo "check-install: FAIL: $*" >&2; exit 1; }
ok() { echo "ok: $*"; }
usage() { echo "usage: $0 ROOT PREFIX | $0 --empty ROOT" >&2; exit 2; }

if [ "${1:-}" = --empty ]; then
    [ $# -eq 2 ] || usage
    root=$2
    [ -d "$root" ] || fail "$root is not a directory"
    left=$(find "$root" -mindepth 1 | sort)
    if [ -n "$left" ]; then
        echo "$left" | head -n 40 >&2
        fail "uninstall left $(echo "$left" | wc -l) entries in $root (listed above)"
    fi
    echo "install tree empty: nothing left in $root"
    exit 0
fi

[ $# -eq 2 ] || usage
root=${1%/}
case $2 in /*) prefix=${2%/};; *) fail "PREFIX must be an absolute path, not '$2'";; esac
base=$root$prefix
[ -d "$base" ] || fail "$base is not a directory"
for tool in desktop-file-validate appstreamcli man groff od; do
    command -v "$tool" >/dev/null || fail "$tool not found (apt-get install desktop-file-utils appstream man-db groff-base)"
done

bin=$base/bin/badge-demo
desktop=$base/share/applications/badge-demo.desktop
metainfo=$base/share/metainfo/io.github.badgekit.BadgeDemo.metainfo.xml
manpage=$base/share/man/man1/badge-demo.1
icons=$base/share/icons/hicolor
autostart=$root/etc/xdg/autostart/badge-demo.desktop
unit=$base/lib/systemd/user/badge-demo.service
busfile=$base/share/dbus-1/services/io.github.badgekit.BadgeDemo.service
sizes="16 24 32 48 64 128 256"

# Every file, a regular file with the mode install.mk gives it.
mode() { stat -c %a "$1"; }
count=0
check_file() {  # FILE MODE
    [ -f "$1" ] || fail "missing $1"
    [ "$(mode "$1")" = "$2" ] || fail "$1 has mode $(mode "$1"), not $2"
    count=$((count + 1))
}
check_file "$bin" 755
check_file "$desktop" 644
check_file "$metainfo" 644
check_file "$manpage" 644
check_file "$icons/scalable/apps/badge-demo.svg" 644
for s in $sizes; do check_file "$icons/${s}x$s/apps/badge-demo.png" 644; done
check_file "$autostart" 644
check_file "$unit" 644
check_file "$busfile" 644
ok "all $count files present (binary 755, data 644)"

# The desktop file: no errors, no warnings, no hints.
out=$(desktop-file-validate "$desktop" 2>&1); status=$?
if [ $status -ne 0 ] || [ -n "$out" ]; then
    echo "$out" >&2; fail "desktop-file-validate $desktop (status $status, output above)"
fi
grep -qx 'Icon=badge-demo' "$desktop" || fail "$desktop: Icon is not badge-demo"
grep -qx 'StartupWMClass=badge-demo' "$desktop" || fail "$desktop: StartupWMClass is not badge-demo"
ok "desktop-file-validate $desktop"

# The metainfo alone, then the tree: the file name matches the component id, the launchable
# desktop file is there.
out=$(appstreamcli validate --no-net "$metainfo" 2>&1); status=$?
[ $status -eq 0 ] || { echo "$out" >&2; fail "appstreamcli validate --no-net $metainfo (status $status)"; }
ok "appstreamcli validate --no-net $metainfo"
out=$(appstreamcli validate-tree --no-net "$base" 2>&1); status=$?
[ $status -eq 0 ] || { echo "$out" >&2; fail "appstreamcli validate-tree --no-net $base (status $status)"; }
ok "appstreamcli validate-tree --no-net $base"

# The man page renders, and documents the new flags.
out=$(MANWIDTH=80 man -l "$manpage" 2>&1); status=$?
[ $status -eq 0 ] || { echo "$out" >&2; fail "man -l $manpage (status $status)"; }
echo "$out" | grep -q -e '--control' || fail "man -l $manpage: the rendered page does not mention --control"
echo "$out" | grep -q '^NAME' || fail "man -l $manpage: no NAME section in the rendered page"
warnings=$(groff -man -ww -z "$manpage" 2>&1)
[ -z "$warnings" ] || { echo "$warnings" >&2; fail "groff -man -ww -z $manpage printed warnings"; }
ok "man -l $manpage renders ($(echo "$out" | wc -l) lines, mentions --control; groff: no warnings)"

# The session files (docs/session.md).
out=$(desktop-file-validate "$autostart" 2>&1); status=$?
if [ $status -ne 0 ] || [ -n "$out" ]; then
    echo "$out" >&2; fail "desktop-file-validate $autostart (status $status, output above)"
fi
ok "desktop-file-validate $autostart"
grep -qx "ExecStart=$prefix/bin/badge-demo" "$unit" || fail "$unit: ExecStart is not $prefix/bin/badge-demo"
grep -qx 'BusName=io.github.badgekit.BadgeDemo' "$unit" || fail "$unit: no BusName=io.github.badgekit.BadgeDemo"
grep -qx "Exec=$prefix/bin/badge-demo" "$busfile" || fail "$busfile: Exec is not $prefix/bin/badge-demo"
grep -qx 'Name=io.github.badgekit.BadgeDemo' "$busfile" || fail "$busfile: Name is not io.github.badgekit.BadgeDemo"
grep -qx 'SystemdService=badge-demo.service' "$busfile" || fail "$busfile: SystemdService is not badge-demo.service"
if command -v systemd-analyze >/dev/null; then
    # verify wants ExecStart to exist: a copy of the unit that starts the staged binary, checked
    # as a user unit with a runtime folder of its own (systemd need not run).
    scratch=$(mktemp -d) || fail "mktemp -d"
    sed "s|^ExecStart=.*|ExecStart=$bin|" "$unit" > "$scratch/badge-demo.service"
    mkdir -m 700 "$scratch/run"
    out=$(XDG_RUNTIME_DIR=$scratch/run systemd-analyze --user --man=no verify "$scratch/badge-demo.service" 2>&1); status=$?
    rm -rf "$scratch"
    if [ $status -ne 0 ] || [ -n "$out" ]; then
        echo "$out" >&2; fail "systemd-analyze --user verify $unit (status $status, output above)"
    fi
    ok "systemd-analyze --user verify $unit"
else
    echo "skipped: systemd-analyze verify $unit (apt-get install systemd)"
fi

# The icons: the SVG is an SVG; each PNG has the PNG signature and an IHDR of N x N.
grep -q '<svg' "$icons/scalable/apps/badge-demo.svg" || fail "$icons/scalable/apps/badge-demo.svg is not an SVG file"
for s in $sizes; do
    png=$icons/${s}x$s/apps/badge-demo.png
    # The first 24 bytes as decimal numbers, one positional parameter each.
    # shellcheck disable=SC2046
    set -- $(od -An -v -tu1 -N24 "$png")
    [ $# -eq 24 ] || fail "$png: shorter than a PNG header"
    [ "$1 $2 $3 $4 $5 $6 $7 $8" = "137 80 78 71 13 10 26 10" ] || fail "$png: not a PNG file"
    [ "${13} ${14} ${15} ${16}" = "73 72 68 82" ] || fail "$png: no IHDR chunk first"
    width=$(( (${17} << 24) | (${18} << 16) | (${19} << 8) | ${20} ))
    height=$(( (${21} << 24) | (${22} << 16) | (${23} << 8) | ${24} ))
    if [ "$width" -ne "$s" ] || [ "$height" -ne "$s" ]; then fail "$png is ${width}x$height, not ${s}x$s"; fi
done
ok "icons: scalable SVG, PNG at $sizes px"

# The catalogues, whichever were installed: each a GNU .mo file (magic 0x950412de, either order).
count=0
for mo in "$base"/share/locale/*/LC_MESSAGES/*.mo; do
    [ -f "$mo" ] || continue
    magic=$(od -An -tx1 -N4 "$mo" | tr -d ' \n')
    case $magic in de120495|950412de) ;; *) fail "$mo is not a .mo file (magic $magic)";; esac
    [ "$(mode "$mo")" = 644 ] || fail "$mo has mode $(mode "$mo"), not 644"
    count=$((count + 1))
done
ok "$count .mo catalogues"

# The binary runs.
version=$("$bin" --version 2>&1); status=$?
[ $status -eq 0 ] || { echo "$version" >&2; fail "$bin --version exited with status $status"; }
case $(echo "$version" | head -n 1) in
    "badge-demo "*) ok "$bin --version: $(echo "$version" | head -n 1)";;
    *) echo "$version" >&2; fail "$bin --version does not print a line starting 'badge-demo '";;
esac

echo "install tree OK"
